package domain

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The preload of a session start (docs/design/hooks.md#the-preload): the
// active nodes of the user graph and the session's project graph, best first
// in compaction's rank order, each as "id: gist" under the section headers of
// the full read, then the shown edges among the nodes included, as long as
// they fit in a budget of characters, and one line counting what was left
// out. It is built in one pass over the nodes in rank order, so its cost is
// the O(n log n) of ranking them (the replaced server trimmed a rendered text
// one node at a time, re-rendering after each: O(n²)).

// PreloadGraph is one graph of a preload.
type PreloadGraph struct {
	Graph *Graph
	Name  string // the project folder's name; "" for the user graph
}

// Preload is a built preload.
type Preload struct {
	Text string
	// Shown are the nodes the text shows, by graph key and id, in the
	// order shown.
	Shown []PreloadNode
	// Active counts the active nodes of each graph (user first, as given),
	// and Left the active nodes left out to fit.
	Active []int
	Left   int
	// work counts the lines measured, for the test that holds the build
	// linear after the ranking.
	work int
}

// PreloadNode names one node a preload shows.
type PreloadNode struct {
	Key GraphKey
	ID  string
}

// preloadItem is an active node in the preload's order.
type preloadItem struct {
	g       int // index in the graphs
	n       *Node
	score   float64
	recency Micros
}

// PreloadOrder returns the active nodes of g best first in compaction's rank
// order (docs/design/compaction.md#scores) at now: the nodes in creation
// grace first, which no run archives, most recent first, then the eligible
// active nodes from the highest score down (ties: higher recency, then the
// lower id). Scores are percentiles, so the orders of two graphs merge by
// score (BuildPreload). It costs the O(n log n) of Ranks.
func PreloadOrder(g *Graph, now Micros, p Policy) []*Node {
	items := preloadItems(g, 0, now, p)
	slices.SortFunc(items, cmpPreload)
	out := make([]*Node, len(items))
	for i, it := range items {
		out[i] = it.n
	}
	return out
}

func preloadItems(g *Graph, gi int, now Micros, p Policy) []preloadItem {
	ranked, others := Ranks(g, now, p)
	items := make([]preloadItem, 0, g.stats.Active)
	for _, r := range others {
		if n, ok := g.node(r.ID); ok && n.Tier == Active {
			// In grace: above every score, which is at most 1.
			items = append(items, preloadItem{g: gi, n: n, score: math.Inf(1), recency: r.Recency})
		}
	}
	for _, r := range slices.Backward(ranked) {
		if n, ok := g.node(r.ID); ok {
			items = append(items, preloadItem{g: gi, n: n, score: r.Score, recency: r.Recency})
		}
	}
	return items
}

// cmpPreload orders preload items best first: score, then recency, both
// descending, then the user graph first, then id.
func cmpPreload(a, b preloadItem) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	if c := cmp.Compare(b.recency, a.recency); c != 0 {
		return c
	}
	if c := cmp.Compare(a.g, b.g); c != 0 {
		return c
	}
	return strings.Compare(a.n.ID, b.n.ID)
}

// minNodeLine is the shortest node line: "  a: b\n".
const minNodeLine = 7

// preloadSection is what one graph's section shows.
type preloadSection struct {
	title string
	nodes []*Node
	ids   map[string]struct{}
	edges []*Edge
}

