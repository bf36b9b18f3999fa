package domain

import (
	"testing"
)

// coreAt is the stamp of a change made at now by session.
func coreAt(now Micros, session string) Stamp { return Stamp{Now: now, Session: session} }

// corePut puts a node at time 1 without a session and fails the test on
// error.
func corePut(t testing.TB, g *Graph, id, gist string, notes, touches []string) *Node {
	t.Helper()
	return corePutAt(t, g, coreAt(1, ""), id, gist, notes, touches)
}

// corePutAt puts a node with stamp at and fails the test on error.
func corePutAt(t testing.TB, g *Graph, at Stamp, id, gist string, notes, touches []string) *Node {
	t.Helper()
	n, err := g.PutNode(NodeInput{ID: id, Gist: gist, Notes: notes, Touches: touches}, at)
	if err != nil {
		t.Fatalf("PutNode(%q): %v", id, err)
	}
	return n
}

// coreEdge puts an edge with stamp at and fails the test on error.
func coreEdge(t testing.TB, g *Graph, at Stamp, from, rel, to string) *Edge {
	t.Helper()
	e, err := g.PutEdge(EdgeInput{From: from, To: to, Rel: rel}, at)
	if err != nil {
		t.Fatalf("PutEdge(%s --%s--> %s): %v", from, rel, to, err)
	}
	return e
}
