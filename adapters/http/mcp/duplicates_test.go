package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
)

// A new node that repeats an existing one is saved, and the result names
// what it may repeat in its text (docs/design/trust.md#duplicates).
func TestPutNodeWarnsOfDuplicates(t *testing.T) {
	e := newEnv(t)
	sid := e.session(t, t.TempDir())
	put := func(id, gist string) result {
		t.Helper()
		return e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": id, "gist": gist})
	}
	r := put("auth-token-refresh", "JWT refresh uses a sliding window of 30 days")
	mustNotContain(t, r.text, "Possible duplicates")

	r = put("jwt-refresh", "JWT refresh uses a sliding-window of 30 days.")
	if !strings.Contains(r.text, "\nPossible duplicates: auth-token-refresh (1.00)") {
		t.Errorf("near-identical gist: %q", r.text)
	}

	r = put("Auth_Token_Refresh", "rotate the signing key monthly")
	mustContain(t, r.text, `Node "Auth_Token_Refresh" saved to user graph (v1)`, "\nPossible duplicates: auth-token-refresh (same id)")

	// Writing an existing node again warns of nothing: it is no new node.
	r = put("jwt-refresh", "JWT refresh uses a sliding window of 30 days")
	mustNotContain(t, r.text, "Possible duplicates")

	// Every write was made.
	d2, err := e.store.Load(context.Background(), domain.UserGraph)
	if err != nil || len(d2.Nodes) != 3 {
		t.Fatalf("stored %d nodes (%v); want all 3", len(d2.Nodes), err)
	}
}
