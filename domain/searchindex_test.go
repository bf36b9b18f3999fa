package domain

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scratchSearchFields returns the lower-cased fields of a node: id, gist,
// notes and touches.
func scratchSearchFields(n *Node) []string {
	fields := []string{strings.ToLower(n.ID), strings.ToLower(n.Gist)}
	for _, s := range n.Notes {
		fields = append(fields, strings.ToLower(s))
	}
	for _, s := range n.Touches {
		fields = append(fields, strings.ToLower(s))
	}
	return fields
}

// scratchSearchText returns the pieces of the text a node of g is searched by,
// straight from docs/design/mcp.md#kg_search and the graph's data rather than
// any of its indexes: its fields, then the far end of each of its edges that is
// not a node of g, lower-cased.
func scratchSearchText(g *Graph, n *Node) []string {
	text := scratchSearchFields(n)
	for _, e := range g.Edges() {
		switch {
		case e.From == e.To:
		case e.From == n.ID && !g.IsNode(e.To):
			text = append(text, strings.ToLower(e.To))
		case e.To == n.ID && !g.IsNode(e.From):
			text = append(text, strings.ToLower(e.From))
		}
	}
	return text
}

// cmpHit is the tie-break of search: id, then graph key.
func cmpHit(a, b SearchHit) int {
	if c := strings.Compare(a.Node.ID, b.Node.ID); c != 0 {
		return c
	}
	return cmpGraphKey(a.Key, b.Key)
}

// scanSearch is Search as a plain scan of every node, the way it was done
// before the index: the reference the indexed search must equal.
func scanSearch(graphs []*Graph, query string, limit int) []SearchHit {
	switch {
	case limit == 0:
		limit = DefaultSearchLim
	case limit > MaxSearchLimit:
		limit = MaxSearchLimit
	}
	terms := searchTerms(query)
	type match struct{ hit, count int }
	var hits []SearchHit
	perTerm := make([][]match, len(terms))
	for _, g := range graphs {
		if g == nil {
			continue
		}
		for _, n := range g.Nodes() {
			fields := scratchSearchText(g, n)
			idx := -1
			for t, term := range terms {
				c := 0
				for _, f := range fields {
					c += strings.Count(f, term)
				}
				if c == 0 {
					continue
				}
				if idx < 0 {
					idx = len(hits)
					hits = append(hits, SearchHit{Key: g.key, Node: n})
				}
				perTerm[t] = append(perTerm[t], match{idx, c})
			}
		}
	}
	for _, ms := range perTerm {
		slices.SortStableFunc(ms, func(a, b match) int {
			if a.count != b.count {
				return b.count - a.count
			}
			return cmpHit(hits[a.hit], hits[b.hit])
		})
		for r, m := range ms {
			hits[m.hit].Score += 1 / float64(searchRRFK+r)
		}
	}
	slices.SortStableFunc(hits, func(a, b SearchHit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return cmpHit(a, b)
	})
	return hits[:min(len(hits), limit)]
}

