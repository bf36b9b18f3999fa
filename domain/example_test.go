package domain_test

import (
	"fmt"

	"github.com/kg-memory/kg/domain"
)

// at is the stamp of a change at time now (Unix microseconds) by session.
func at(now domain.Micros, session string) domain.Stamp {
	return domain.Stamp{Now: now, Session: session}
}

func ExampleNewGraph() {
	g := domain.NewGraph(domain.UserGraph)
	n, err := g.PutNode(domain.NodeInput{
		ID:    "prefer-table-tests",
		Gist:  "  Table tests with named cases; got/want messages  ",
		Notes: []string{"Reviewers asked for it twice."},
	}, at(1_700_000_000_000_000, "3fa29c0d1e7b4a55"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s v%d %s: %s\n", n.ID, n.Version.V, n.Tier, n.Gist)

	// A rejected write says what is wrong and changes nothing.
	_, err = g.PutNode(domain.NodeInput{ID: "two-lines", Gist: "first\nsecond"}, at(2, ""))
	fmt.Println(err, "/", g.NodeCount(), "node")
	// Output:
	// prefer-table-tests v1 active: Table tests with named cases; got/want messages
	// gist: must be one line; put details in notes / 1 node
}

func ExampleGraph_PutEdge() {
	g := domain.NewGraph(domain.ProjectGraph("/home/me/app"))
	if _, err := g.PutNode(domain.NodeInput{ID: "auth-refresh", Gist: "JWT refresh uses a sliding window"}, at(1, "")); err != nil {
		fmt.Println(err)
		return
	}
	// An end need not be a node: here it is a file.
	e, err := g.PutEdge(domain.EdgeInput{From: "auth-refresh", To: "src/auth/refresh.go", Rel: "touches"}, at(2, ""))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Key(), "v", e.Version.V, "seq", e.Version.Seq)
	fmt.Println("shown:", g.Shown(e.Key()), "estimate:", g.Stats().Estimate(false))
	// Output:
	// auth-refresh --touches--> src/auth/refresh.go v 1 seq 2
	// shown: true estimate: 43
}

func ExampleGraph_RecallNode() {
	// A graph as loaded from disk: "old" was archived by compaction and its
	// neighbour "older" orphaned.
	g, _ := domain.Restore(domain.UserGraph, domain.GraphData{
		Schema: domain.SchemaVersion,
		Seq:    4,
		Nodes: []domain.Node{
			{ID: "old", Gist: "archived insight", Tier: domain.Archived, Version: domain.Version{V: 1, Seq: 1}},
			{ID: "older", Gist: "orphaned insight", Tier: domain.Orphaned, OrphanedAt: 5, Version: domain.Version{V: 1, Seq: 2}},
		},
		Edges: []domain.Edge{{From: "older", To: "old", Rel: "explains", Version: domain.Version{V: 1, Seq: 3}}},
	}, domain.RestoreOptions{})

	r, err := g.RecallNode("old", at(10, "reader"))
	if err != nil {
		fmt.Println(err)
		return
	}
	older, _ := g.Node("older")
	fmt.Println("promoted:", r.Promoted(), "from", r.WasTier, "to", r.Node.Tier, "v", r.Node.Version.V)
	fmt.Println("rescued:", r.Rescued, "now", older.Tier)
	// Output:
	// promoted: true from archived to active v 2
	// rescued: [older] now archived
}
