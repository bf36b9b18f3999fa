package domain

import (
	"math/bits"
	"slices"
	"strings"
)

// The search index (docs/decisions/0013-search-index.md). Search matches
// terms as substrings, so the index is one of trigrams, as code-search
// engines use: for every three consecutive bytes of a piece of a node's
// lower-cased text, the set of nodes whose text holds them. A term of three
// bytes or more can only occur in a node that holds all of its trigrams,
// so the index narrows the nodes to count the term in to those, and the
// exact occurrence counts are taken on them alone. A term of one or two
// bytes has no trigram; it is counted in every node (see matchTerm).
//
// A node's text (docs/design/mcp.md#kg_search) is its id, gist, notes and
// touches and the ends of its edges that are not nodes of its graph: file
// paths, artifacts, ids not created yet, and, from a project graph, ids of the
// user graph. An end counts once per edge. So the text of a node changes when
// it is written, when an edge between it and a reference is put or deleted, and
// when a node named like one of its ends is created or deleted.
//
// The index lives in the graph and is kept exact by the same primitives
// that keep the adjacency index (putNodeAt, putEdge, removeEdgeSlot,
// endSlot, releaseEnd), so Rollback, which replays the undo journal through
// them, takes it back too. Restore builds it once, after the graph is
// whole, rather than node by node.

// searchIndex is a graph's search index. Slots are the graph's end slots.
type searchIndex struct {
	// fields holds, by slot, the lower-cased searchable fields of the node
	// in that slot (appendSearchFields); nil for a slot with no node. A
	// field already in lower case is the node's own string, not a copy.
	fields [][]string
	// lower holds, by slot, the slot's name lower-cased: the text an end
	// that is not a node gives the nodes at the other end of its edges.
	lower []string
	// grams holds, for each trigram, the position in posts of the set of
	// slots whose text holds it. The sets live in one array, which keeps
	// the table's entries small and the sets close together; free holds
	// the positions of sets that emptied, for reuse.
	grams gramTable
	posts []postings
	free  []int32
}

func newSearchIndex() *searchIndex { return &searchIndex{} }

// postingsOf returns the set of slots whose text holds trigram t; nil if
// none does.
func (ix *searchIndex) postingsOf(t uint32) *postings {
	if i, ok := ix.grams.get(t); ok {
		return &ix.posts[i]
	}
	return nil
}

// buildSearchIndex indexes every node of g at once, in two passes over
// the nodes so that every set is allocated at its final size: the first
// counts the nodes holding each trigram, which says whether its set is an
// array or a bitmap; the arrays are then windows of one arena, and the
// second pass fills them, visiting slots in ascending order so that each
// array only grows at its end. Growing arrays one node at a time instead
// left a quarter to a half of their room unused.
func buildSearchIndex(g *Graph) *searchIndex {
	ix := newSearchIndex()
	ix.grow(len(g.ends))
	total := 0
	for si := range g.ends {
		if n := g.ends[si].node; n != nil {
			total += 2 + len(n.Notes) + len(n.Touches)
		} else {
			ix.lower[si] = strings.ToLower(g.ends[si].name)
		}
	}
	all := make([]string, 0, total)
	var buf []uint32
	var count, last []int32 // by set: nodes holding its trigram; the last one counted, +1
	for si := range g.ends {
		n := g.ends[si].node
		if n == nil {
			continue
		}
		start := len(all)
		all = appendSearchFields(all, n)
		ix.fields[si] = all[start:len(all):len(all)]
		ix.lower[si] = ix.fields[si][0] // the lower-cased id
		buf = ix.appendNodeGrams(g, buf[:0], int32(si))
		for _, t := range buf {
			i := ix.set(t)
			if int(i) == len(count) {
				count, last = append(count, 0), append(last, 0)
			}
			if last[i] != int32(si)+1 {
				last[i] = int32(si) + 1
				count[i]++
			}
		}
	}
	nslots := len(g.ends)
	arena := 0
	for _, c := range count {
		if c <= bitmapAt(nslots) {
			arena += int(c)
		}
	}
	slots := make([]int32, arena)
	off := 0
	for i, c := range count {
		p := &ix.posts[i]
		if c > bitmapAt(nslots) {
			p.bits = make([]uint64, (nslots+63)/64)
			continue
		}
		p.slots = slots[off : off : off+int(c)]
		off += int(c)
	}
	for si := range g.ends {
		if g.ends[si].node == nil {
			continue
		}
		buf = ix.appendNodeGrams(g, buf[:0], int32(si))
		for _, t := range buf {
			i, _ := ix.grams.get(t)
			ix.posts[i].add(int32(si), nslots)
		}
	}
	return ix
}

