package mcp

import (
	"context"
	"log/slog"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/kg-memory/kg/adapters/metrics"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// tool is one kg tool as a value: everything tools/list shows of it and
// everything tools/call does with it. Each tool is declared in a file of
// its own, named after it (kg_read.go, …), and registered by one line in
// kgTools.
//
// A is the tool's arguments: a struct whose fields are the argument types of
// args.go, each tagged with the argument's name (`arg:"session_id"`), in the
// order of args.
//
// A tool answers with its text only: no outputSchema, no
// structuredContent. Claude Code and Codex hand the model a result's
// structuredContent as JSON whenever it is present and drop the text, so
// the text written for the model would never reach it (decision 0091);
// programs get the same facts from REST.
type tool[A any] struct {
	name        string
	description string
	hints       hints
	// args declares the input schema, one option per argument, in the
	// order of A's fields. A test checks that the two agree.
	args []mcpgo.ToolOption
	// run calls the app with the decoded arguments and returns the text
	// written for an LLM. An error becomes the tool's answer through
	// failure.
	run func(ctx context.Context, svc Service, a A) (text string, err error)
}

// hints are a tool's annotations. Every kg tool works on the local graph
// only, so none is open-world.
type hints struct {
	title                             string
	readOnly, destructive, idempotent bool
}

// registered is a tool as the server sees it, whatever its types.
type registered interface {
	declaration() mcpgo.Tool
	handler(svc Service, log *slog.Logger, calls *metrics.ToolCalls) server.ToolHandlerFunc
}

// declaration is the tool as tools/list shows it.
func (t tool[A]) declaration() mcpgo.Tool {
	opts := append([]mcpgo.ToolOption{mcpgo.WithDescription(t.description)}, t.args...)
	opts = append(opts,
		mcpgo.WithToolAnnotation(mcpgo.ToolAnnotation{
			Title:           t.hints.title,
			ReadOnlyHint:    mcpgo.ToBoolPtr(t.hints.readOnly),
			DestructiveHint: mcpgo.ToBoolPtr(t.hints.destructive),
			IdempotentHint:  mcpgo.ToBoolPtr(t.hints.idempotent),
			OpenWorldHint:   mcpgo.ToBoolPtr(false),
		}),
	)
	return mcpgo.NewTool(t.name, opts...)
}

// handler answers tools/call: it binds the arguments, run does the work,
// and the result carries its text. A problem with
// the arguments or a failure of the app is answered by failure: a tool
// error a client can act on, or a JSON-RPC error for a bug. Each call is
// recorded in calls with its outcome and duration.
func (t tool[A]) handler(svc Service, log *slog.Logger, calls *metrics.ToolCalls) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		start := time.Now()
		// Until the call returns, it counts as a JSON-RPC error: a panic
		// is answered as one by mcp-go's recovery.
		outcome := metrics.ToolProtocolError
		defer func() { calls.Observe(outcome, time.Since(start)) }()

		var in arguments[A]
		if err := req.BindArguments(&in); err != nil {
			// arguments never fails to decode; this is mcp-go failing to
			// re-encode what it parsed, answered as its typed handler did.
			outcome = metrics.ToolInvalid
			return mcpgo.NewToolResultError("failed to bind arguments: " + err.Error()), nil
		}
		err := in.err
		if err == nil && t.hints.destructive && !app.MayWrite(ctx) {
			p, _ := app.PrincipalOf(ctx)
			err = domain.Invalidf("Authorization", "the token of %s has scope read: %s changes memory, which it may not", p.Name, t.name)
		}
		if err == nil {
			var text string
			if text, err = t.run(ctx, svc, in.args); err == nil {
				outcome = metrics.ToolOK
				return mcpgo.NewToolResultText(text), nil
			}
		}
		res, rpcErr := failure(ctx, log, t.name, err)
		outcome = outcomeOf(err, rpcErr)
		return res, rpcErr
	}
}

// outcomeOf is the outcome recorded for a call that failed with err and
// was answered by failure with rpcErr.
func outcomeOf(err, rpcErr error) metrics.ToolOutcome {
	if rpcErr != nil {
		return metrics.ToolProtocolError
	}
	switch domain.KindOf(err) {
	case domain.KindInvalid:
		return metrics.ToolInvalid
	case domain.KindNotFound:
		return metrics.ToolNotFound
	case domain.KindConflict:
		return metrics.ToolConflict
	case domain.KindUnavailable:
		return metrics.ToolUnavailable
	}
	return metrics.ToolProtocolError
}

// Argument declarations shared by several tools.

func sessionArg(required bool) mcpgo.ToolOption {
	opts := []mcpgo.PropertyOption{mcpgo.Description("The session id returned by kg_read.")}
	if required {
		opts = append(opts, mcpgo.Required())
	}
	return mcpgo.WithString("session_id", opts...)
}

func levelArg(required bool, what string) mcpgo.ToolOption {
	opts := []mcpgo.PropertyOption{mcpgo.Enum("user", "project"), mcpgo.Description(what)}
	if required {
		opts = append(opts, mcpgo.Required())
	}
	return mcpgo.WithString("level", opts...)
}

func notesArg(what string) mcpgo.ToolOption {
	return mcpgo.WithArray("notes", mcpgo.WithStringItems(), mcpgo.Description(what))
}
