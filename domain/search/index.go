package search

import (
	"slices"
)

// The search index (docs/decisions/0045-word-index-for-search.md). kg_search
// ranks nodes by the words they hold (text.go), so each graph keeps an
// inverted index of words, as text-search engines do:
//
//   - the lexicon: every word some node's text holds, with its postings, the
//     node slots holding it in ascending order, each with how many times the
//     node counts it (tf: HeadWeight × its count in the id and gist, plus its
//     count in the rest of the text), and its stem;
//   - the stems: for each stem, the words that have it and the number of
//     nodes holding one of them (its document frequency). Only a word of
//     letters has an entry: any other word (an id, a number, a path) is
//     its own stem, held by the nodes of its postings, so a graph whose
//     every node id is a word of its own pays no stem for each;
//   - for a word held by many nodes, its block maxima: the most any node
//     of each run of 64 slots counts it, the bound that lets the
//     top-k search skip the runs that cannot reach the k-th best score
//     (topk.go);
//   - a trigram index of the lexicon (not of the text), padded at both ends
//     of a word: it finds the words holding a term (substring matches) and
//     the words a few edits from one (the typo fallback) without reading
//     every word (WordGrams).
//
// A node's text (docs/design/mcp.md#kg_search) is its id, gist, notes and
// touches and the ends of its edges that are not nodes of its graph: file
// paths, artifacts, ids not created yet, and, from a project graph, ids of the
// user graph. An end counts once per edge. So the text of a node changes when
// it is written, when an edge between it and a reference is put or deleted, and
// when a node named like one of its ends is created or deleted.
//
// A graph builds its index on its first search, not when it is created or
// loaded: a server that loads a large graph to write to it, read it or
// compact it never pays for an index it does not use. From then on the
// index lives in the graph, which keeps it exact by telling it of every
// change of a node's text (AddNode, RemoveNode, Rewrite, EndChanged) from
// the same primitives that keep its adjacency index, so Rollback, which
// replays the undo journal through them, takes it back too. The index
// knows the graph only by its slots and the texts it is given: it imports
// nothing of domain (docs/decisions/0087-search-index-in-its-own-package.md).
// The build is given the nodes in slot order (Builder), so that every
// postings list is filled at its end.

// Index is a graph's search index. Slots are the graph's end slots.
type Index struct {
	words     []lexWord // by word number; a free number has an empty text
	wordIx    map[string]int32
	freeWords []int32

	stems     []lexStem // by stem number; a free number has no words
	stemIx    map[string]int32
	freeStems []int32

	// grams is the trigram index of the lexicon: for each trigram of a
	// padded word, the word numbers holding it.
	grams WordGrams

	// blocks holds the block maxima of the words that have them, by
	// lexWord.blk - 1; freeBlocks the numbers of lists given back.
	blocks     [][]uint8
	freeBlocks []int32
	// A block is 1<<blockShift slots; blockMin is the fewest postings a
	// word has block maxima with (DefaultBlockShift, DefaultBlockMin; tests
	// make them small).
	blockShift uint8
	blockMin   int32

	count int // nodes indexed
}

// lexWord is one word of the lexicon.
type lexWord struct {
	text  string
	stem  int32     // its stem's number; ownStem for a word that is not of letters
	blk   int32     // 1 + the number of its block maxima in blocks; 0 for none
	posts []Posting // the nodes holding the word, by slot
	// maxTF is at least the most any node counts the word: it grows with
	// a count and is left when one falls, so it is a bound the top-k
	// search may use, never a figure it reports.
	maxTF int32
}

// Posting is a node holding a word, and how many times it counts it.
type Posting struct{ slot, tf int32 }

// lexStem is one stem: its words and how many nodes hold one of them.
type lexStem struct {
	text  string
	words []int32
	df    int32
}

// ownStem is the stem of a word that has no stem entry: itself.
const ownStem = -1

// Block maxima (docs/decisions/0053-search-index-on-first-search-and-block-max.md): the
// slots of a graph are cut into blocks of 1<<DefaultBlockShift (64), and a word held by at
// least blockMin nodes keeps, per block, the most a node of the block
// counts it (capped at maxBlockTF, which stands for "lexWord.maxTF or
// less"). One byte a block: a word gets them only when its postings, eight
// bytes each, are at least half as many as its blocks.
const (
	DefaultBlockShift = 6
	DefaultBlockMin   = 256
	maxBlockTF        = 255
)

