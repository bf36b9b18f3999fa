package team

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestConcurrentWritersOneGraph: three servers, eight writers each, one
// project graph. Every acknowledged write is stored, the seqs of the stored
// nodes are all different and at most the graph's seq, and every server
// converges to the database's state.
func TestConcurrentWritersOneGraph(t *testing.T) {
	dbURL, ins := team(t, 3, options{})
	const project, writers, each = "example.com/team/concurrent", 8, 6
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked := map[string]bool{}
	for i, in := range ins {
		for w := range writers {
			wg.Go(func() {
				for k := range each {
					id := fmt.Sprintf("n-%d-%d-%d", i, w, k)
					code, _ := in.putNode(map[string]any{"level": "project", "project_path": project, "id": id, "gist": "written on " + in.name})
					if code == 200 {
						mu.Lock()
						acked[id] = true
						mu.Unlock()
					} else {
						t.Errorf("put %s on %s: %d", id, in.name, code)
					}
				}
			})
		}
	}
	wg.Wait()
	if len(acked) != len(ins)*writers*each {
		t.Fatalf("%d writes acknowledged, want %d", len(acked), len(ins)*writers*each)
	}
	conn := db(t, dbURL)
	var graphSeq, rows, distinct, maxSeq int64
	err := conn.QueryRow(context.Background(), `SELECT g.seq, count(n.*), count(DISTINCT n.seq), max(n.seq)
		FROM graphs g JOIN nodes n ON n.graph_id = g.id WHERE g.project_key = $1 GROUP BY g.seq`, project).
		Scan(&graphSeq, &rows, &distinct, &maxSeq)
	if err != nil {
		t.Fatal(err)
	}
	if rows != int64(len(acked)) || distinct != rows || maxSeq > graphSeq {
		t.Errorf("database: %d nodes, %d distinct seqs, max seq %d, graph seq %d; want %d nodes, all seqs distinct, none above the graph's",
			rows, distinct, maxSeq, graphSeq, len(acked))
	}
	// The change log's batches take the seqs in order: each starts after
	// the one before ends.
	var overlaps int
	err = conn.QueryRow(context.Background(), `SELECT count(*) FROM (
		SELECT c.seq_from, c.seq_to, lag(c.seq_to) OVER (ORDER BY c.rev) AS prev FROM changes c JOIN graphs g ON g.id = c.graph_id
		WHERE g.project_key = $1) x WHERE seq_from <= seq_to AND seq_from <= prev`, project).Scan(&overlaps)
	if err != nil {
		t.Fatal(err)
	}
	if overlaps != 0 {
		t.Errorf("%d batches of the change log reuse seqs of the batch before", overlaps)
	}
	want := ins[0].graph(project)
	if len(want) != len(acked) {
		t.Errorf("%s reads %d nodes, want %d", ins[0].name, len(want), len(acked))
	}
	for id := range acked {
		if _, ok := want[id]; !ok {
			t.Errorf("acknowledged node %s missing on %s", id, ins[0].name)
		}
	}
	for _, in := range ins[1:] {
		got := in.graph(project)
		if len(got) != len(want) {
			t.Errorf("%s reads %d nodes, %s %d", in.name, len(got), ins[0].name, len(want))
		}
		for id, n := range want {
			if g, ok := got[id]; !ok || g["seq"] != n["seq"] || g["version"] != n["version"] {
				t.Errorf("node %s on %s = %v, on %s %v", id, in.name, g, ins[0].name, n)
			}
		}
	}
}

// TestExpectedVersionAcrossServers: two writers on two servers expect the
// same version of a node; exactly one wins, the other gets a conflict.
func TestExpectedVersionAcrossServers(t *testing.T) {
	_, ins := team(t, 2, options{})
	a, b := ins[0], ins[1]
	const project = "example.com/team/versions"
	if code, n := a.putNode(map[string]any{"level": "project", "project_path": project, "id": "shared", "gist": "v1"}); code != 200 || n["version"] != 1.0 {
		t.Fatalf("first put: %d %v", code, n)
	}
	for round := 1; round <= 5; round++ {
		var wg sync.WaitGroup
		codes := make([]int, 2)
		for i, in := range []*instance{a, b} {
			wg.Go(func() {
				codes[i], _ = in.putNode(map[string]any{"level": "project", "project_path": project, "id": "shared",
					"gist": fmt.Sprintf("round %d by %s", round, in.name), "expected_version": round})
			})
		}
		wg.Wait()
		slices.Sort(codes)
		if codes[0] != 200 || codes[1] != 409 {
			t.Fatalf("round %d: statuses %v, want one 200 and one 409", round, codes)
		}
	}
	for _, in := range ins {
		if n := in.graph(project)["shared"]; n["version"] != 6.0 {
			t.Errorf("%s: node at version %v, want 6", in.name, n["version"])
		}
	}
}

