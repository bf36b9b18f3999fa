package mcp

// The text of every tool result, written for an LLM in the formats of
// mcp.md. Each function here is pure: app results in, text out; the
// structured twins of these texts are built in structured.go from the same
// inputs.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// maxReadChars caps the text of a full read (mcp.md, kg_read).
const maxReadChars = 40_000

// shownGraph is one graph of a full read as it is shown: the view, maybe
// trimmed to fit maxReadChars, and how much the trimming left out.
type shownGraph struct {
	level           domain.Level
	project, name   string
	view            domain.View
	archivedOmitted int
	edgesOmitted    int
	unavailable     string // why the graph cannot be read; the view is then empty
}

// fitFullRead returns the graphs of a full read trimmed so that its text
// stays within limit characters: archived id lines go first, from the last
// graph backwards, then edges to archived nodes; active gists never go. A
// read that fits is returned whole.
func fitFullRead(fr app.FullRead, session string, limit int) []shownGraph {
	gs := []shownGraph{{level: domain.LevelUser, view: fr.User.View, unavailable: fr.User.Unavailable}}
	if fr.Project != nil {
		gs = append(gs, shownGraph{level: domain.LevelProject, project: fr.Project.Key.Project,
			name: fr.Project.Name, view: fr.Project.View, unavailable: fr.Project.Unavailable})
	}
	excess := utf8.RuneCountInString(renderFullRead(gs, session)) - limit
	if excess <= 0 {
		return gs
	}
	// Room for the line that says what was left out, in each graph.
	excess += len(gs) * utf8.RuneCountInString(omittedLine(maxInt, maxInt))
	for i := len(gs) - 1; i >= 0 && excess > 0; i-- {
		g := &gs[i]
		for len(g.view.Archived) > 0 && excess > 0 {
			last := g.view.Archived[len(g.view.Archived)-1]
			excess -= utf8.RuneCountInString(last) + 3 // two spaces and the newline
			g.view.Archived = g.view.Archived[:len(g.view.Archived)-1]
			g.archivedOmitted++
		}
	}
	for i := len(gs) - 1; i >= 0 && excess > 0; i-- {
		g := &gs[i]
		archived := map[string]bool{}
		for _, id := range fullArchived(fr, g.level) {
			archived[id] = true
		}
		keep := make([]bool, len(g.view.Edges))
		for j := range keep {
			keep[j] = true
		}
		for j := len(g.view.Edges) - 1; j >= 0 && excess > 0; j-- {
			e := g.view.Edges[j]
			if archived[e.From] || archived[e.To] {
				keep[j] = false
				excess -= utf8.RuneCountInString(e.Key().String()) + 3
				g.edgesOmitted++
			}
		}
		edges := make([]*domain.Edge, 0, len(g.view.Edges)-g.edgesOmitted)
		for j, e := range g.view.Edges {
			if keep[j] {
				edges = append(edges, e)
			}
		}
		g.view.Edges = edges
	}
	return gs
}

const maxInt = int(^uint(0) >> 1)

// fullArchived returns the untrimmed archived ids of the graph at level.
func fullArchived(fr app.FullRead, level domain.Level) []string {
	if level == domain.LevelProject && fr.Project != nil {
		return fr.Project.View.Archived
	}
	return fr.User.View.Archived
}