// grow makes room for slots up to n.
func (ix *searchIndex) grow(n int) {
	if n > len(ix.fields) {
		ix.fields = slices.Grow(ix.fields, n-len(ix.fields))[:n]
		ix.lower = slices.Grow(ix.lower, n-len(ix.lower))[:n]
	}
}

// named records the name of slot si, which the graph has just given it.
func (ix *searchIndex) named(g *Graph, si int32) {
	ix.grow(len(g.ends))
	ix.lower[si] = strings.ToLower(g.ends[si].name)
}

// release forgets slot si, which the graph has freed.
func (ix *searchIndex) release(si int32) {
	if int(si) < len(ix.fields) {
		ix.fields[si], ix.lower[si] = nil, ""
	}
}

// eachEnd calls f with the slot of the far end of every edge of node slot
// si whose far end is not a node: the ends that are part of the node's
// text, once per edge. Whether an end is a node is read from the graph's
// endTiers, one byte per slot, rather than from the slots themselves.
func (ix *searchIndex) eachEnd(g *Graph, si int32, f func(e int32)) {
	s := &g.ends[si]
	for _, list := range [2][]adjEntry{s.out, s.in} {
		for _, a := range list {
			if a.other != si && g.endTiers[a.other] == endRef {
				f(a.other)
			}
		}
	}
}

// eachNeighbour calls f with the slot of every node other than si at the
// far end of an edge of slot si, once per edge.
func eachNeighbour(g *Graph, si int32, f func(n int32)) {
	s := &g.ends[si]
	for _, list := range [2][]adjEntry{s.out, s.in} {
		for _, a := range list {
			if a.other != si && g.endTiers[a.other] != endRef {
				f(a.other)
			}
		}
	}
}

// appendNodeGrams appends to buf the trigrams of the whole text of node
// slot si, its fields and its ends, repeats included.
func (ix *searchIndex) appendNodeGrams(g *Graph, buf []uint32, si int32) []uint32 {
	for _, f := range ix.fields[si] {
		buf = appendGrams(buf, f)
	}
	ix.eachEnd(g, si, func(e int32) { buf = appendGrams(buf, ix.lower[e]) })
	return buf
}

// holds reports whether the text of node slot si holds trigram t, in a
// field or an end.
func (ix *searchIndex) holds(g *Graph, si int32, t uint32) bool {
	gram := string([]byte{byte(t >> 16), byte(t >> 8), byte(t)})
	for _, f := range ix.fields[si] {
		if strings.Contains(f, gram) {
			return true
		}
	}
	found := false
	ix.eachEnd(g, si, func(e int32) { found = found || strings.Contains(ix.lower[e], gram) })
	return found
}

// setNode updates the index for slot si, whose node was old and is now n
// (either may be nil); the graph has already put n in the slot. A change
// that keeps the text (a tier change, a read stamp, a new version) costs
// one comparison of the fields.
func (ix *searchIndex) setNode(g *Graph, si int32, old, n *Node) {
	switch {
	case old == nil && n == nil:
	case old != nil && n != nil:
		if !sameText(old, n) {
			ix.rewrite(g, si, n)
		}
	case n != nil:
		// A new node: its text is its fields and its ends, and it is no
		// longer an end in the text of its neighbours.
		ix.grow(len(g.ends))
		ix.fields[si] = appendSearchFields(make([]string, 0, 2+len(n.Notes)+len(n.Touches)), n)
		for _, t := range ix.appendNodeGrams(g, nil, si) {
			ix.add(g, t, si)
		}
		eachNeighbour(g, si, func(nb int32) { ix.dropEnd(g, nb, si) })
	default:
		// A node gone: its text goes, and its name becomes an end in the
		// text of its neighbours.
		for _, t := range ix.appendNodeGrams(g, nil, si) {
			ix.remove(g, t, si)
		}
		ix.fields[si] = nil
		eachNeighbour(g, si, func(nb int32) { ix.addEnd(g, nb, si) })
	}
}

// rewrite gives node slot si the fields of n, its ends unchanged.
func (ix *searchIndex) rewrite(g *Graph, si int32, n *Node) {
	before := sortedGrams(ix.fields[si]...)
	ix.fields[si] = appendSearchFields(make([]string, 0, 2+len(n.Notes)+len(n.Touches)), n)
	after := sortedGrams(ix.fields[si]...)
	// The slot leaves the trigrams its fields lost, unless an end holds
	// them, and joins those they gained; both lists are sorted and free of
	// repeats.
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		switch {
		case j == len(after) || (i < len(before) && before[i] < after[j]):
			if !ix.holds(g, si, before[i]) {
				ix.remove(g, before[i], si)
			}
			i++
		case i == len(before) || after[j] < before[i]:
			ix.add(g, after[j], si)
			j++
		default:
			i++
			j++
		}
	}
}

