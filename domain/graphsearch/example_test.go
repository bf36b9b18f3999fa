package graphsearch_test

import (
	"fmt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/graphsearch"
)

// at is the stamp of a change at time now (Unix microseconds) by session.
func at(now domain.Micros, session string) domain.Stamp {
	return domain.Stamp{Now: now, Session: session}
}

func ExampleFind() {
	user := domain.NewGraph(domain.UserGraph)
	project := domain.NewGraph(domain.ProjectGraph("/home/me/app"))
	for _, n := range []struct {
		g         *domain.Graph
		id, gist  string
		notes     []string
		createdAt domain.Micros
	}{
		{user, "cache-invalidation", "Invalidate the cache on write, never on read", nil, 1},
		{project, "cache-keys", "Cache keys include the tenant id", []string{"A cache miss costs 40 ms."}, 2},
		{project, "logging", "Structured logs only", nil, 3},
	} {
		if _, err := n.g.PutNode(domain.NodeInput{ID: n.id, Gist: n.gist, Notes: n.notes}, at(n.createdAt, "")); err != nil {
			fmt.Println(err)
			return
		}
	}
	res, err := graphsearch.Find([]*domain.Graph{user, project}, "Cache write", 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range res.Hits {
		fmt.Printf("%.4f %s %s [%s] %v\n", h.Score, h.Key.Level, h.Node.ID, h.Node.Tier, h.Matched)
	}
	// A typo: the nearest word of the graphs stands in for it.
	res, _ = graphsearch.Find([]*domain.Graph{user, project}, "invalidaton", 0)
	fmt.Println(res.Corrections, len(res.Hits))
	// Output:
	// 2.1440 user cache-invalidation [active] [cache write]
	// 0.8339 project cache-keys [active] [cache]
	// [{invalidaton invalidation}] 1
}
