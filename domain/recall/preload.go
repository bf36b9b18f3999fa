package recall

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/render"
	"github.com/kg-memory/kg/domain/stale"
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
	Graph *domain.Graph
	Name  string // the project folder's name; "" for the user graph
	// Ranking is Graph's order from RankPreload, kept by the caller
	// between preloads; nil, or one no longer Valid, is ranked afresh.
	Ranking *PreloadRanking
}

// PreloadRanking is one graph's active nodes in preload order
// (PreloadOrder), with the scores that merge it with another graph's. It
// holds while the graph has no change and no node leaves its creation
// grace (Valid), so a caller may keep it between session starts: ranking
// is most of a preload's cost (docs/design/hooks.md#the-preload).
type PreloadRanking struct {
	g       *domain.Graph
	changes uint64
	until   domain.Micros // the first end of a creation grace after the ranking; 0: none
	items   []preloadItem
}

// RankPreload ranks g's active nodes for a preload at now. It costs the
// O(n log n) of Ranks; the caller holds g's read lock.
func RankPreload(g *domain.Graph, now domain.Micros, p compaction.Policy) *PreloadRanking {
	items, until := preloadItems(g, 0, now, p)
	slices.SortFunc(items, cmpPreload)
	return &PreloadRanking{g: g, changes: g.Changes(), until: until, items: items}
}

// Valid reports whether r is still g's preload order at now: g is the
// graph ranked, unchanged since, and no node of it in creation grace then
// has left it (leaving it puts the node among the scored ones, which
// moves every percentile).
func (r *PreloadRanking) Valid(g *domain.Graph, now domain.Micros) bool {
	return r != nil && r.g == g && r.changes == g.Changes() && (r.until == 0 || now < r.until)
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
	Key domain.GraphKey
	ID  string
}

// preloadItem is an active node in the preload's order.
type preloadItem struct {
	g       int // index in the graphs
	n       *domain.Node
	score   float64
	recency domain.Micros
	cost    int // characters of its line, "  id: gist\n": counted once per ranking
}

// PreloadOrder returns the active nodes of g best first in compaction's rank
// order (docs/design/compaction.md#scores) at now: the nodes in creation
// grace first, which no run archives, most recent first, then the eligible
// active nodes from the highest score down (ties: higher recency, then the
// lower id). Scores are percentiles, so the orders of two graphs merge by
// score (BuildPreload). It costs the O(n log n) of Ranks.
func PreloadOrder(g *domain.Graph, now domain.Micros, p compaction.Policy) []*domain.Node {
	items := RankPreload(g, now, p).items
	out := make([]*domain.Node, len(items))
	for i, it := range items {
		out[i] = it.n
	}
	return out
}

// preloadItems returns g's active nodes in no order, and the first time
// after now when one of them leaves its creation grace (0: none is in it).
func preloadItems(g *domain.Graph, gi int, now domain.Micros, p compaction.Policy) ([]preloadItem, domain.Micros) {
	ranked, others := compaction.Ranks(g, now, p)
	items := make([]preloadItem, 0, g.Stats().Active)
	var until domain.Micros
	for _, r := range others {
		if n, ok := g.Node(r.ID); ok && n.Tier == domain.Active {
			// In grace: above every score, which is at most 1.
			items = append(items, preloadItem{g: gi, n: n, score: math.Inf(1), recency: r.Recency, cost: nodeLineCost(n)})
			if end := now + r.GraceLeft; r.GraceLeft > 0 && (until == 0 || end < until) {
				until = end
			}
		}
	}
	for _, r := range slices.Backward(ranked) {
		if n, ok := g.Node(r.ID); ok {
			items = append(items, preloadItem{g: gi, n: n, score: r.Score, recency: r.Recency, cost: nodeLineCost(n)})
		}
	}
	return items, until
}

// cmpPreload orders preload items best first: score, then recency, both
// descending, then the user graph first, then id.
func cmpPreload(a, b preloadItem) int { return cmpPreloadIn(a, a.g, b, b.g) }

// cmpPreloadIn is cmpPreload of a from graph ga and b from graph gb.
func cmpPreloadIn(a preloadItem, ga int, b preloadItem, gb int) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	if c := cmp.Compare(b.recency, a.recency); c != 0 {
		return c
	}
	if c := cmp.Compare(ga, gb); c != 0 {
		return c
	}
	return strings.Compare(a.n.ID, b.n.ID)
}

// nodeLine is n's line in a preload (render.Node): "  id: gist\n", or
// "  id [stale: …]: gist\n" for a node marked stale.
func nodeLine(n *domain.Node) render.Node {
	return render.Node{ID: n.ID, Mark: stale.Mark(n.Stale), Gist: n.Gist}
}

// nodeLineCost is the characters of n's line in a preload.
func nodeLineCost(n *domain.Node) int { return nodeLine(n).Len() }

// minNodeLine is the shortest node line: "  a: b\n".
var minNodeLine = render.Node{ID: "a", Gist: "b"}.Len()

// preloadSection is what one graph's section shows.
type preloadSection struct {
	title string
	nodes []*domain.Node
	ids   map[string]struct{}
	edges []*domain.Edge
}

