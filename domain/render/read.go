package render

import (
	"fmt"
	"math"
	"strconv"
)

// The lines of kg_read's answers (docs/design/mcp.md#kg_read) that are not
// the preload's too. Which graphs, nodes and edges a read shows, and what
// its size cap leaves out, is the MCP adapter's choice.

// ArchivedHeader heads the archived ids of a graph in the full read.
const ArchivedHeader = "ARCHIVED (kg_read with id restores one):\n"

// UnavailableHeader is the section header of a graph that cannot be read:
// "=== USER GRAPH — unavailable: why ===\n".
func UnavailableHeader(title, why string) string {
	return "=== " + title + " — unavailable: " + why + " ===\n"
}

// SessionLine ends a read: the session to pass to every later call.
func SessionLine(session string) string { return "\nSession: " + session }

// Plural is "1 node" or "3 nodes".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Health is what a graph's HEALTH line says.
type Health struct {
	Nodes, Edges, Unconnected int
	AvgEdgesPerNode           float64
	Estimate, MaxTokens       int
	OverBudget                bool
}

// HealthLine is "HEALTH: 12 nodes, 9 edges, 2 unconnected (17%), avg 0.8
// edges/node, ~2310/4000 tokens".
func HealthLine(h Health) string {
	pct := 0
	if h.Nodes > 0 {
		pct = int(math.Round(float64(h.Unconnected) * 100 / float64(h.Nodes)))
	}
	s := fmt.Sprintf("HEALTH: %d nodes, %d edges, %d unconnected (%d%%), avg %s edges/node, ~%d/%d tokens",
		h.Nodes, h.Edges, h.Unconnected, pct, oneDecimal(h.AvgEdgesPerNode), h.Estimate, h.MaxTokens)
	if h.OverBudget {
		s += " (over budget: what is left is new, in its grace period)"
	}
	return s
}

// oneDecimal renders x rounded to one decimal, without a trailing ".0".
func oneDecimal(x float64) string {
	return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64)
}

// OmittedLine says what a read's size cap of limit characters left out of
// one graph.
func OmittedLine(archived, edges, limit int) string {
	a := Plural(archived, "archived id", "archived ids")
	e := Plural(edges, "edge to archived nodes", "edges to archived nodes")
	return fmt.Sprintf("(%s and %s left out to stay under %d characters; kg_search finds them)", a, e, limit)
}
