package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/adapters/metrics"
	"github.com/kg-memory/kg/adapters/metrics/metricstest"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// failingPut is a Service whose PutNode fails with err; any method it does
// not define panics (the embedded Service is nil), as a bug would.
type failingPut struct {
	Service
	err error
}

func (f failingPut) PutNode(context.Context, app.Scope, domain.NodeInput) (app.PutNodeResult, error) {
	return app.PutNodeResult{}, f.err
}

// Each way a tool call can end is counted under its outcome: the tool
// errors by kind, and the JSON-RPC errors of a bug and of a panic.
func TestToolCallOutcomes(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	put := map[string]any{"session_id": "s", "level": "user", "id": "a", "gist": "g"}
	tests := []struct {
		name    string
		err     error
		tool    string
		args    map[string]any
		outcome string
	}{
		{"invalid", domain.Invalidf("gist", "too long"), "kg_put_node", put, "invalid"},
		{"bad argument", nil, "kg_put_node", map[string]any{"session_id": 7, "level": "user", "id": "a", "gist": "g"}, "invalid"},
		{"not found", domain.NotFoundf("session_id", "unknown session"), "kg_put_node", put, "not_found"},
		{"conflict", &domain.Error{Kind: domain.KindConflict, Field: "expected_version", Msg: "stale"}, "kg_put_node", put, "conflict"},
		{"unavailable", domain.Unavailable(errors.New("disk full"), "could not be saved"), "kg_put_node", put, "unavailable"},
		{"bug", errors.New("nil map"), "kg_put_node", put, "protocol_error"},
		{"panic", nil, "kg_search", map[string]any{"query": "x"}, "protocol_error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := metrics.New()
			srv := httptest.NewServer(New("t", failingPut{err: tc.err}, log, m))
			t.Cleanup(srv.Close)
			c := (&env{url: srv.URL}).client(t)
			req := mcpgo.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = tc.tool, tc.args
			res, err := c.CallTool(context.Background(), req)
			if wantRPC := tc.outcome == "protocol_error"; (err != nil) != wantRPC || (err == nil && !res.IsError) {
				t.Fatalf("answer %+v, %v; want a tool error, or a JSON-RPC error for %s", res, err, tc.outcome)
			}
			scrape := httptest.NewServer(m.Handler(log))
			t.Cleanup(scrape.Close)
			sc := metricstest.Get(t, scrape.URL)
			if got := sc.Value("kg_mcp_tool_call_duration_seconds", "tool", tc.tool, "outcome", tc.outcome); got != 1 {
				t.Errorf("%s %s: %v calls, want 1", tc.tool, tc.outcome, got)
			}
			if got := sc.Value("kg_mcp_tool_call_duration_seconds"); got != 1 {
				t.Errorf("%v calls counted in all, want 1", got)
			}
		})
	}
}
