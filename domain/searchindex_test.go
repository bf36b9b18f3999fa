package domain

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain/search"
)

// The reference of the search properties: the rules of
// docs/design/mcp.md#kg_search worked out from a graph's data alone, by
// reading every node, with none of the index, the lexicon trigrams or the
// top-k bounds. It shares with the search (searchGraphs, graphsearch.Find) only the rules themselves: how text
// is cut into words (search.AppendWords, search.Terms), the stemmer, the edit
// distance and the formula's pieces (search.IDF, search.Saturate and the constants).

// scratchWords returns the words of a node of g with their counts in the
// id and gist ([0]) and in the rest of its text ([1]): its notes, touches
// and the far end of each of its edges that is not a node of g.
func scratchWords(g *Graph, n *Node) map[string][2]int32 {
	out := map[string][2]int32{}
	add := func(text string, field int) {
		for _, w := range search.AppendWords(nil, text) {
			c := out[w]
			c[field]++
			out[w] = c
		}
	}
	add(n.ID, 0)
	add(n.Gist, 0)
	for _, s := range n.Notes {
		add(s, 1)
	}
	for _, s := range n.Touches {
		add(s, 1)
	}
	for _, e := range g.Edges() {
		switch {
		case e.From == e.To:
		case e.From == n.ID && !g.IsNode(e.To):
			add(e.To, 1)
		case e.To == n.ID && !g.IsNode(e.From):
			add(e.From, 1)
		}
	}
	return out
}

// scratchDoc is one node searched by scanSearch.
type scratchDoc struct {
	key   GraphKey
	node  *Node
	words map[string][2]int32
}

