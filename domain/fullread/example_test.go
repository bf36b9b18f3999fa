package fullread_test

import (
	"fmt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/fullread"
)

// at is the stamp of a change at time now (Unix microseconds) by session.
func at(now domain.Micros, session string) domain.Stamp {
	return domain.Stamp{Now: now, Session: session}
}

func ExampleBuild() {
	g := domain.NewGraph(domain.UserGraph)
	for i, id := range []string{"auth-module", "session-handler", "lonely"} {
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "gist of " + id}, at(domain.Micros(i), "")); err != nil {
			fmt.Println(err)
			return
		}
	}
	if _, err := g.PutEdge(domain.EdgeInput{From: "auth-module", To: "session-handler", Rel: "requires-init"}, at(5, "")); err != nil {
		fmt.Println(err)
		return
	}
	v := fullread.Build(g, compaction.DefaultPolicy())
	for _, n := range v.Active {
		fmt.Printf("  %s: %s\n", n.ID, n.Gist)
	}
	for _, e := range v.Edges {
		fmt.Println(" ", e.Key())
	}
	h := v.Health
	fmt.Printf("HEALTH: %d nodes, %d edges, %d unconnected, avg %.1f edges/node, ~%d/%d tokens\n",
		h.Nodes, h.Edges, h.Unconnected, h.AvgEdgesPerNode, h.Estimate, h.MaxTokens)
	// Output:
	//   auth-module: gist of auth-module
	//   session-handler: gist of session-handler
	//   lonely: gist of lonely
	//   auth-module --requires-init--> session-handler
	// HEALTH: 3 nodes, 1 edges, 1 unconnected, avg 0.7 edges/node, ~87/4000 tokens
}