// BuildPreload builds the preload of graphs (nil graphs skipped) at now, at
// most budget characters (code points) long: the headers of every graph, then
// the active nodes best first (PreloadOrder, the graphs' orders merged) while
// they fit, a node too long for what is left being skipped for the next;
// then, with what is left, the shown edges among the included nodes of each
// graph, by (from, rel, to); then the line that counts the nodes left out.
// The caller holds each graph's read lock. Rankings returns the order of
// each graph it used (nil for a nil graph), to be given back next time.
func BuildPreload(graphs []PreloadGraph, now domain.Micros, p compaction.Policy, budget int) (Preload, []*PreloadRanking) {
	var out Preload
	secs, orders, total := preloadSections(graphs, now, p, &out)
	// What is always written: each graph's title, its ACTIVE line, and
	// the line of what was left out (as long as it can be).
	left := budget - len(leftOutLine(total))
	for _, s := range secs {
		if s.title != "" {
			left -= runes(s.title) + runes(render.ActiveHeader)
		}
	}
	left = pickPreloadNodes(graphs, orders, secs, left, &out)
	for i := range secs {
		if len(secs[i].nodes) > 0 {
			left = pickPreloadEdges(graphs[i].Graph, &secs[i], left, &out)
		}
	}
	out.Text = writePreload(secs, out.Left, budget)
	return out, orders
}

// preloadSections starts each graph's section and finds its ranking (the
// one given while Valid, else a new one), counting the active nodes in out;
// total is their sum.
func preloadSections(graphs []PreloadGraph, now domain.Micros, p compaction.Policy, out *Preload) ([]preloadSection, []*PreloadRanking, int) {
	secs := make([]preloadSection, len(graphs))
	orders := make([]*PreloadRanking, len(graphs))
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
		orders[i] = pg.Ranking
		if !orders[i].Valid(g, now) {
			orders[i] = RankPreload(g, now, p)
		}
	}
	return secs, orders, total
}

// pickPreloadNodes walks the graphs' orders merged (cmpPreloadIn is a total
// order: it ends with the graph and the id), only as far as left characters
// go, adding each node that fits to its graph's section and out.Shown, and
// counting the others in out.Left. It returns what is left.
func pickPreloadNodes(graphs []PreloadGraph, orders []*PreloadRanking, secs []preloadSection, left int, out *Preload) int {
	heads := make([]int, len(orders))
	remaining := 0
	for _, o := range orders {
		if o != nil {
			remaining += len(o.items)
		}
	}
	for ; remaining > 0; remaining-- {
		if left < minNodeLine {
			// Nothing more fits: the rest is counted, not measured.
			out.Left += remaining
			break
		}
		gi := -1
		for j, o := range orders {
			if o == nil || heads[j] == len(o.items) {
				continue
			}
			if gi < 0 || cmpPreloadIn(o.items[heads[j]], j, orders[gi].items[heads[gi]], gi) < 0 {
				gi = j
			}
		}
		it := orders[gi].items[heads[gi]]
		heads[gi]++
		it.g = gi
		out.work++
		if cost := it.cost; cost > left {
			out.Left++
			continue
		}
		left -= it.cost
		s := &secs[it.g]
		s.nodes = append(s.nodes, it.n)
		s.ids[it.n.ID] = struct{}{}
		out.Shown = append(out.Shown, PreloadNode{Key: graphs[it.g].Graph.Key(), ID: it.n.ID})
	}
	return left
}

// pickPreloadEdges adds to s, by (from, rel, to), the shown edges of g
// among the nodes s includes while they fit in left characters (the first
// also pays for the EDGES header), and returns what is left.
func pickPreloadEdges(g *domain.Graph, s *preloadSection, left int, out *Preload) int {
	var edges []*domain.Edge
	for _, n := range s.nodes {
		for _, e := range g.EdgesOf(n.ID) {
			out.work++
			_, toIn := s.ids[e.To]
			if e.From == n.ID && toIn && g.Shown(e.Key()) {
				edges = append(edges, e)
			}
		}
	}
	domain.SortEdges(edges)
	header := runes(render.EdgesHeader)
	for _, e := range edges {
		out.work++
		cost := len(render.Indent) + runes(preloadEdgeLine(e)) + 1
		if len(s.edges) == 0 {
			cost += header
		}
		if cost > left {
			continue
		}
		left -= cost
		s.edges = append(s.edges, e)
	}
	return left
}

// writePreload writes the sections, then the line counting the leftOut
// nodes, with no newline at the end.
func writePreload(secs []preloadSection, leftOut, budget int) string {
	var b strings.Builder
	b.Grow(budget)
	for _, s := range secs {
		if s.title == "" {
			continue
		}
		b.WriteString(s.title)
		if len(s.nodes) > 0 {
			b.WriteString(render.ActiveHeader)
			for _, n := range s.nodes {
				nodeLine(n).Write(&b)
			}
		}
		if len(s.edges) > 0 {
			b.WriteString(render.EdgesHeader)
			for _, e := range s.edges {
				b.WriteString(render.Indent)
				b.WriteString(preloadEdgeLine(e))
				b.WriteByte('\n')
			}
		}
	}
	if leftOut > 0 {
		b.WriteString(leftOutLine(leftOut))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// preloadTitle is a graph's section header, as the full read writes it.
func preloadTitle(level domain.Level, name string, st domain.Stats) string {
	return render.GraphHeader(render.GraphTitle(level == domain.LevelProject, name), st.Active, st.Archived)
}

// preloadEdgeLine is an edge as the full read lists it: notes counted,
// never shown.
func preloadEdgeLine(e *domain.Edge) string {
	return render.CountedEdge(e.Key().String(), len(e.Notes))
}

// leftOutLine is the line counting the active nodes a preload left out.
func leftOutLine(n int) string { return render.PreloadLeftOut(n) }

func runes(s string) int { return utf8.RuneCountInString(s) }
