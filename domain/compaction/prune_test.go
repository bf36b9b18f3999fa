package compaction

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

func TestPrune(t *testing.T) {
	const grace = 365 * domain.Day
	at := domain.Stamp{Now: cpNow + grace} // orphaned at cpNow: exactly at the end of grace
	tests := []struct {
		name       string
		node       cpN
		wantPruned bool
	}{
		{"orphaned more than the grace ago", cpN{id: "x", tier: domain.Orphaned, orphanedAt: cpNow - 1}, true},
		{"orphaned exactly the grace ago is kept", cpN{id: "x", tier: domain.Orphaned, orphanedAt: cpNow}, false},
		{"orphaned recently", cpN{id: "x", tier: domain.Orphaned, orphanedAt: cpNow + domain.Day}, false},
		{"orphaned with no time is kept", cpN{id: "x", tier: domain.Orphaned}, false},
		{"archived nodes are never pruned", cpN{id: "x", tier: domain.Archived, ts: 1}, false},
		{"active nodes are never pruned", cpN{id: "x", ts: 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := cpGraph(t, []cpN{tt.node, {id: "h"}}, []cpE{{"x", "h"}, {"h", "x"}, {"x", "x"}, {"x", "file.go"}, {"h", "file.go"}})
			seq := g.Seq()
			m := Prune(g, at, Policy{MaxTokens: 1000, OrphanGrace: grace})
			_, exists := g.Node("x")
			if exists == tt.wantPruned {
				t.Fatalf("node exists %v after prune, want pruned %v", exists, tt.wantPruned)
			}
			if !tt.wantPruned {
				if !m.Empty() || g.Seq() != seq || !g.Pending().Empty() {
					t.Errorf("nothing due, but moves %v, seq %d → %d, pending %v", m.Pruned, seq, g.Seq(), g.Pending())
				}
				return
			}
			if diff := cmp.Diff([]string{"x"}, m.Pruned); diff != "" {
				t.Errorf("pruned (-want +got):\n%s", diff)
			}
			if len(m.Steps) != 1 || !m.Steps[0].Pruned || m.Steps[0].Pass != PassPrune || m.Steps[0].Reason == "" {
				t.Errorf("steps %+v, want one explained prune step", m.Steps)
			}
			tomb, ok := g.NodeTombstone("x")
			if !ok || !tomb.Pruned || tomb.V != 1 || tomb.TS != at.Now {
				t.Errorf("node tombstone %+v (exists %v), want pruned, version 1, at now", tomb, ok)
			}
			// Its four edges are gone with pruned tombstones; h's own edge stays.
			for _, k := range []domain.EdgeKey{{From: "x", To: "h", Rel: "r"}, {From: "h", To: "x", Rel: "r"}, {From: "x", To: "x", Rel: "r"}, {From: "x", To: "file.go", Rel: "r"}} {
				if _, ok := g.Edge(k); ok {
					t.Errorf("edge %s survived", k)
				}
				if et, ok := g.EdgeTombstone(k); !ok || !et.Pruned {
					t.Errorf("edge %s: tombstone %+v (exists %v), want pruned", k, et, ok)
				}
			}
			if _, ok := g.Edge(domain.EdgeKey{From: "h", To: "file.go", Rel: "r"}); !ok {
				t.Error("an edge not touching the pruned node was deleted")
			}
			if g.Seq() != seq+5 {
				t.Errorf("seq %d → %d, want one per tombstone (5)", seq, g.Seq())
			}
			if m.EstimateAfter != m.EstimateBefore {
				t.Errorf("estimate %d → %d: pruning an orphaned node frees nothing shown", m.EstimateBefore, m.EstimateAfter)
			}
		})
	}
}

// TestPruneOrder checks that several due nodes go in id order, so the seqs
// they take do not depend on map order.
func TestPruneOrder(t *testing.T) {
	g := cpGraph(t, []cpN{
		{id: "c", tier: domain.Orphaned, orphanedAt: 1}, {id: "a", tier: domain.Orphaned, orphanedAt: 1}, {id: "b", tier: domain.Orphaned, orphanedAt: 1},
	}, nil)
	m := Prune(g, domain.Stamp{Now: cpNow}, Policy{OrphanGrace: domain.Day})
	if diff := cmp.Diff([]string{"a", "b", "c"}, m.Pruned); diff != "" {
		t.Errorf("pruned (-want +got):\n%s", diff)
	}
	for i, id := range []string{"a", "b", "c"} {
		tomb, _ := g.NodeTombstone(id)
		if want := uint64(3 + i + 1); tomb.Seq != want {
			t.Errorf("%s: tombstone seq %d, want %d", id, tomb.Seq, want)
		}
	}
}

func TestExpireTombstones(t *testing.T) {
	const ttl = 30 * domain.Day
	now := cpNow + ttl
	tests := []struct {
		name     string
		ts       domain.Micros
		wantGone bool
	}{
		{"older than the TTL", cpNow - 1, true},
		{"exactly the TTL old is kept", cpNow, false},
		{"recent", now - 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d domain.GraphData
			d.Schema = domain.SchemaVersion
			d.Seq = 2
			d.NodeTombstones = map[string]domain.Tombstone{"n": {V: 3, TS: tt.ts, Seq: 1}}
			d.EdgeTombstones = map[domain.EdgeKey]domain.Tombstone{{From: "a", To: "b", Rel: "r"}: {V: 1, TS: tt.ts, Seq: 2, Pruned: true}}
			g, _ := domain.Restore(domain.GraphKey{Level: domain.LevelUser}, d, domain.RestoreOptions{})
			g.Checkpoint()
			got := ExpireTombstones(g, now, Policy{TombstoneTTL: ttl})
			want := 0
			if tt.wantGone {
				want = 2
			}
			if got != want {
				t.Fatalf("ExpireTombstones = %d, want %d", got, want)
			}
			_, nodeKept := g.NodeTombstone("n")
			_, edgeKept := g.EdgeTombstone(domain.EdgeKey{From: "a", To: "b", Rel: "r"})
			if nodeKept == tt.wantGone || edgeKept == tt.wantGone {
				t.Fatalf("tombstones kept: node %v, edge %v; want gone %v", nodeKept, edgeKept, tt.wantGone)
			}
			if !tt.wantGone {
				if !g.Pending().Empty() {
					t.Errorf("nothing expired but pending %+v", g.Pending())
				}
				return
			}
			p := g.Pending()
			if _, ok := p.NodeTombstones["n"]; !ok {
				t.Error("the dropped node tombstone is not pending")
			}
			if _, ok := p.EdgeTombstones[domain.EdgeKey{From: "a", To: "b", Rel: "r"}]; !ok {
				t.Error("the dropped edge tombstone is not pending")
			}
			if g.Seq() != 2 {
				t.Errorf("seq moved to %d: expiry is housekeeping, not a change clients sync", g.Seq())
			}
			g.Rollback()
			if _, ok := g.NodeTombstone("n"); !ok {
				t.Error("rollback did not bring the node tombstone back")
			}
			if _, ok := g.EdgeTombstone(domain.EdgeKey{From: "a", To: "b", Rel: "r"}); !ok {
				t.Error("rollback did not bring the edge tombstone back")
			}
		})
	}
}