// BuildPreload builds the preload of graphs (nil graphs skipped) at now, at
// most budget characters (code points) long: the headers of every graph, then
// the active nodes best first (PreloadOrder, the graphs' orders merged) while
// they fit, a node too long for what is left being skipped for the next;
// then, with what is left, the shown edges among the included nodes of each
// graph, by (from, rel, to); then the line that counts the nodes left out.
// The caller holds each graph's read lock.
func BuildPreload(graphs []PreloadGraph, now Micros, p Policy, budget int) Preload {
	var out Preload
	secs := make([]preloadSection, len(graphs))
	var items []preloadItem
	total := 0
	for i, pg := range graphs {
		out.Active = append(out.Active, 0)
		if pg.Graph == nil {
			continue
		}
		g := pg.Graph
		st := g.Stats()
		out.Active[i] = st.Active
		total += st.Active
		secs[i] = preloadSection{title: preloadTitle(g.Key().Level, pg.Name, st), ids: map[string]struct{}{}}
		items = append(items, preloadItems(g, i, now, p)...)
	}
	// cmpPreload is a total order (it ends with the graph and the id), so
	// an unstable sort gives the one order.
	slices.SortFunc(items, cmpPreload)

	// What is always written: each graph's title, its ACTIVE line, and
	// the line of what was left out (as long as it can be).
	left := budget - len(leftOutLine(total))
	for _, s := range secs {
		if s.title != "" {
			left -= runes(s.title) + runes("ACTIVE:\n")
		}
	}
	for i, it := range items {
		if left < minNodeLine {
			// Nothing more fits: the rest is counted, not measured.
			out.Left += len(items) - i
			break
		}
		out.work++
		// A code point is 1 to 4 bytes: a line whose bytes / 4 are over
		// what is left cannot fit, and needs no counting (once the budget
		// is nearly spent, that is almost every line).
		if bytes := len(it.n.ID) + len(it.n.Gist); bytes/4+5 > left {
			out.Left++
			continue
		}
		cost := 2 + runes(it.n.ID) + 2 + runes(it.n.Gist) + 1
		if cost > left {
			out.Left++
			continue
		}
		left -= cost
		s := &secs[it.g]
		s.nodes = append(s.nodes, it.n)
		s.ids[it.n.ID] = struct{}{}
		out.Shown = append(out.Shown, PreloadNode{Key: graphs[it.g].Graph.Key(), ID: it.n.ID})
	}
	for i := range secs {
		s := &secs[i]
		if len(s.nodes) == 0 {
			continue
		}
		g := graphs[i].Graph
		var edges []*Edge
		for _, n := range s.nodes {
			for _, e := range g.EdgesOf(n.ID) {
				out.work++
				_, toIn := s.ids[e.To]
				if e.From == n.ID && toIn && g.Shown(e.Key()) {
					edges = append(edges, e)
				}
			}
		}
		sortEdges(edges)
		header := runes("EDGES:\n")
		for _, e := range edges {
			out.work++
			cost := 2 + runes(preloadEdgeLine(e)) + 1
			if len(s.edges) == 0 {
				cost += header
			}
			if cost > left {
				continue
			}
			left -= cost
			s.edges = append(s.edges, e)
		}
	}

	var b strings.Builder
	b.Grow(budget)
	for _, s := range secs {
		if s.title == "" {
			continue
		}
		b.WriteString(s.title)
		if len(s.nodes) > 0 {
			b.WriteString("ACTIVE:\n")
			for _, n := range s.nodes {
				b.WriteString("  ")
				b.WriteString(n.ID)
				b.WriteString(": ")
				b.WriteString(n.Gist)
				b.WriteByte('\n')
			}
		}
		if len(s.edges) > 0 {
			b.WriteString("EDGES:\n")
			for _, e := range s.edges {
				b.WriteString("  ")
				b.WriteString(preloadEdgeLine(e))
				b.WriteByte('\n')
			}
		}
	}
	if out.Left > 0 {
		b.WriteString(leftOutLine(out.Left))
	}
	out.Text = strings.TrimSuffix(b.String(), "\n")
	return out
}

// preloadTitle is a graph's section header, as the full read writes it.
func preloadTitle(level Level, name string, st Stats) string {
	t := "USER GRAPH"
	if level == LevelProject {
		t = "PROJECT GRAPH"
		if name != "" {
			t += " (" + name + ")"
		}
	}
	return "=== " + t + " — " + strconv.Itoa(st.Active) + " active, " + strconv.Itoa(st.Archived) + " archived ===\n"
}

// preloadEdgeLine is an edge as the full read lists it: notes counted,
// never shown.
func preloadEdgeLine(e *Edge) string {
	switch n := len(e.Notes); n {
	case 0:
		return e.Key().String()
	case 1:
		return e.Key().String() + " (+1 note)"
	default:
		return e.Key().String() + " (+" + strconv.Itoa(n) + " notes)"
	}
}

// leftOutLine is the line counting the active nodes a preload left out.
func leftOutLine(n int) string {
	word := "nodes"
	if n == 1 {
		word = "node"
	}
	return "(" + strconv.Itoa(n) + " more active " + word + " not preloaded, to fit; kg_read shows them all)\n"
}

func runes(s string) int { return utf8.RuneCountInString(s) }