// addEnd records that node slot si has gained an edge to end slot e, which
// is not a node.
func (ix *searchIndex) addEnd(g *Graph, si, e int32) {
	for _, t := range sortedGrams(ix.lower[e]) {
		ix.add(g, t, si)
	}
}

// dropEnd records that node slot si has lost an edge to end slot e, or
// that e has become a node. The slot stays in a trigram's set that another
// field or end still gives it.
func (ix *searchIndex) dropEnd(g *Graph, si, e int32) {
	for _, t := range sortedGrams(ix.lower[e]) {
		if !ix.holds(g, si, t) {
			ix.remove(g, t, si)
		}
	}
}

// edgeChanged records that an edge between slots from and to was put
// (added true) or deleted; the graph's adjacency lists already say so.
func (ix *searchIndex) edgeChanged(g *Graph, from, to int32, added bool) {
	if from == to {
		return
	}
	fromNode, toNode := g.ends[from].node != nil, g.ends[to].node != nil
	if fromNode == toNode {
		return // two nodes, or two references: no node's text changes
	}
	si, e := from, to
	if toNode {
		si, e = to, from
	}
	if added {
		ix.addEnd(g, si, e)
	} else {
		ix.dropEnd(g, si, e)
	}
}

// set returns the position in posts of the set of trigram t, making an
// empty one if there is none.
func (ix *searchIndex) set(t uint32) int32 {
	i, ok := ix.grams.get(t)
	if !ok {
		if n := len(ix.free); n > 0 {
			i = ix.free[n-1]
			ix.free = ix.free[:n-1]
		} else {
			i = int32(len(ix.posts))
			ix.posts = append(ix.posts, postings{})
		}
		ix.grams.put(t, i)
	}
	return i
}

// add puts slot si in the postings of trigram t.
func (ix *searchIndex) add(g *Graph, t uint32, si int32) {
	ix.posts[ix.set(t)].add(si, len(g.ends))
}

// remove takes slot si out of the postings of trigram t.
func (ix *searchIndex) remove(g *Graph, t uint32, si int32) {
	i, ok := ix.grams.get(t)
	if !ok {
		return
	}
	p := &ix.posts[i]
	p.remove(si, len(g.ends))
	if p.n == 0 {
		*p = postings{}
		ix.grams.remove(t)
		ix.free = append(ix.free, i)
	}
}

// sameText reports whether two versions of a node have the same searchable
// fields. The id is the slot's and cannot differ.
func sameText(a, b *Node) bool {
	return a.Gist == b.Gist && slices.Equal(a.Notes, b.Notes) && slices.Equal(a.Touches, b.Touches)
}

// appendSearchFields appends to fs the fields a node is searched by
// (docs/design/mcp.md#kg_search): its id, gist, notes and touches, each
// lower-cased.
func appendSearchFields(fs []string, n *Node) []string {
	fs = append(fs, strings.ToLower(n.ID), strings.ToLower(n.Gist))
	for _, s := range n.Notes {
		fs = append(fs, strings.ToLower(s))
	}
	for _, s := range n.Touches {
		fs = append(fs, strings.ToLower(s))
	}
	return fs
}

// spaceBytes has bit c set for each ASCII white-space byte c.
const spaceBytes = 1<<' ' | 1<<'\t' | 1<<'\n' | 1<<'\v' | 1<<'\f' | 1<<'\r'

// isSpaceByte reports whether c is ASCII white space. A term holds no
// white space of any kind (terms are split on it), and an ASCII white-space
// byte in UTF-8 text is always that character, so a trigram holding one is
// never a trigram of a term and need not be indexed.
func isSpaceByte(c byte) bool { return c <= ' ' && spaceBytes&(uint64(1)<<c) != 0 }

// appendGrams appends the trigrams of s to buf, repeats included, skipping
// those that hold white space.
func appendGrams(buf []uint32, s string) []uint32 {
	var w uint32 // the last bytes read, the latest lowest
	run := 0     // bytes read since the last white space
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isSpaceByte(c) {
			run = 0
			continue
		}
		w = w<<8 | uint32(c)
		if run++; run >= 3 {
			buf = append(buf, w&0xFFFFFF)
		}
	}
	return buf
}

// sortedGrams returns the distinct trigrams of the strings ss, sorted.
func sortedGrams(ss ...string) []uint32 {
	var g []uint32
	for _, s := range ss {
		g = appendGrams(g, s)
	}
	slices.Sort(g)
	return slices.Compact(g)
}