func newIndex(blockShift uint8, blockMin int32) *Index {
	return &Index{wordIx: map[string]int32{}, stemIx: map[string]int32{}, blockShift: blockShift, blockMin: blockMin}
}

// block returns the block of slot si.
func (ix *Index) block(si int32) int32 { return si >> ix.blockShift }

// blockStart returns the first slot of block j.
func (ix *Index) blockStart(j int32) int32 { return j << ix.blockShift }

// Doc is the text of a node that is its own: its id, gist, notes and
// touches. The rest of its text is the names of the ends of its edges that
// are not nodes, which the graph gives beside it.
type Doc struct {
	ID, Gist       string
	Notes, Touches []string
}

// Builder indexes every node of a graph at once, with block maxima for the
// words held by blockMin nodes or more. It is given the nodes in slot
// order, once (Add): each token of a node's text is looked up in the
// lexicon (which grows as words come) and counted against the node by its
// word number, and the nodes' postings are gathered in chunks, with the
// number of postings of each word. Then (Index) each word's list is a
// window of one arena of its final size, filled in slot order, so that no
// list is grown and left with room to spare. The trigrams of the lexicon
// come last, word by word.
type Builder struct{ b indexBuilder }

// NewBuilder returns a Builder of an index of about nodes nodes.
func NewBuilder(nodes int, blockShift uint8, blockMin int32) *Builder {
	ix := newIndex(blockShift, blockMin)
	// Most graphs have a word of their own per node (its id).
	ix.wordIx = make(map[string]int32, nodes)
	ix.words = make([]lexWord, 0, nodes+1024)
	return &Builder{indexBuilder{ix: ix}}
}

// Add indexes the node of slot si, after every node of a lower slot: its
// own text d, and the names of its ends that are not nodes, one per edge.
func (b *Builder) Add(si int32, d *Doc, ends []string) { b.b.addNode(si, d, ends) }

// Index returns the index of the nodes added.
func (b *Builder) Index() *Index {
	bb := &b.b
	ix := bb.ix
	arena := make([]Posting, bb.total)
	off := 0
	for w := range ix.words {
		ix.words[w].posts = arena[off : off : off+int(bb.count[w])]
		off += int(bb.count[w])
	}
	bb.count, bb.seen, bb.at, bb.stemSeen = nil, nil, nil, nil
	ni := 0
	for ci, chunk := range bb.chunks {
		for _, x := range chunk {
			for bb.nodes[ni].left == 0 {
				ni++
			}
			bb.nodes[ni].left--
			lw := &ix.words[x.word]
			lw.posts = append(lw.posts, Posting{bb.nodes[ni].slot, x.tf})
		}
		bb.chunks[ci] = nil // read: let it go
	}
	for w := range ix.words {
		ix.grams.Add(ix.words[w].text, int32(w), len(ix.words))
		ix.maybeBlocks(int32(w))
	}
	return ix
}

// indexBuilder gathers the postings of a Builder node by node.
type indexBuilder struct {
	ix       *Index
	chunks   [][]gathered // the postings, node after node, in slot order
	nodes    []builtNode  // the nodes, in slot order
	total    int          // postings gathered
	count    []int32      // by word: its postings
	seen     []int32      // by word: 1 + the slot of the last node that counted it
	at       []int32      // by word: its place in node while seen says it is there
	stemSeen []int32      // by stem: 1 + the slot of the last node counted in its df
	node     []gathered   // the postings of the node being read
	toks     []string
}

type gathered struct{ word, tf int32 }

// builtNode is a node read by an indexBuilder: its slot, and how many of
// its postings are yet to be put in their lists.
type builtNode struct{ slot, left int32 }

// gatherChunk is the length of a chunk of gathered postings: 128 KiB.
const gatherChunk = 1 << 14

