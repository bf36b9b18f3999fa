package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/kg-memory/kg/bench/workload"
)

// The workload of docs/design/benchmarks.md#workload as a value, independent of
// any server: kgbench's driver replays it through kg's MCP tools, and
// bench/peers replays the document --print-workload prints against kg and the
// peer memory server.

// vocabulary is the workload's words and their Zipf distribution, the
// ones domain/workload_test.go draws from (bench/workload), so that the Go
// benchmarks of every package and this tool describe the same data.
var vocabulary = workload.Vocabulary()

// Shape of the workload (docs/design/benchmarks.md#workload).
const (
	gistLen = 60
	noteLen = 40
	rel     = "relates-to"

	// DefaultSeed is the seed of domain/workload_test.go.
	DefaultSeed = 2024
	seed2       = 611
)

// Node is one node of the workload.
type Node struct {
	ID    string
	Gist  string
	Notes []string
}

// Edge is one edge of the workload.
type Edge struct {
	From, To, Rel string
}

// Workload is everything one run writes and asks: nodes n000001…, the
// chain of edges n_i → n_{i+1}, and the search strings.
type Workload struct {
	Nodes   []Node
	Edges   []Edge
	Queries []string
}

// nodeID is the id of the i-th node, counting from 1.
func nodeID(i int) string { return fmt.Sprintf("n%06d", i) }

// NewWorkload returns the workload of n nodes and q search strings, drawn
// deterministically from seed: the same arguments give the same workload.
func NewWorkload(n, q int, seed uint64) Workload {
	r := rand.New(rand.NewPCG(seed, seed2))
	w := Workload{Nodes: make([]Node, 0, n), Queries: make([]string, 0, q)}
	for i := 1; i <= n; i++ {
		w.Nodes = append(w.Nodes, Node{
			ID:    nodeID(i),
			Gist:  vocabulary.Text(r, gistLen),
			Notes: []string{vocabulary.Text(r, noteLen), vocabulary.Text(r, noteLen)},
		})
	}
	for i := 1; i < n; i++ {
		w.Edges = append(w.Edges, Edge{From: nodeID(i), To: nodeID(i + 1), Rel: rel})
	}
	qr := rand.New(rand.NewPCG(seed2, seed))
	for range q {
		w.Queries = append(w.Queries, vocabulary.Query(qr))
	}
	return w
}

// workloadJSON is the workload as bench/peers reads it: the same nodes,
// edges and queries, so that the TypeScript harness replays exactly what
// this package generates (one definition of the workload, here).
type workloadJSON struct {
	Seed    uint64     `json:"seed"`
	Nodes   []nodeJSON `json:"nodes"`
	Edges   []edgeJSON `json:"edges"`
	Queries []string   `json:"queries"`
}

type nodeJSON struct {
	ID    string   `json:"id"`
	Gist  string   `json:"gist"`
	Notes []string `json:"notes"`
}

type edgeJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
	Rel  string `json:"rel"`
}

// writeWorkload writes w as one JSON document.
func writeWorkload(out io.Writer, w Workload, seed uint64) error {
	doc := workloadJSON{Seed: seed, Nodes: make([]nodeJSON, 0, len(w.Nodes)), Edges: make([]edgeJSON, 0, len(w.Edges)), Queries: w.Queries}
	for _, n := range w.Nodes {
		doc.Nodes = append(doc.Nodes, nodeJSON(n))
	}
	for _, e := range w.Edges {
		doc.Edges = append(doc.Edges, edgeJSON(e))
	}
	if doc.Queries == nil {
		doc.Queries = []string{}
	}
	enc := json.NewEncoder(out)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write the workload: %w", err)
	}
	return nil
}
