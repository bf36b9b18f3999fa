package changes_test

import (
	"fmt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/changes"
)

// at is the stamp of a change at time now (Unix microseconds) by session.
func at(now domain.Micros, session string) domain.Stamp {
	return domain.Stamp{Now: now, Session: session}
}

func ExampleSince() {
	g := domain.NewGraph(domain.UserGraph)
	watermark := g.DurableSeq() // session "me" starts here
	mustPut := func(id, session string) {
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: "gist of " + id}, at(1, session)); err != nil {
			panic(err)
		}
	}
	mustPut("mine", "me")
	mustPut("theirs", "them")
	mustPut("doomed", "them")
	if _, err := g.DeleteNode("doomed", at(2, "them")); err != nil {
		fmt.Println(err)
		return
	}
	g.Checkpoint() // saved: durable up to here

	r := changes.Since(g, watermark, g.DurableSeq(), "me")
	for _, it := range r.Items {
		switch {
		case it.Deleted:
			fmt.Println(it.Seq, "deleted node", it.NodeID)
		case it.Node != nil:
			fmt.Println(it.Seq, "node", it.Node.ID)
		}
	}
	// Output:
	// 2 node theirs
	// 4 deleted node doomed
}