// addNode gathers the postings of the node of slot si.
func (b *indexBuilder) addNode(si int32, d *Doc, ends []string) {
	b.node = b.node[:0]
	b.text(si, d.ID, HeadWeight)
	b.text(si, d.Gist, HeadWeight)
	for _, s := range d.Notes {
		b.text(si, s, 1)
	}
	for _, s := range d.Touches {
		b.text(si, s, 1)
	}
	for _, name := range ends {
		b.text(si, name, 1)
	}

	ix := b.ix
	for _, x := range b.node {
		b.count[x.word]++
		lw := &ix.words[x.word]
		lw.maxTF = max(lw.maxTF, x.tf)
		if s := lw.stem; s != ownStem && b.stemSeen[s] != si+1 {
			b.stemSeen[s] = si + 1
			ix.stems[s].df++
		}
		if len(b.chunks) == 0 || len(b.chunks[len(b.chunks)-1]) == gatherChunk {
			b.chunks = append(b.chunks, make([]gathered, 0, gatherChunk))
		}
		c := &b.chunks[len(b.chunks)-1]
		*c = append(*c, x)
	}
	b.total += len(b.node)
	b.nodes = append(b.nodes, builtNode{si, int32(len(b.node))})
	b.ix.count++
}

// text counts the words of s against the node in slot si, tf times each.
func (b *indexBuilder) text(si int32, s string, tf int32) {
	ix := b.ix
	b.toks = AppendWords(b.toks[:0], s)
	for _, tok := range b.toks {
		w, ok := ix.wordIx[tok]
		if !ok {
			w = ix.addWord(tok, false)
			b.count, b.seen, b.at = append(b.count, 0), append(b.seen, 0), append(b.at, 0)
			if st := ix.words[w].stem; st != ownStem && int(st) >= len(b.stemSeen) {
				b.stemSeen = append(b.stemSeen, make([]int32, int(st)+1-len(b.stemSeen))...)
			}
		}
		if b.seen[w] != si+1 {
			b.seen[w], b.at[w] = si+1, int32(len(b.node))
			b.node = append(b.node, gathered{w, 0})
		}
		b.node[b.at[w]].tf += tf
	}
}

// wordCounts gathers the words of some text before they are applied to a
// node: each word with its counts.
type wordCounts struct {
	at   map[string]int // position in list
	list []wordDelta
	buf  []string
}

type wordDelta struct {
	text       string
	head, body int32
}

// smallCounts is the most words a wordCounts looks up by a scan of its
// list rather than by its map: a node's text mostly holds a few dozen.
const smallCounts = 32

// find returns the position of word w in the list, or -1.
func (ws *wordCounts) find(w string) int {
	if len(ws.list) > smallCounts {
		if i, ok := ws.at[w]; ok {
			return i
		}
		return -1
	}
	for i := range ws.list {
		if ws.list[i].text == w {
			return i
		}
	}
	return -1
}

func (ws *wordCounts) reset() {
	if ws.at == nil {
		ws.at = map[string]int{}
	}
	clear(ws.at)
	ws.list = ws.list[:0]
}

// add counts the words of text, in the head (the id and gist) or not.
func (ws *wordCounts) add(text string, head bool) {
	ws.buf = AppendWords(ws.buf[:0], text)
	for _, w := range ws.buf {
		i := ws.find(w)
		if i < 0 {
			i = len(ws.list)
			ws.list = append(ws.list, wordDelta{text: w})
			switch {
			case len(ws.list) == smallCounts+1:
				for j, d := range ws.list {
					ws.at[d.text] = j
				}
			case len(ws.list) > smallCounts:
				ws.at[w] = i
			}
		}
		if head {
			ws.list[i].head++
		} else {
			ws.list[i].body++
		}
	}
}

// fieldWords counts the words of a node's own fields.
func fieldWords(ws *wordCounts, d *Doc) {
	ws.add(d.ID, true)
	ws.add(d.Gist, true)
	for _, s := range d.Notes {
		ws.add(s, false)
	}
	for _, s := range d.Touches {
		ws.add(s, false)
	}
}

// nodeWords counts the words of the whole text of a node: its fields and
// its ends.
func nodeWords(ws *wordCounts, d *Doc, ends []string) {
	fieldWords(ws, d)
	for _, name := range ends {
		ws.add(name, false)
	}
}