// searchIndexProblems compares the search index of g with one worked out
// from scratch: each node slot holds its fields lower-cased, every slot its
// lower-cased name, every trigram without white space of a node's whole
// text (scratchSearchText) lists the slot, every listed slot's text holds
// the trigram, and every postings set is well formed. It returns one line
// per problem.
func searchIndexProblems(g *Graph) []string {
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	ix := g.search
	if ix == nil {
		return []string{"the graph has no search index"}
	}
	text := map[int32]string{} // a node's whole text, joined with newlines
	for si := range g.ends {
		var want []string
		if n := g.ends[si].node; n != nil {
			want = scratchSearchFields(n)
			text[int32(si)] = strings.Join(scratchSearchText(g, n), "\n")
		}
		var got []string
		if si < len(ix.fields) {
			got = ix.fields[si]
		}
		if !slices.Equal(got, want) || (got == nil) != (want == nil) {
			bad("slot %d (%q) has fields %q, want %q", si, g.ends[si].name, got, want)
		}
		if si < len(ix.lower) && ix.lower[si] != strings.ToLower(g.ends[si].name) {
			bad("slot %d (%q) has the lower-cased name %q", si, g.ends[si].name, ix.lower[si])
		}
	}
	for si := len(g.ends); si < len(ix.fields); si++ {
		if ix.fields[si] != nil || ix.lower[si] != "" {
			bad("slot %d beyond the %d slots has fields %q, name %q", si, len(g.ends), ix.fields[si], ix.lower[si])
		}
	}
	gram := func(t uint32) string { return string([]byte{byte(t >> 16), byte(t >> 8), byte(t)}) }
	ix.grams.all(func(t uint32, i int32) {
		p := &ix.posts[i]
		var got []int32
		p.each(func(si int32) { got = append(got, si) })
		if int(p.n) != len(got) || p.n == 0 {
			bad("trigram %q counts %d slots and lists %d", gram(t), p.n, len(got))
		}
		for i := 1; i < len(got); i++ {
			if got[i] <= got[i-1] {
				bad("trigram %q lists slots out of order or twice: %v", gram(t), got)
				break
			}
		}
		if p.bits != nil {
			pop := 0
			for _, w := range p.bits {
				pop += bits.OnesCount64(w)
			}
			if pop != int(p.n) {
				bad("trigram %q has %d bits set and counts %d", gram(t), pop, p.n)
			}
		}
		for _, si := range got {
			if !strings.Contains(text[si], gram(t)) {
				bad("trigram %q lists slot %d (%q), whose text %q does not hold it", gram(t), si, g.ends[si].name, text[si])
			}
		}
	})
	for si, s := range text {
		for i := 0; i+3 <= len(s); i++ {
			w := s[i : i+3]
			if strings.ContainsAny(w, " \t\n\v\f\r") {
				continue
			}
			t := uint32(w[0])<<16 | uint32(w[1])<<8 | uint32(w[2])
			if p := ix.postingsOf(t); p == nil || !p.has(si) {
				bad("trigram %q of slot %d (%q) does not list it", w, si, g.ends[si].name)
			}
		}
	}
	return probs
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
	if hits, _ := Search([]*Graph{g}, "sliding lru", 0); len(hits) != 2 {
		t.Errorf("after the rollback: %d hits, want the 2 nodes of the checkpoint", len(hits))
	}
	r, _ := Restore(g.Key(), g.Data(), RestoreOptions{})
	for _, p := range searchIndexProblems(r) {
		t.Errorf("restored: %s", p)
	}
}

// TestSearchIndexRewriteKeepsEnds: a node rewritten so that its fields no
// longer hold a trigram keeps it while one of its ends does.
func TestSearchIndexRewriteKeepsEnds(t *testing.T) {
	g := NewGraph(UserGraph)
	corePut(t, g, "n", "auth module", nil, nil)
	coreEdge(t, g, coreAt(2, ""), "n", "touches", "src/auth.go")
	corePut(t, g, "n", "something else", nil, nil)
	for _, p := range searchIndexProblems(g) {
		t.Error(p)
	}
	if diff := cmp.Diff([]string{"user/n"}, hitNamesOf(t, g, "auth")); diff != "" {
		t.Errorf("search auth (-want +got):\n%s", diff)
	}
}

func TestPostingsSwitchesForm(t *testing.T) {
	const nslots = 64 * 40 // a bitmap from 80 slots, back to an array below 40
	var p postings
	for si := int32(0); si < 100; si++ {
		p.add(si*7, nslots)
		p.add(si*7, nslots) // a repeat changes nothing
	}
	if p.bits == nil || p.n != 100 {
		t.Fatalf("after 100 adds: bitmap %v, n %d; want a bitmap of 100", p.bits != nil, p.n)
	}
	for si := int32(0); si < 70; si++ {
		p.remove(si*7, nslots)
		p.remove(si*7, nslots)
	}
	if p.bits != nil || p.n != 30 {
		t.Fatalf("after 70 removals: bitmap %v, n %d; want an array of 30", p.bits != nil, p.n)
	}
	var got []int32
	p.each(func(si int32) { got = append(got, si) })
	var want []int32
	for si := int32(70); si < 100; si++ {
		want = append(want, si*7)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("slots (-want +got):\n%s", diff)
	}
	if !p.has(700-7) || p.has(7) {
		t.Errorf("has: %v for a member, %v for a removed slot", p.has(700-7), p.has(7))
	}
}
