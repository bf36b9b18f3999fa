package domain

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kg-memory/kg/bench/workload"
)

// The benchmark workload of docs/design/benchmarks.md#workload, generated
// deterministically so that every run, and the comparison with the peer server,
// describe the same data: nodes n000001…, each with a 60-char gist and two
// 40-char notes made of words drawn from a Zipf distribution over 5,000
// words (bench/workload) with a fixed seed;
// edges n_i → n_{i+1} plus two more from each node to nodes drawn with the same
// seed, so about three edges per node, all with rel "relates-to".

// workloadVocabulary is the workload's words and their Zipf distribution
// (bench/workload), the ones cmd/kgbench draws from.
var workloadVocabulary = workload.Vocabulary()

const (
	workloadSeed1, workloadSeed2 = 2024, 611
	workloadGistLen              = 60
	workloadNoteLen              = 40
	workloadExtraEdges           = 2 // per node, on top of n_i → n_{i+1}
	workloadRel                  = "relates-to"
	workloadStart                = Micros(1_700_000_000) * Second
	// workloadNow is when the benchmarks run: after every write of the
	// largest workload (100k nodes and 300k edges, one second apart).
	workloadNow = workloadStart + 10*Day
)

// workloadID is the id of the i-th node, counting from 1.
func workloadID(i int) string { return fmt.Sprintf("n%06d", i) }

// workloadText returns exactly n chars of drawn words, separated by
// single spaces, with no space at either end.
func workloadText(r *rand.Rand, n int) string { return workloadVocabulary.Text(r, n) }

// workloadData returns the workload of n nodes as stored data: every node
// active and written one second after the previous one, as a client that
// never ran compaction would leave it.
func workloadData(n int) GraphData {
	r := rand.New(rand.NewPCG(workloadSeed1, workloadSeed2))
	d := GraphData{Schema: SchemaVersion, Nodes: make([]Node, 0, n), Edges: make([]Edge, 0, n*(1+workloadExtraEdges))}
	var seq uint64
	for i := 1; i <= n; i++ {
		seq++
		ts := workloadStart + Micros(i)*Second
		d.Nodes = append(d.Nodes, Node{
			ID:      workloadID(i),
			Gist:    workloadText(r, workloadGistLen),
			Notes:   []string{workloadText(r, workloadNoteLen), workloadText(r, workloadNoteLen)},
			Created: ts,
			Version: Version{V: 1, TS: ts, Seq: seq},
		})
	}
	seen := make(map[EdgeKey]bool, n*(1+workloadExtraEdges))
	addEdge := func(from, to int) {
		k := EdgeKey{workloadID(from), workloadID(to), workloadRel}
		if from == to || seen[k] {
			return
		}
		seen[k] = true
		seq++
		ts := workloadStart + Micros(n+len(d.Edges))*Second
		d.Edges = append(d.Edges, Edge{From: k.From, To: k.To, Rel: k.Rel, Version: Version{V: 1, TS: ts, Seq: seq}})
	}
	for i := 1; i <= n; i++ {
		if i < n {
			addEdge(i, i+1)
		}
		for range workloadExtraEdges {
			addEdge(i, 1+r.IntN(n))
		}
	}
	d.Seq = seq
	return d
}

// workloadGraph restores the workload of n nodes into a graph.
func workloadGraph(tb testing.TB, n int) *Graph {
	tb.Helper()
	g, notes := Restore(GraphKey{Level: LevelUser}, workloadData(n), RestoreOptions{})
	if len(notes) != 0 {
		tb.Fatalf("workload restore: %v", notes)
	}
	return g
}

// workloadQueries returns k search strings of two drawn words each.
func workloadQueries(k int) []string {
	r := rand.New(rand.NewPCG(workloadSeed2, workloadSeed1))
	qs := make([]string, k)
	for i := range qs {
		qs[i] = workloadVocabulary.Query(r)
	}
	return qs
}

// workloadPolicy is the benchmark setting: grace 0 and the default budget,
// so compaction is active, as in a mature memory.
func workloadPolicy() CompactionPolicy {
	p := defaultPolicy
	p.Grace = 0
	return p
}

func TestWorkloadShape(t *testing.T) {
	const n = 1000
	d := workloadData(n)
	if len(d.Nodes) != n {
		t.Fatalf("%d nodes, want %d", len(d.Nodes), n)
	}
	for i, nd := range d.Nodes {
		if nd.ID != workloadID(i+1) {
			t.Fatalf("node %d has id %q", i, nd.ID)
		}
		if len(nd.Gist) != workloadGistLen || len(nd.Notes) != 2 ||
			len(nd.Notes[0]) != workloadNoteLen || len(nd.Notes[1]) != workloadNoteLen {
			t.Fatalf("%s: gist %d chars, notes %d; want 60 and two of 40", nd.ID, len(nd.Gist), len(nd.Notes))
		}
		if _, err := (NodeInput{ID: nd.ID, Gist: nd.Gist, Notes: nd.Notes}).Validate(); err != nil {
			t.Fatalf("%s: %v", nd.ID, err)
		}
	}
	if per := float64(len(d.Edges)) / n; per < 2.8 || per > 3 {
		t.Errorf("%.2f edges per node, want about 3", per)
	}
	chain := map[EdgeKey]bool{}
	for _, e := range d.Edges {
		if e.Rel != workloadRel {
			t.Fatalf("edge %s: rel %q", e.Key(), e.Rel)
		}
		chain[e.Key()] = true
	}
	for i := 1; i < n; i++ {
		if k := (EdgeKey{workloadID(i), workloadID(i + 1), workloadRel}); !chain[k] {
			t.Fatalf("chain edge %s missing", k)
		}
	}
	// Deterministic: the same seed gives the same data.
	again := workloadData(n)
	if d.Nodes[n-1].Gist != again.Nodes[n-1].Gist || d.Edges[len(d.Edges)-1].Key() != again.Edges[len(again.Edges)-1].Key() {
		t.Error("two generations of the workload differ")
	}
}