// AddNode adds the node of slot si: its own text d and the names of its
// ends that are not nodes, one per edge. The graph then takes the node's
// name out of the text of its neighbours (EndChanged), where it was an end.
func (ix *Index) AddNode(si int32, d *Doc, ends []string) {
	var ws wordCounts
	ws.reset()
	nodeWords(&ws, d, ends)
	ix.apply(si, &ws, +1)
	ix.count++
}

// RemoveNode takes away the node of slot si, whose text was d and ends;
// the graph then puts its name back in the text of its neighbours
// (EndChanged), where it is an end again.
func (ix *Index) RemoveNode(si int32, d *Doc, ends []string) {
	var ws wordCounts
	ws.reset()
	nodeWords(&ws, d, ends)
	ix.apply(si, &ws, -1)
	ix.count--
}

// Rewrite records that the node of slot si, whose own text was old, now
// has n. A change that keeps the text (a tier change, a read stamp, a new
// version) costs one comparison of the fields.
func (ix *Index) Rewrite(si int32, old, n *Doc) {
	if sameText(old, n) {
		return
	}
	var ws wordCounts
	ws.reset()
	fieldWords(&ws, old)
	ix.apply(si, &ws, -1)
	ws.reset()
	fieldWords(&ws, n)
	ix.apply(si, &ws, +1)
}

// EndChanged adds (added) or takes away an end named name in the text of
// the node of slot si: an edge between it and a reference was put or
// deleted, or a neighbour stopped or started being a node.
func (ix *Index) EndChanged(si int32, name string, added bool) {
	var ws wordCounts
	ws.reset()
	ws.add(name, false)
	sign := int32(-1)
	if added {
		sign = +1
	}
	ix.apply(si, &ws, sign)
}

// apply adds sign × the counted words to the text of node slot si.
func (ix *Index) apply(si int32, ws *wordCounts, sign int32) {
	for _, d := range ws.list {
		w, ok := ix.wordIx[d.text]
		if !ok {
			w = ix.addWord(d.text, true)
		}
		lw := &ix.words[w]
		at, found := slices.BinarySearchFunc(lw.posts, si, cmpPostingSlot)
		tf := sign * (HeadWeight*d.head + d.body)
		if !found {
			// The node gains the word (sign is +1: a word it lacks is
			// never taken away).
			if lw.stem != ownStem && !ix.holdsStem(si, lw.stem) {
				ix.stems[lw.stem].df++
			}
			lw.posts = slices.Insert(lw.posts, at, Posting{si, tf})
			lw.maxTF = max(lw.maxTF, tf)
			ix.raiseBlock(w, si, tf)
			continue
		}
		p := &lw.posts[at]
		p.tf += tf
		lw.maxTF = max(lw.maxTF, p.tf)
		if p.tf > 0 {
			if tf > 0 {
				ix.raiseBlock(w, si, p.tf)
			} else {
				ix.recountBlock(w, si)
			}
			continue
		}
		// The node holds the word no more (tf is 0 exactly when both of
		// its counts are).
		lw.posts = slices.Delete(lw.posts, at, at+1)
		if lw.stem != ownStem && !ix.holdsStem(si, lw.stem) {
			ix.stems[lw.stem].df--
		}
		if len(lw.posts) == 0 {
			ix.dropWord(w)
			continue
		}
		if cap(lw.posts) > 64 && len(lw.posts) < cap(lw.posts)/4 {
			lw.posts = slices.Clone(lw.posts) // give back the room of a list that shrank
		}
		ix.recountBlock(w, si)
	}
}

func cmpPostingSlot(p Posting, si int32) int { return int(p.slot - si) }