// scanSearch is the search (searchGraphs) as a plain scan of every node of graphs: the
// reference the indexed, top-k search must equal.
func scanSearch(graphs []*Graph, query string, limit int) searchResult {
	switch {
	case limit == 0:
		limit = DefaultSearchLim
	case limit > MaxSearchLimit:
		limit = MaxSearchLimit
	}
	var docs []scratchDoc
	wordDF := map[string]int{} // nodes holding the word
	stemDF := map[string]int{} // nodes holding a word of the stem
	for _, g := range graphs {
		if g == nil {
			continue
		}
		for _, n := range g.Nodes() {
			d := scratchDoc{key: g.Key(), node: n, words: scratchWords(g, n)}
			docs = append(docs, d)
			stems := map[string]bool{}
			for w := range d.words {
				wordDF[w]++
				stems[search.Stem(w)] = true
			}
			for s := range stems {
				stemDF[s]++
			}
		}
	}
	lexicon := slices.Sorted(maps.Keys(wordDF))
	n := len(docs)

	// Each term matches through clauses: a set of words and a weight.
	type clause struct {
		label  string
		words  map[string]bool
		weight float64
	}
	var res searchResult
	var terms [][]clause
	var weak []bool
	var unmatched []string
	terms_ := search.Terms(query)
	stops := 0
	for _, t := range terms_ {
		if search.IsStopWord(t) {
			stops++
		}
	}
	stemWords := func(stem string) map[string]bool {
		ws := map[string]bool{}
		for _, w := range lexicon {
			if search.Stem(w) == stem {
				ws[w] = true
			}
		}
		return ws
	}
	for _, t := range terms_ {
		kw := 1.0
		if stops < len(terms_) && search.IsStopWord(t) {
			kw = search.StopWeight
		}
		stem := search.Stem(t)
		var cs []clause
		df := stemDF[stem]
		if df > 0 {
			cs = append(cs, clause{t, stemWords(stem), kw * search.IDF(n, df)})
		}
		for _, w := range lexicon {
			if utf8.RuneCountInString(t) >= search.SubMinRunes && strings.Contains(w, t) && search.Stem(w) != stem {
				x := search.IDF(n, wordDF[w])
				if df > 0 {
					x = min(x, search.IDF(n, df))
				}
				cs = append(cs, clause{t, map[string]bool{w: true}, kw * search.SubWeight * x})
			}
		}
		if len(cs) == 0 {
			if c, ok := scratchNearest(lexicon, stemDF, t, search.TypoMax(utf8.RuneCountInString(t))); ok {
				res.Corrections = append(res.Corrections, correction{Term: t, Used: c})
				cs = append(cs, clause{c, stemWords(search.Stem(c)), search.TypoWeight * search.IDF(n, stemDF[search.Stem(c)])})
			} else {
				unmatched = append(unmatched, t)
			}
		}
		terms = append(terms, cs)
		weak = append(weak, search.IsWeak(t, df, n))
	}
	// Weak terms count only in nodes a strong term matches, when one
	// matches anything.
	strongMatches := false
	for ti, cs := range terms {
		strongMatches = strongMatches || !weak[ti] && len(cs) > 0
	}
	anyWeak := strongMatches && slices.Contains(weak, true)
	bound := 0.0
	for _, cs := range terms {
		b := 0.0
		for _, c := range cs {
			b = max(b, c.weight*(search.K1+1))
		}
		bound += b
	}
	var hits []searchHit
	for _, d := range docs {
		h := searchHit{Key: d.key, Node: d.node}
		strong := false
		for ti, cs := range terms {
			best, label := 0.0, ""
			for _, c := range cs {
				tf := 0.0
				for w := range c.words {
					if x, ok := d.words[w]; ok {
						tf += search.HeadWeight*float64(x[0]) + float64(x[1])
					}
				}
				if v := c.weight * search.Saturate(tf); tf > 0 && v > best {
					best, label = v, c.label
				}
			}
			h.Score += best
			strong = strong || best > 0 && !weak[ti]
			if best > 0 && !slices.Contains(h.Matched, label) {
				h.Matched = append(h.Matched, label)
			}
		}
		if anyWeak && !strong {
			continue
		}
		if h.Score > 0 && d.node.ID == strings.TrimSpace(query) {
			h.Score += bound
		}
		if h.Score > 0 {
			hits = append(hits, h)
		}
	}
	slices.SortFunc(hits, func(a, b searchHit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		if ua, ub := a.Key.Level == LevelUser, b.Key.Level == LevelUser; ua != ub {
			if ua {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.Node.ID, b.Node.ID); c != 0 {
			return c
		}
		return cmpGraphKey(a.Key, b.Key)
	})
	res.Hits = hits[:min(len(hits), limit)]
	if len(res.Hits) == 0 {
		for _, t := range unmatched {
			if c, ok := scratchNearest(lexicon, stemDF, t, search.NearMax(utf8.RuneCountInString(t))); ok {
				res.Nearest = append(res.Nearest, suggestion{Term: t, Nearest: c})
			}
		}
	}
	return res
}

// scratchNearest returns the word of lexicon nearest to t within max
// edits: the fewest edits, then the most nodes holding its stem, then the
// first by text.
func scratchNearest(lexicon []string, stemDF map[string]int, t string, max int) (string, bool) {
	best, bestD, bestDF := "", max+1, 0
	for _, w := range lexicon {
		d := search.EditDistance([]rune(t), []rune(w), max)
		if d > max {
			continue
		}
		df := stemDF[search.Stem(w)]
		if d < bestD || (d == bestD && df > bestDF) {
			best, bestD, bestDF = w, d, df
		}
	}
	return best, best != ""
}

// searchIndexProblems compares the search index of g with the words of
// its nodes worked out from scratch (search.Index.Check). It returns one
// line per problem.
func searchIndexProblems(g *Graph) []string {
	if g.search == nil {
		return nil // not built yet: the first search builds it
	}
	want := map[string]map[int32]int32{}
	count := 0
	for si := range g.ends {
		n := g.ends[si].node
		if n == nil {
			continue
		}
		count++
		for w, c := range scratchWords(g, n) {
			if want[w] == nil {
				want[w] = map[int32]int32{}
			}
			want[w][int32(si)] = search.HeadWeight*c[0] + c[1]
		}
	}
	return g.search.Check(count, want)
}

func TestSearchIndexFollowsChanges(t *testing.T) {
	g := NewGraph(UserGraph)
	corePut(t, g, "auth", "JWT Refresh", []string{"uses a sliding window"}, []string{"src/auth.go"})
	corePut(t, g, "cache", "LRU cache", nil, nil)
	check := func(step string) {
		t.Helper()
		for _, p := range searchIndexProblems(g) {
			t.Errorf("%s: %s", step, p)
		}
	}
	check("after the puts")
	g.Checkpoint()
	corePut(t, g, "auth", "refresh tokens", nil, []string{})
	check("after a rewrite")
	if _, err := g.DeleteNode("cache", coreAt(2, "")); err != nil {
		t.Fatal(err)
	}
	check("after a delete")
	g.Rollback()
	check("after the rollback")
	if hits := hitNamesOf(t, g, "sliding lru"); len(hits) != 2 {
		t.Errorf("after the rollback: %v, want the 2 nodes of the checkpoint", hits)
	}
	r, _ := Restore(g.Key(), g.Data(), RestoreOptions{})
	for _, p := range searchIndexProblems(r) {
		t.Errorf("restored: %s", p)
	}
}

// TestSearchIndexRewriteKeepsEnds: a node rewritten so that its fields no
// longer hold a word keeps it while one of its ends does.
func TestSearchIndexRewriteKeepsEnds(t *testing.T) {
	g := NewGraph(UserGraph)
	corePut(t, g, "n", "auth module", nil, nil)
	coreEdge(t, g, coreAt(2, ""), "n", "touches", "src/auth.go")
	corePut(t, g, "n", "something else", nil, nil)
	for _, p := range searchIndexProblems(g) {
		t.Error(p)
	}
	if diff := quickDiff([]string{"user/n"}, hitNamesOf(t, g, "auth")); diff != "" {
		t.Errorf("search auth (-want +got):\n%s", diff)
	}
}

// TestSearchIndexBuiltOnFirstSearch: a loaded graph has no search index,
// writes to it build none, and its first search builds one equal to the
// index worked out from scratch; searches racing on a graph's read lock
// (as the app runs them) build it once and all answer alike.
func TestSearchIndexBuiltOnFirstSearch(t *testing.T) {
	g := NewGraph(UserGraph)
	corePut(t, g, "auth", "JWT refresh", []string{"sliding window"}, []string{"src/auth.go"})
	corePut(t, g, "cache", "LRU cache", nil, nil)
	r, _ := Restore(g.Key(), g.Data(), RestoreOptions{})
	if r.search != nil {
		t.Fatal("Restore built a search index")
	}
	corePut(t, r, "token", "refresh tokens", nil, nil)
	if _, err := r.DeleteNode("cache", coreAt(2, "")); err != nil {
		t.Fatal(err)
	}
	if r.search != nil {
		t.Fatal("a write built a search index")
	}

	const searches = 8
	got := make([][]string, searches)
	done := make(chan int)
	for i := range searches {
		go func() {
			res, err := searchGraphs([]*Graph{r}, "refresh", 0)
			if err != nil {
				t.Error(err)
			}
			got[i] = hitNames(res.Hits)
			done <- i
		}()
	}
	for range searches {
		<-done
	}
	ix := r.search
	if ix == nil {
		t.Fatal("no search index after a search")
	}
	for _, p := range searchIndexProblems(r) {
		t.Error(p)
	}
	want := []string{"user/auth", "user/token"}
	for i := range got {
		if diff := quickDiff(want, got[i]); diff != "" {
			t.Errorf("search %d (-want +got):\n%s", i, diff)
		}
	}
	hitNamesOf(t, r, "cache")
	if r.search != ix {
		t.Error("a second search built the index again")
	}
}

// TestSearchSkipsBlocks: a query of a word every node holds, whose best
// nodes are all in one block, scores the nodes of that block and not the
// others: their block maxima cannot reach the threshold.
func TestSearchSkipsBlocks(t *testing.T) {
	const blocks = 8
	g := NewGraph(UserGraph)
	n := blocks << search.DefaultBlockShift
	for i := range n {
		gist := "common"
		if i>>search.DefaultBlockShift == 5 && i%8 == 0 {
			gist = "common common common common common" // the 8 best, in block 5
		}
		corePut(t, g, fmt.Sprintf("n%04d", i), gist, nil, nil)
	}
	for _, blockMin := range []int32{int32(n) + 1, 2} { // no block maxima, then maxima for "common"
		g.search = buildSearchIndex(g, search.DefaultBlockShift, blockMin)
		res, work, err := searchWithWork([]*Graph{g}, "common", 8)
		if err != nil {
			t.Fatal(err)
		}
		visits := work.Nodes
		var ids []string
		for _, h := range res.Hits {
			ids = append(ids, h.Node.ID)
		}
		var want []string
		for i := 5 << search.DefaultBlockShift; i < 6<<search.DefaultBlockShift; i += 8 {
			want = append(want, fmt.Sprintf("n%04d", i))
		}
		if diff := quickDiff(want, ids); diff != "" {
			t.Errorf("block min %d: hits (-want +got):\n%s", blockMin, diff)
		}
		if limit := 1 << search.DefaultBlockShift; visits > limit {
			t.Errorf("block min %d: scored %d nodes of %d, want at most the %d of one block", blockMin, visits, n, limit)
		}
	}
}
