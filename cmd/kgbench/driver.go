package main

import "context"

// Driver is one server under test, seen from its clients. The kg driver
// (kgdriver.go) speaks kg's MCP tools; a driver for the peer memory server
// (create_entities, create_relations, search_nodes, read_graph) fits the
// same interface, so both replay the same Workload.
type Driver interface {
	// Name names the server in the report.
	Name() string
	// Connect opens one client; the runner opens one per concurrent client
	// and uses each from one goroutine only.
	Connect(ctx context.Context) (Conn, error)
	// Verify reads back what the run wrote and says how much of w arrived.
	Verify(ctx context.Context, w Workload) (Check, error)
}

// Conn is one client of a Driver. An error means the operation failed
// (a transport error or an error result).
type Conn interface {
	CreateNode(ctx context.Context, n Node) error
	CreateEdge(ctx context.Context, e Edge) error
	Search(ctx context.Context, query string) error
	FullRead(ctx context.Context) error
	// Floor is a call that writes nothing and reads next to nothing:
	// what any call costs through the client.
	Floor(ctx context.Context) error
	Close() error
}

// Check is the final check of a run: how many of the workload's writes the
// server holds, and the first discrepancies found.
type Check struct {
	Nodes, NodesFound int
	Edges, EdgesFound int
	Problems          []string // at most a few, for the report
}

// OK tells whether every write arrived.
func (c Check) OK() bool { return c.NodesFound == c.Nodes && c.EdgesFound == c.Edges }

// problem records a discrepancy, keeping the first few.
func (c *Check) problem(s string) {
	if len(c.Problems) < 5 {
		c.Problems = append(c.Problems, s)
	}
}
