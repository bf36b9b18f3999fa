package changes

import (
	"slices"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// pruneAt prunes, at at, every node orphaned before at.Now (a grace of
// none), and fails the test unless that is exactly want.
func pruneAt(t *testing.T, g *domain.Graph, at domain.Stamp, want ...string) {
	t.Helper()
	p := compaction.DefaultPolicy()
	p.OrphanGrace = 0
	if m := compaction.Prune(g, at, p); !slices.Equal(m.Pruned, want) {
		t.Fatalf("Prune pruned %v, want %v", m.Pruned, want)
	}
}
