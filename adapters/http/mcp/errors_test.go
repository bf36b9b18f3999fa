package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
)

func TestStorageFailureIsAToolError(t *testing.T) {
	e := newEnv(t)
	sid := e.session(t, projA)
	e.store.InjectFault(func(op string) error {
		if op == "commit" {
			return errors.New("disk full")
		}
		return nil
	})
	r := e.call(t, "kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "a", "gist": "g"})
	if !r.isError || !strings.HasPrefix(r.text, "Error: ") || strings.Contains(r.text, "\n") || !strings.Contains(r.text, "retry") {
		t.Errorf("failed save: %+v", r)
	}
	e.store.InjectFault(nil)
	if r := e.ok(t, "kg_search", map[string]any{"query": "g"}); r.text != `No nodes match "g"` {
		t.Errorf("the failed write left something behind: %s", r.text)
	}
}

// buggy is a Service whose Sync fails with an error that is not a
// domain.Error: a bug.
type buggy struct{ Service }

func (buggy) Sync(context.Context, string) (app.SyncResult, error) {
	return app.SyncResult{}, errors.New("nil map in sessions table at 0xc000123")
}

func TestBugIsAJSONRPCErrorWithoutDetails(t *testing.T) {
	srv := httptest.NewServer(New("t", buggy{}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil))
	t.Cleanup(srv.Close)
	c := (&env{url: srv.URL}).client(t)
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "kg_sync", map[string]any{"session_id": "s"}
	res, err := c.CallTool(context.Background(), req)
	if err == nil {
		t.Fatalf("want a JSON-RPC error, got %+v", res)
	}
	if strings.Contains(err.Error(), "0xc000") || !strings.Contains(err.Error(), "internal error") {
		t.Errorf("error %q: want the generic message only", err)
	}
}