// TestSessionHopsBetweenServers: a session started on A is served by B and
// C; each server sees its own and everyone's acknowledged writes at once
// (read-your-writes), and kg_sync, called on whichever server, reports every
// change by others once.
func TestSessionHopsBetweenServers(t *testing.T) {
	_, ins := team(t, 3, options{})
	a, b, c := ins[0], ins[1], ins[2]
	const project = "example.com/team/hops"
	sess := a.register(project)
	other := b.register(project)
	// Written by another session on B: the session must hear of it once,
	// wherever it syncs.
	for i := range 3 {
		if code, _ := b.putNode(map[string]any{"level": "project", "session_id": other, "id": fmt.Sprintf("by-other-%d", i), "gist": "x"}); code != 200 {
			t.Fatalf("put on b: %d", code)
		}
	}
	// The session's own write on C, read at once on A.
	if code, _ := c.putNode(map[string]any{"level": "project", "session_id": sess, "id": "mine", "gist": "my own"}); code != 200 {
		t.Fatalf("put with the session on c: %d", code)
	}
	if _, ok := a.graph(project)["mine"]; !ok {
		t.Error("a does not read the write the session made on c")
	}
	first := c.sync(sess)
	items := syncIDs(first)
	if !slices.Equal(items, []string{"by-other-0", "by-other-1", "by-other-2"}) {
		t.Errorf("first sync on c reported %v, want the three writes by the other session", items)
	}
	if again := syncIDs(a.sync(sess)); len(again) != 0 {
		t.Errorf("sync on a right after the sync on c reported %v again", again)
	}
	if code, _ := a.putNode(map[string]any{"level": "project", "session_id": other, "id": "later", "gist": "y"}); code != 200 {
		t.Fatal("put later")
	}
	if got := syncIDs(b.sync(sess)); !slices.Equal(got, []string{"later"}) {
		t.Errorf("sync on b reported %v, want [later]", got)
	}
	var stats map[string]any
	if code := b.call("GET", "/api/sessions/"+sess+"/stats", nil, &stats); code != 200 {
		t.Errorf("stats of a session started on a, asked of b: %d", code)
	}
}

// syncIDs lists the node ids a /api/sync result reports for the project.
func syncIDs(r syncResult) []string {
	var out []string
	proj, _ := r["project"].(map[string]any)
	items, _ := proj["changes"].([]any)
	for _, it := range items {
		m := it.(map[string]any)
		if n, ok := m["node"].(map[string]any); ok {
			out = append(out, n["id"].(string))
		}
	}
	slices.Sort(out)
	return out
}

// TestEventsReachOtherServers: a /ws subscriber on B hears of every write
// made on A and C, once each, in seq order — for a graph B has loaded and
// for one it has not. The poll is set to a minute: the events come through
// the listener.
func TestEventsReachOtherServers(t *testing.T) {
	_, ins := team(t, 3, options{poll: time.Minute})
	a, b, c := ins[0], ins[1], ins[2]
	for _, project := range []string{"example.com/team/events-loaded", "example.com/team/events-unloaded"} {
		t.Run(project, func(t *testing.T) {
			if project == "example.com/team/events-loaded" {
				b.graph(project) // loaded on b
			}
			s := b.dial("project_path=" + url.QueryEscape(project))
			const n = 40
			var wg sync.WaitGroup
			for _, in := range []*instance{a, c} {
				wg.Go(func() {
					for i := range n / 2 {
						if code, _ := in.putNode(map[string]any{"level": "project", "project_path": project,
							"id": fmt.Sprintf("%s-%d", in.name, i), "gist": "e"}); code != 200 {
							t.Errorf("put on %s: %d", in.name, code)
						}
					}
				})
			}
			wg.Wait()
			if !s.waitFor(10*time.Second, func(fs []map[string]any) bool { return len(eventFrames(fs)) >= n }) {
				t.Fatalf("b's socket heard %d of %d events", len(s.events()), n)
			}
			time.Sleep(200 * time.Millisecond) // a duplicate would come now
			checkEvents(t, s.events(), n)
		})
	}
}

// checkEvents fails unless evs are n node_updated events with distinct
// ids, in strictly increasing seq order.
func checkEvents(t *testing.T, evs []map[string]any, n int) {
	t.Helper()
	if len(evs) != n {
		t.Errorf("%d events, want %d", len(evs), n)
	}
	seen := map[string]bool{}
	last := 0.0
	for _, ev := range evs {
		node, _ := ev["node"].(map[string]any)
		id, _ := node["id"].(string)
		if seen[id] {
			t.Errorf("event for %s received twice", id)
		}
		seen[id] = true
		seq, _ := ev["seq"].(float64)
		if seq <= last {
			t.Errorf("event seq %v after %v: not in order", seq, last)
		}
		last = seq
	}
}
