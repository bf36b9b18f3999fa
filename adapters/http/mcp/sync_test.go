package mcp

import (
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
)

// TestSyncBetweenTwoSessions is the two-session story of
// docs/design/sync.md#kg_sync: each session hears of the other's writes and
// deletions, never of its own, and its own writes do not make it miss what
// others did before them.
func TestSyncBetweenTwoSessions(t *testing.T) {
	e := newEnv(t)
	a := e.session(t, projA)
	b := e.session(t, projA)

	if r := e.ok(t, "kg_sync", map[string]any{"session_id": a}); r.text != "No updates from other sessions" {
		t.Errorf("fresh session: %q", r.text)
	}

	e.ok(t, "kg_put_node", map[string]any{"session_id": b, "level": "project", "id": "n1", "gist": "written by B"})
	e.ok(t, "kg_put_edge", map[string]any{"session_id": b, "level": "user", "from": "x", "to": "y", "rel": "r",
		"notes": []any{"y needs x first", "see the\nstartup order"}})
	e.ok(t, "kg_put_node", map[string]any{"session_id": a, "level": "project", "id": "n2", "gist": "written by A"})

	r := e.ok(t, "kg_sync", map[string]any{"session_id": a})
	mustContain(t, r.text,
		"USER GRAPH: 0 nodes and 1 edge updated, 0 nodes and 0 edges deleted\n  edge x --r--> y — y needs x first; see the startup order\n",
		"PROJECT GRAPH (proj-a): 1 node and 0 edges updated, 0 nodes and 0 edges deleted\n  node n1 [active]: written by B",
	)
	mustNotContain(t, r.text, "n2")
	if r := e.ok(t, "kg_sync", map[string]any{"session_id": a}); r.text != "No updates from other sessions" {
		t.Errorf("second sync repeats: %q", r.text)
	}

	e.clock.Advance(time.Second)
	e.ok(t, "kg_delete_node", map[string]any{"session_id": b, "id": "n1"})
	e.ok(t, "kg_delete_edge", map[string]any{"session_id": b, "from": "x", "to": "y", "rel": "r"})
	r = e.ok(t, "kg_sync", map[string]any{"session_id": a})
	mustContain(t, r.text, "  deleted node n1", "  deleted edge x --r--> y")

	// B hears of A's n2 and nothing of its own.
	r = e.ok(t, "kg_sync", map[string]any{"session_id": b})
	mustContain(t, r.text, "node n2 [active]: written by A")
	mustNotContain(t, r.text, "n1", "x --r--> y")
}

// TestReadByIDRestoresAndRescues reads an archived node whose neighbour is
// orphaned: the node comes back active, the neighbour back to archived (chain
// rescue, docs/design/compaction.md#reading-a-node-by-id), and the full read
// shows the neighbour again.
func TestReadByIDRestoresAndRescues(t *testing.T) {
	now := domain.Micros(t0.UnixMicro())
	old := now - domain.Days(30)
	node := func(id string, tier domain.Tier) domain.Node {
		n := domain.Node{ID: id, Gist: "gist of " + id, Tier: tier, Created: old,
			Version: domain.Version{V: 1, TS: old, Seq: 1}}
		if tier == domain.Orphaned {
			n.OrphanedAt = now - domain.Days(1)
		}
		return n
	}
	e := newEnv(t, seed(domain.UserGraph, domain.GraphData{
		Schema: domain.SchemaVersion, Seq: 10,
		Nodes: []domain.Node{node("keeper", domain.Active), node("old-notes", domain.Archived), node("lost", domain.Orphaned), node("alone", domain.Orphaned)},
		Edges: []domain.Edge{{From: "old-notes", To: "lost", Rel: "explains", Version: domain.Version{V: 1, TS: old, Seq: 2}}},
	}))
	sid := e.session(t, projA)

	full := e.ok(t, "kg_read", map[string]any{"session_id": sid})
	mustContain(t, full.text, "=== USER GRAPH — 1 active, 1 archived ===", "ARCHIVED (kg_read with id restores one):\n  old-notes\n")
	mustNotContain(t, full.text, "lost", "explains", "alone")

	r := e.ok(t, "kg_read", map[string]any{"session_id": sid, "id": "old-notes"})
	mustContain(t, r.text,
		"=== NODE old-notes — user graph, active (was archived; this read restored it) ===",
		"EDGES OUT:\n  old-notes --explains--> lost [archived]",
		"RESCUED (orphaned neighbours now archived): lost",
	)

	full = e.ok(t, "kg_read", map[string]any{"session_id": sid})
	mustContain(t, full.text, "=== USER GRAPH — 2 active, 1 archived ===", "  old-notes: gist of old-notes", "ARCHIVED (kg_read with id restores one):\n  lost\n", "  old-notes --explains--> lost")

	// An orphaned node read by id comes back too.
	r = e.ok(t, "kg_read", map[string]any{"session_id": sid, "id": "alone", "level": "user"})
	mustContain(t, r.text, "=== NODE alone — user graph, active (was orphaned; this read restored it) ===")
}