// renderFullRead is the text of a full read.
func renderFullRead(gs []shownGraph, session string) string {
	var b strings.Builder
	for _, g := range gs {
		if g.unavailable != "" {
			fmt.Fprintf(&b, "=== %s — unavailable: %s ===\n", graphTitle(g.level, g.name), g.unavailable)
			continue
		}
		v := g.view
		fmt.Fprintf(&b, "=== %s — %d active, %d archived ===\n", graphTitle(g.level, g.name), v.Health.Active, v.Health.Archived)
		if len(v.Active) > 0 {
			b.WriteString("ACTIVE:\n")
			for _, n := range v.Active {
				fmt.Fprintf(&b, "  %s: %s\n", n.ID, n.Gist)
			}
		}
		if len(v.Archived) > 0 {
			b.WriteString("ARCHIVED (kg_read with id restores one):\n")
			for _, id := range v.Archived {
				fmt.Fprintf(&b, "  %s\n", id)
			}
		}
		if len(v.Edges) > 0 {
			b.WriteString("EDGES:\n")
			for _, e := range v.Edges {
				fmt.Fprintf(&b, "  %s\n", e.Key())
			}
		}
		b.WriteString(healthLine(v.Health))
		b.WriteByte('\n')
		if g.archivedOmitted > 0 || g.edgesOmitted > 0 {
			b.WriteString(omittedLine(g.archivedOmitted, g.edgesOmitted))
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, "\nSession: %s", session)
	return b.String()
}

// omittedLine says what the cap left out of one graph.
func omittedLine(archived, edges int) string {
	return fmt.Sprintf("(%s and %s left out to stay under %d characters; kg_search finds them)",
		plural(archived, "archived id", "archived ids"), plural(edges, "edge to archived nodes", "edges to archived nodes"),
		maxReadChars)
}

// graphTitle is "USER GRAPH" or "PROJECT GRAPH (name)".
func graphTitle(level domain.Level, name string) string {
	if level == domain.LevelUser {
		return "USER GRAPH"
	}
	if name == "" {
		return "PROJECT GRAPH"
	}
	return "PROJECT GRAPH (" + name + ")"
}

// healthLine is "HEALTH: 12 nodes, 9 edges, 2 unconnected (17%), avg 0.8
// edges/node, ~2310/4000 tokens".
func healthLine(h domain.Health) string {
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

// renderNodeReads is the text of a read by id.
func renderNodeReads(nodes []app.NodeRead, session string) string {
	var b strings.Builder
	for i, r := range nodes {
		if i > 0 {
			b.WriteByte('\n')
		}
		renderNodeRead(&b, r)
	}
	fmt.Fprintf(&b, "\nSession: %s", session)
	return b.String()
}

func renderNodeRead(b *strings.Builder, r app.NodeRead) {
	n := r.Node
	fmt.Fprintf(b, "=== NODE %s — %s, %s", n.ID, graphLabel(r.Level, r.Project), n.Tier)
	if r.WasTier != domain.Active && r.RecallNotSaved == "" {
		fmt.Fprintf(b, " (was %s; this read restored it)", r.WasTier)
	}
	b.WriteString(" ===\n")
	fmt.Fprintf(b, "gist: %s\n", n.Gist)
	if len(n.Notes) > 0 {
		b.WriteString("notes:\n")
		for _, s := range n.Notes {
			fmt.Fprintf(b, "  - %s\n", s)
		}
	}
	if len(n.Touches) > 0 {
		b.WriteString("touches:\n")
		for _, s := range n.Touches {
			fmt.Fprintf(b, "  - %s\n", s)
		}
	}
	fmt.Fprintf(b, "version: %d", n.Version.V)
	if t := formatTime(n.Created); t != "" {
		fmt.Fprintf(b, ", created %s", t)
	}
	if t := formatTime(n.LastWrite()); t != "" {
		fmt.Fprintf(b, ", last written %s", t)
	}
	b.WriteByte('\n')
	renderEnds(b, "EDGES OUT:", r.Out, r.Level)
	renderEnds(b, "EDGES IN:", r.In, r.Level)
	if len(r.Rescued) > 0 {
		fmt.Fprintf(b, "RESCUED (orphaned neighbours now archived): %s\n", strings.Join(r.Rescued, ", "))
	}
	if r.RecallNotSaved != "" {
		fmt.Fprintf(b, "NOTE: restoring this %s node could not be saved (%s); it stays %s\n", r.WasTier, r.RecallNotSaved, r.WasTier)
	}
}

func renderEnds(b *strings.Builder, title string, ends []app.EdgeEnd, level domain.Level) {
	if len(ends) == 0 {
		return
	}
	b.WriteString(title)
	b.WriteByte('\n')
	for _, e := range ends {
		fmt.Fprintf(b, "  %s", e.Edge.Key())
		if e.OtherTier != nil {
			if e.OtherLevel != "" && e.OtherLevel != level {
				fmt.Fprintf(b, " [%s, %s graph]", *e.OtherTier, e.OtherLevel)
			} else {
				fmt.Fprintf(b, " [%s]", *e.OtherTier)
			}
		}
		b.WriteByte('\n')
	}
}

// graphLabel names a graph in a sentence: "user graph", "project graph
// (my-app)".
func graphLabel(level domain.Level, project string) string {
	if level == domain.LevelProject && project != "" {
		return "project graph (" + filepath.Base(project) + ")"
	}
	return string(level) + " graph"
}

// formatTime renders a time as RFC 3339 in UTC; "" for none.
func formatTime(t domain.Micros) string {
	if t == 0 {
		return ""
	}
	return time.UnixMicro(int64(t)).UTC().Format(time.RFC3339)
}

// renderSearch is the text of kg_search.
func renderSearch(query string, hits []app.Hit) string {
	if len(hits) == 0 {
		return fmt.Sprintf("No nodes match %q", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s for %q (kg_read with id shows one in full and restores it):\n", plural(len(hits), "node found", "nodes found"), query)
	for _, h := range hits {
		where := string(h.Level)
		if h.Project != "" {
			where = "project " + filepath.Base(h.Project)
		}
		fmt.Fprintf(&b, "  [%s] %s (%s, score %.4f): %s\n", where, h.Node.ID, h.Node.Tier, h.Score, h.Node.Gist)
		for _, s := range h.Node.Notes {
			fmt.Fprintf(&b, "    - %s\n", s)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// renderPutNode is "Node "x" saved to project graph (v3)", plus a line for
// what compaction moved.
func renderPutNode(r app.PutNodeResult) string {
	return fmt.Sprintf("Node %q saved to %s graph (v%d)", r.Node.ID, r.Level, r.Node.Version.V) + movesLine(r.Compaction)
}

// renderPutEdge is "Edge a --rel--> b saved to user graph".
func renderPutEdge(r app.PutEdgeResult) string {
	return fmt.Sprintf("Edge %s saved to %s graph", r.Edge.Key(), r.Level) + movesLine(r.Compaction)
}

// movesLine is "\nCompaction: archived a, b; restored c", or "" when the
// run moved nothing.
func movesLine(m domain.Moves) string {
	if m.Empty() {
		return ""
	}
	var parts []string
	add := func(what string, ids []string) {
		if len(ids) > 0 {
			parts = append(parts, what+" "+strings.Join(ids, ", "))
		}
	}
	add("archived", m.Archived)
	add("restored", m.Restored)
	add("orphaned", m.Orphaned)
	add("pruned", m.Pruned)
	return "\nCompaction: " + strings.Join(parts, "; ")
}

// renderDeleteNode is the text of kg_delete_node.
func renderDeleteNode(r app.DeleteNodeResult) string {
	return fmt.Sprintf("Node %q deleted from %s graph, with %s", r.ID, r.Level, plural(r.EdgesDeleted, "edge", "edges"))
}

// renderDeleteEdge is the text of kg_delete_edge; a missing edge is "Edge
// not found: a --rel--> b", which is not an error.
func renderDeleteEdge(r app.DeleteEdgeResult) string {
	if !r.Deleted {
		return "Edge not found: " + r.Key.String()
	}
	return fmt.Sprintf("Edge %s deleted from %s graph", r.Key, r.Level)
}

// renderSync is the text of kg_sync.
func renderSync(r app.SyncResult) string {
	if r.Empty() {
		return "No updates from other sessions"
	}
	var b strings.Builder
	renderSyncGraph(&b, "USER GRAPH", r.User)
	if r.Project != nil {
		renderSyncGraph(&b, graphTitle(domain.LevelProject, filepath.Base(r.ProjectPath)), *r.Project)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// syncCounts counts the items of a report by kind.
type syncCounts struct{ nodes, edges, deletedNodes, deletedEdges int }

func countSync(rep domain.SyncReport) syncCounts {
	var c syncCounts
	for _, it := range rep.Items {
		switch {
		case it.Node != nil:
			c.nodes++
		case it.Edge != nil:
			c.edges++
		case it.Deleted && it.EdgeKey != nil:
			c.deletedEdges++
		case it.Deleted:
			c.deletedNodes++
		}
	}
	return c
}

func renderSyncGraph(b *strings.Builder, title string, rep domain.SyncReport) {
	moved := rep.Archived+rep.Restored+rep.Orphaned+rep.Pruned > 0
	if len(rep.Items) == 0 && !moved {
		return
	}
	c := countSync(rep)
	fmt.Fprintf(b, "%s: %s and %s updated, %s and %s deleted\n", title,
		plural(c.nodes, "node", "nodes"), plural(c.edges, "edge", "edges"),
		plural(c.deletedNodes, "node", "nodes"), plural(c.deletedEdges, "edge", "edges"))
	for _, it := range rep.Items {
		switch {
		case it.Node != nil && it.Node.Tier == domain.Orphaned:
			fmt.Fprintf(b, "  node %s [orphaned]\n", it.Node.ID)
		case it.Node != nil:
			fmt.Fprintf(b, "  node %s [%s]: %s\n", it.Node.ID, it.Node.Tier, it.Node.Gist)
		case it.Edge != nil:
			fmt.Fprintf(b, "  edge %s\n", it.Edge.Key())
		case it.Deleted && it.EdgeKey != nil:
			fmt.Fprintf(b, "  deleted edge %s\n", *it.EdgeKey)
		case it.Deleted:
			fmt.Fprintf(b, "  deleted node %s\n", it.NodeID)
		}
	}
	if moved {
		fmt.Fprintf(b, "  compaction: %d archived, %d restored, %d orphaned, %d pruned\n",
			rep.Archived, rep.Restored, rep.Orphaned, rep.Pruned)
	}
}

// renderProgressSaved is the text of kg_progress with a state.
func renderProgressSaved(task string, level domain.Level) string {
	return fmt.Sprintf("Progress of task %q saved to %s graph", task, level)
}

// renderProgress is the text of kg_progress without a state.
func renderProgress(task string, level domain.Level, state domain.RawJSON, found bool) string {
	if !found {
		return fmt.Sprintf("No progress found for task %q", task)
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, state, "", "  ") != nil {
		pretty.Reset()
		pretty.Write(state)
	}
	return fmt.Sprintf("Progress of task %q (%s graph):\n%s", task, level, pretty.String())
}

// plural is "1 node" or "3 nodes".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