// searchSlot returns the place in posts (ascending by slot) of the first
// posting of slot si or after: slices.BinarySearchFunc's answer, written
// out because the top-k search calls it for nearly every node it looks at
// and the generic version's call to its comparison is most of its cost.
func searchSlot(posts []Posting, si int32) int {
	lo, hi := 0, len(posts)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if posts[mid].slot < si {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// tf returns how many times node slot si counts word w; 0 if it does not
// hold it.
func (ix *Index) tf(w, si int32) int32 {
	posts := ix.words[w].posts
	if i := searchSlot(posts, si); i < len(posts) && posts[i].slot == si {
		return posts[i].tf
	}
	return 0
}

// holdsStem reports whether node slot si holds a word of stem s.
func (ix *Index) holdsStem(si, s int32) bool {
	for _, w := range ix.stems[s].words {
		if ix.tf(w, si) > 0 {
			return true
		}
	}
	return false
}

// stemText returns the stem of word w.
func (ix *Index) stemText(w int32) string {
	if s := ix.words[w].stem; s != ownStem {
		return ix.stems[s].text
	}
	return ix.words[w].text
}

// eachStemWord calls f with every word of stem, and returns how many nodes
// hold one of them.
func (ix *Index) eachStemWord(stem string, f func(w int32)) int {
	if s, ok := ix.stemIx[stem]; ok {
		for _, w := range ix.stems[s].words {
			f(w)
		}
		return int(ix.stems[s].df)
	}
	if w, ok := ix.wordIx[stem]; ok && ix.words[w].stem == ownStem {
		f(w)
		return len(ix.words[w].posts)
	}
	return 0
}

// stemDF returns how many nodes hold a word of stem.
func (ix *Index) stemDF(stem string) int { return ix.eachStemWord(stem, func(int32) {}) }

// addWord adds text to the lexicon with its stem, and with its trigrams
// when grams is true (buildSearchIndex adds those last).
func (ix *Index) addWord(text string, grams bool) int32 {
	w := takeFree(&ix.freeWords, &ix.words)
	ix.words[w] = lexWord{text: text, stem: ownStem}
	ix.wordIx[text] = w
	if IsLetters(text) { // any other word is its own stem (Stem)
		stemText := Stem(text)
		s, ok := ix.stemIx[stemText]
		if !ok {
			s = takeFree(&ix.freeStems, &ix.stems)
			ix.stems[s] = lexStem{text: stemText}
			ix.stemIx[stemText] = s
		}
		ix.stems[s].words = append(ix.stems[s].words, w)
		ix.words[w].stem = s
	}
	if grams {
		ix.grams.Add(text, w, len(ix.words))
	}
	return w
}

// dropWord takes word w, which no node holds any more, out of the lexicon.
func (ix *Index) dropWord(w int32) {
	lw := ix.words[w]
	ix.grams.Remove(lw.text, w, len(ix.words))
	if lw.stem != ownStem {
		st := &ix.stems[lw.stem]
		st.words = slices.DeleteFunc(st.words, func(x int32) bool { return x == w })
		if len(st.words) == 0 {
			delete(ix.stemIx, st.text)
			*st = lexStem{}
			ix.freeStems = append(ix.freeStems, lw.stem)
		}
	}
	ix.dropBlocks(w)
	delete(ix.wordIx, lw.text)
	ix.words[w] = lexWord{}
	ix.freeWords = append(ix.freeWords, w)
}

// blocksOf returns the block maxima of word w; nil when it has none.
func (ix *Index) blocksOf(w int32) []uint8 {
	if b := ix.words[w].blk; b > 0 {
		return ix.blocks[b-1]
	}
	return nil
}

// blockTF returns what a block maximum m stands for: at most that count.
func blockTF(m uint8, lw *lexWord) int32 {
	if m == maxBlockTF {
		return lw.maxTF
	}
	return int32(m)
}

func capBlockTF(tf int32) uint8 { return uint8(min(tf, maxBlockTF)) }

// maybeBlocks gives word w block maxima if it has none and is held by
// enough nodes: blockMin, and at least half as many as its blocks.
func (ix *Index) maybeBlocks(w int32) {
	lw := &ix.words[w]
	n := len(lw.posts)
	if lw.blk != 0 || n < int(ix.blockMin) || 2*n < int(ix.block(lw.posts[n-1].slot))+1 {
		return
	}
	bm := make([]uint8, ix.block(lw.posts[n-1].slot)+1)
	for _, p := range lw.posts {
		j := ix.block(p.slot)
		bm[j] = max(bm[j], capBlockTF(p.tf))
	}
	b := takeFree(&ix.freeBlocks, &ix.blocks)
	ix.blocks[b] = bm
	lw.blk = b + 1
}

// takeFree returns the number of a free entry of list: the last of free,
// or a new zero entry at its end.
func takeFree[T any](free *[]int32, list *[]T) int32 {
	if n := len(*free); n > 0 {
		i := (*free)[n-1]
		*free = (*free)[:n-1]
		return i
	}
	var zero T
	*list = append(*list, zero)
	return int32(len(*list) - 1)
}

// dropBlocks takes the block maxima of word w away, if it has them.
func (ix *Index) dropBlocks(w int32) {
	lw := &ix.words[w]
	if lw.blk == 0 {
		return
	}
	ix.blocks[lw.blk-1] = nil
	ix.freeBlocks = append(ix.freeBlocks, lw.blk-1)
	lw.blk = 0
}

// raiseBlock records that node slot si now counts word w tf times, more
// than before.
func (ix *Index) raiseBlock(w, si, tf int32) {
	lw := &ix.words[w]
	if lw.blk == 0 {
		ix.maybeBlocks(w)
		return
	}
	bm := &ix.blocks[lw.blk-1]
	j := int(ix.block(si))
	if j >= len(*bm) {
		*bm = append(*bm, make([]uint8, j+1-len(*bm))...)
	}
	(*bm)[j] = max((*bm)[j], capBlockTF(tf))
}

// recountBlock works out again the block maximum of word w over the block
// of slot si, after the count of si fell, or drops the word's block
// maxima once it is held by fewer than blockMin/2 nodes.
func (ix *Index) recountBlock(w, si int32) {
	lw := &ix.words[w]
	if lw.blk == 0 {
		return
	}
	if len(lw.posts) < int(ix.blockMin)/2 {
		ix.dropBlocks(w)
		return
	}
	base, end := ix.blockStart(ix.block(si)), ix.blockStart(ix.block(si)+1)
	i, _ := slices.BinarySearchFunc(lw.posts, base, cmpPostingSlot)
	m := uint8(0)
	for ; i < len(lw.posts) && lw.posts[i].slot < end; i++ {
		m = max(m, capBlockTF(lw.posts[i].tf))
	}
	ix.blocks[lw.blk-1][ix.block(si)] = m
}

// wordText returns the text of word w; empty for a free number.
func (ix *Index) wordText(w int32) string { return ix.words[w].text }

// sameText reports whether two versions of a node have the same searchable
// fields. The id is the slot's and cannot differ.
func sameText(a, b *Doc) bool {
	return a.Gist == b.Gist && slices.Equal(a.Notes, b.Notes) && slices.Equal(a.Touches, b.Touches)
}

// EachCandidate calls f with the slot of each node, once, that holds at
// least two of the rare rarest of words known to the index (or the one,
// when only one is known): a text near-identical to the words shares most
// of them (docs/design/trust.md#near-identical-gists). The nodes are read
// from the rarest word's postings (up to budget of them) and from the next
// ones' when they are that rare too; whether a node holds the others is a
// binary search. So f is called at most rare × budget times, whatever the
// size of the graph.
func (ix *Index) EachCandidate(words []string, rare, budget int, f func(si int32)) {
	var known []int32
	for _, w := range words {
		if wi, ok := ix.wordIx[w]; ok && !slices.Contains(known, wi) {
			known = append(known, wi)
		}
	}
	slices.SortFunc(known, func(a, b int32) int { return len(ix.words[a].posts) - len(ix.words[b].posts) })
	known = known[:min(len(known), rare)]
	var slots []int32
	for i, w := range known {
		posts := ix.words[w].posts
		if i > 0 && len(posts) > budget {
			break
		}
		for _, p := range posts[:min(len(posts), budget)] {
			slots = append(slots, p.slot)
		}
	}
	slices.Sort(slots)
	need := min(2, len(known))
	for _, si := range slices.Compact(slots) {
		held := 0
		for _, w := range known {
			if held < need && ix.tf(w, si) > 0 {
				held++
			}
		}
		if held >= need {
			f(si)
		}
	}
}
