package mcp

import (
	"context"
	"errors"
	"log/slog"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/domain"
)

// errInternal is what a client is told of a bug; the log has the details.
var errInternal = errors.New("internal error in kg; the server log has the details")

// failure turns an error of a tool call into its answer. This is the one
// table of the MCP adapter: every kind a client can act on becomes an
// isError result with a one-line message naming the field or thing at
// fault and what to do; anything else is a bug, logged, and returned as a
// Go error, which mcp-go sends as a JSON-RPC error without the details.
func failure(ctx context.Context, log *slog.Logger, tool string, err error) (*mcpgo.CallToolResult, error) {
	var de *domain.Error
	msg := err.Error()
	if errors.As(err, &de) {
		// The domain error's own message: the wrapping context, if any, is
		// for the log, not for the agent.
		msg = de.Error()
		if de.Kind == domain.KindNotFound {
			// A not-found message names the thing itself (`node "x" not
			// found in user or project graph`, `unknown session "…"`), as
			// the replaced server's did; the field would only repeat it.
			msg = de.Msg
		}
	}
	switch domain.KindOf(err) {
	case domain.KindInvalid, domain.KindNotFound, domain.KindConflict:
		return errorResult(msg), nil
	case domain.KindUnavailable:
		log.LogAttrs(ctx, slog.LevelWarn, "tool failed", slog.String("tool", tool), slog.Any("err", err))
		// The app's message says what could not be done and to retry.
		return errorResult(msg), nil
	default:
		log.LogAttrs(ctx, slog.LevelError, "tool failed with an internal error",
			slog.String("tool", tool), slog.Any("err", err))
		return nil, errInternal
	}
}

// errorResult is an isError tool result with one line of text.
func errorResult(msg string) *mcpgo.CallToolResult {
	return &mcpgo.CallToolResult{
		Content: []mcpgo.Content{mcpgo.NewTextContent("Error: " + msg)},
		IsError: true,
	}
}
