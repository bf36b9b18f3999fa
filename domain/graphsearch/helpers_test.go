package graphsearch

import (
	"testing"

	"github.com/kg-memory/kg/domain"
)

// failer is what the helpers need of a test.
type failer interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// hitNames renders hits as "key/id" for compact comparisons.
func hitNames(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Key.String() + "/" + h.Node.ID
	}
	return out
}

func hitNamesOf(t failer, g *domain.Graph, q string) []string {
	t.Helper()
	res, err := Find([]*domain.Graph{g}, q, 0)
	if err != nil {
		t.Fatalf("Find(%q): %v", q, err)
	}
	return hitNames(res.Hits)
}

func searchOne(t *testing.T, graphs []*domain.Graph, q string) Result {
	t.Helper()
	res, err := Find(graphs, q, 0)
	if err != nil {
		t.Fatalf("Find(%q): %v", q, err)
	}
	return res
}
