package importing

import (
	"testing"

	"github.com/kg-memory/kg/domain"
)

// checkIndexes checks that the counts g keeps as it is written are those of
// a graph restored from its data. The adjacency index itself is checked
// inside domain, where it can be seen (TestWriteImportKeepsIndexes).
func checkIndexes(t *testing.T, g *domain.Graph) {
	t.Helper()
	fresh, _ := domain.Restore(g.Key(), g.Data(), domain.RestoreOptions{})
	if got, want := g.Stats(), fresh.Stats(); got != want {
		t.Errorf("stats = %+v, restored from its data %+v", got, want)
	}
}