// matchTerm calls found for every node slot of g whose text holds term,
// with the number of non-overlapping occurrences, in ascending slot order.
// A term of three bytes or more is counted only in the slots that hold
// all of its trigrams; a shorter one, which has none, in every node: such a
// term is a letter or two, found in most nodes anyway, and an index of
// unigrams and bigrams would cost as much memory as the trigrams for
// little narrowing.
func (ix *searchIndex) matchTerm(g *Graph, term string, found func(si int32, count int)) {
	count := func(si int32) {
		c := 0
		for _, f := range ix.fields[si] {
			c += strings.Count(f, term)
		}
		ix.eachEnd(g, si, func(e int32) { c += strings.Count(ix.lower[e], term) })
		if c > 0 {
			found(si, c)
		}
	}
	if len(term) < 3 {
		for si := range ix.fields {
			if ix.fields[si] != nil {
				count(int32(si))
			}
		}
		return
	}
	grams := sortedGrams(term)
	lists := make([]*postings, len(grams))
	for i, t := range grams {
		if lists[i] = ix.postingsOf(t); lists[i] == nil {
			return // a trigram no node holds
		}
	}
	// Drive from the smallest set and test the others.
	slices.SortFunc(lists, func(a, b *postings) int { return int(a.n - b.n) })
	lists[0].each(func(si int32) {
		for _, p := range lists[1:] {
			if !p.has(si) {
				return
			}
		}
		count(si)
	})
}

// postings is a set of slots: a sorted array while it is small, a bitmap
// once the array would take more room than a bitmap of every slot, as in
// roaring bitmaps. Adding or removing a slot then costs at most a shift of
// an array of slots/32 entries, and a common trigram takes one bit per
// slot rather than 32.
type postings struct {
	n     int32    // how many slots are in the set
	slots []int32  // the set, sorted, while bits is nil
	bits  []uint64 // the set as a bitmap, when not nil
}

// bitmapAt is the size from which a set of slots out of nslots is kept as
// a bitmap; a bitmap goes back to an array below half of it, so that a set
// hovering at the threshold is not converted back and forth.
func bitmapAt(nslots int) int32 { return int32(max(64, nslots/32)) }

func (p *postings) has(si int32) bool {
	if p.bits != nil {
		w := int(si >> 6)
		return w < len(p.bits) && p.bits[w]&(1<<(si&63)) != 0
	}
	_, ok := slices.BinarySearch(p.slots, si)
	return ok
}

// add puts si in the set; nslots is the graph's number of slots.
func (p *postings) add(si int32, nslots int) {
	if p.bits != nil {
		w := int(si >> 6)
		if w >= len(p.bits) {
			p.bits = append(p.bits, make([]uint64, w+1-len(p.bits))...)
		}
		if p.bits[w]&(1<<(si&63)) == 0 {
			p.bits[w] |= 1 << (si & 63)
			p.n++
		}
		return
	}
	if n := len(p.slots); n == 0 || p.slots[n-1] < si {
		p.slots = append(p.slots, si) // the common case when building
	} else {
		i, ok := slices.BinarySearch(p.slots, si)
		if ok {
			return
		}
		p.slots = slices.Insert(p.slots, i, si)
	}
	p.n++
	if p.n > bitmapAt(nslots) {
		p.bits = make([]uint64, (nslots+63)/64)
		for _, s := range p.slots {
			p.bits[s>>6] |= 1 << (s & 63)
		}
		p.slots = nil
	}
}

// remove takes si out of the set; nslots is the graph's number of slots.
func (p *postings) remove(si int32, nslots int) {
	if p.bits != nil {
		w := int(si >> 6)
		if w >= len(p.bits) || p.bits[w]&(1<<(si&63)) == 0 {
			return
		}
		p.bits[w] &^= 1 << (si & 63)
		p.n--
		if p.n < bitmapAt(nslots)/2 {
			slots := make([]int32, 0, p.n)
			p.each(func(s int32) { slots = append(slots, s) })
			p.slots, p.bits = slots, nil
		}
		return
	}
	i, ok := slices.BinarySearch(p.slots, si)
	if !ok {
		return
	}
	p.slots = slices.Delete(p.slots, i, i+1)
	p.n--
	if cap(p.slots) > 64 && len(p.slots) < cap(p.slots)/4 {
		p.slots = slices.Clone(p.slots) // give back the room of a set that shrank
	}
}

// each calls f for every slot of the set, in ascending order.
func (p *postings) each(f func(si int32)) {
	if p.bits == nil {
		for _, s := range p.slots {
			f(s)
		}
		return
	}
	for w, word := range p.bits {
		for word != 0 {
			f(int32(w<<6 | bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
}
