package search

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// searchPlan is a query worked out against the indexes searched: its terms
// with what each matches in each graph, and the statistics the scores need.
type searchPlan struct {
	terms      []planTerm
	n          int     // nodes searched
	bound      float64 // the most any node can score: Σ terms' bounds
	units      []planUnit
	exactID    string // the whole query, trimmed: a node of this id ranks first
	correction []Correction
	unmatched  []string // terms that match nothing and have no correction
	weak       bool     // some terms are weak, and another one matches something
	work       Work
}

// Work counts what a search reads, so that tests can hold its cost
// to a bound without a clock (docs/decisions/0073-short-terms-match-whole-words.md).
type Work struct {
	Lexicon  int // lexicon words read to find the longer words holding a term
	Lists    int // posting lists opened by the top-k walk
	Postings int // postings read: primed, stepped over or sought by a cursor, looked up for a score
	Nodes    int // nodes scored
}

// Total is the work as one figure: every word and posting read, and every
// node scored.
func (w Work) Total() int { return w.Lexicon + w.Lists + w.Postings + w.Nodes }

// planTerm is one term of the query.
type planTerm struct {
	clauses []planClause
	bound   float64 // the most the term can add to a score
	// weak: the term counts only in nodes a strong term of the query
	// matches (IsWeak; searchPlan.weak says whether any term is).
	weak bool
	// words[gi] lists the words of graph gi the term counts, by word number,
	// each with its clause.
	words [][]termWord
}

type termWord struct{ word, clause int32 }

// planClause is one way a term matches: its stem, a longer word that holds
// it, or a correction.
type planClause struct {
	label  string  // the term as it matched, for SearchHit.Matched
	weight float64 // kind weight × IDF
	sub    bool    // a longer word holding the term
}

// planUnit is one way into the nodes for the top-k search: the words of a
// term's stem (or correction), or the longer words holding it, with the
// most a node holding one of them can gain from the term. A term is split
// in two so that its substring matches, which count at most SubWeight,
// stop being a way in as soon as they cannot reach the threshold.
type planUnit struct {
	term  int
	bound float64
	words [][]termWord // words[gi]: the words of graph gi, by number, with their clauses
}

// planSearch works out terms against indexes (nil skipped).
func planSearch(indexes []*Index, query string, terms []string) *searchPlan {
	p := &searchPlan{exactID: strings.TrimSpace(query)}
	for _, ix := range indexes {
		if ix != nil {
			p.n += ix.count
		}
	}
	// Stop words count less, unless the query holds nothing else.
	stops := 0
	for _, t := range terms {
		if IsStopWord(t) {
			stops++
		}
	}
	for _, t := range terms {
		kw := 1.0
		if stops < len(terms) && IsStopWord(t) {
			kw = StopWeight
		}
		p.addTerm(indexes, t, kw)
	}
	p.settleWeak()
	return p
}

// addTerm works out term t, of kind weight kw, against indexes: the words
// of its stem, the longer words holding it, or else its correction.
func (p *searchPlan) addTerm(indexes []*Index, t string, kw float64) {
	pt := planTerm{words: make([][]termWord, len(indexes))}
	stem := Stem(t)
	df := stemDF(indexes, stem)
	subs := p.holding(indexes, t, stem)
	if df > 0 {
		pt.addStem(indexes, t, stem, kw*IDF(p.n, df))
	}
	// Longer words holding the term, by text: each is a clause with the
	// rarity of that word, never above the term's own.
	texts := make([]string, 0, len(subs))
	for text := range subs {
		texts = append(texts, text)
	}
	slices.Sort(texts)
	for _, text := range texts {
		s := subs[text]
		w := IDF(p.n, s.df)
		if df > 0 {
			w = min(w, IDF(p.n, df))
		}
		c := int32(len(pt.clauses))
		pt.clauses = append(pt.clauses, planClause{label: t, weight: kw * SubWeight * w, sub: true})
		for _, gw := range s.words {
			pt.words[gw.g] = append(pt.words[gw.g], termWord{gw.w, c})
		}
	}
	if len(pt.clauses) == 0 {
		if !p.correct(indexes, t, &pt) {
			p.unmatched = append(p.unmatched, t)
		}
	}
	for gi := range pt.words {
		slices.SortFunc(pt.words[gi], func(a, b termWord) int { return int(a.word - b.word) })
	}
	for _, c := range pt.clauses {
		pt.bound = max(pt.bound, c.weight*(K1+1))
	}
	p.bound += pt.bound
	pt.weak = IsWeak(t, df, p.n)
	p.addUnits(len(p.terms), &pt, indexes)
	p.terms = append(p.terms, pt)
}

// holdingWords are the words of one text, in every graph, that hold a
// term, and how many nodes hold them.
type holdingWords struct {
	df    int
	words []graphWord
}

type graphWord struct{ g, w int32 }

// holding returns, by text, the longer words of indexes that hold term t
// (of stem), none for a term of fewer than SubMinRunes letters.
func (p *searchPlan) holding(indexes []*Index, t, stem string) map[string]*holdingWords {
	subs := map[string]*holdingWords{}
	for gi, ix := range indexes {
		if ix == nil || utf8.RuneCountInString(t) < SubMinRunes {
			continue
		}
		p.work.Lexicon += ix.grams.Holding(t, ix.wordText, func(w int32) {
			if ix.stemText(w) == stem {
				return
			}
			s := subs[ix.words[w].text]
			if s == nil {
				s = &holdingWords{}
				subs[ix.words[w].text] = s
			}
			s.df += len(ix.words[w].posts)
			s.words = append(s.words, graphWord{int32(gi), w})
		})
	}
	return subs
}

// settleWeak keeps the weak terms weak only when a strong term matches
// something: a query of only weak terms ("the n"), or whose strong terms
// match nothing, is searched with every term counting alone.
func (p *searchPlan) settleWeak() {
	for _, pt := range p.terms {
		if !pt.weak && len(pt.clauses) > 0 {
			p.weak = slices.ContainsFunc(p.terms, func(pt planTerm) bool { return pt.weak })
			return
		}
	}
	for ti := range p.terms {
		p.terms[ti].weak = false
	}
}

// strongUnit reports whether unit ui finds nodes of its own: its term is
// not weak.
func (p *searchPlan) strongUnit(ui int) bool { return !p.terms[p.units[ui].term].weak }

// addUnits adds the units of term ti: its stem or correction, then the
// longer words holding it, each if it has a clause. A unit's bound is the
// most one of its clauses can give: its weight × the part of the most a
// node of some graph can count its words (lexWord.maxTF).
func (p *searchPlan) addUnits(ti int, pt *planTerm, indexes []*Index) {
	maxTF := make([]int32, len(pt.clauses)) // Σ maxTF of a clause's words in one graph
	for _, sub := range []bool{false, true} {
		u := planUnit{term: ti, words: make([][]termWord, len(indexes))}
		found := false
		for gi, ws := range pt.words {
			clear(maxTF)
			for _, tw := range ws {
				if pt.clauses[tw.clause].sub == sub {
					u.words[gi] = append(u.words[gi], tw)
					maxTF[tw.clause] += indexes[gi].words[tw.word].maxTF
					found = true
				}
			}
			for c, tf := range maxTF {
				if tf > 0 {
					u.bound = max(u.bound, pt.clauses[c].weight*Saturate(float64(tf)))
				}
			}
		}
		if found {
			p.units = append(p.units, u)
		}
	}
}

// nearWord is a word of the indexes near a term: its text, its distance, and
// how many nodes hold its stem.
type nearWord struct {
	text string
	dist int
	df   int
}

// nearWords returns the words of indexes within max edits of term, the
// nearest first, then by the nodes holding their stem (most first), then
// by text.
func nearWords(indexes []*Index, term string, max int) []nearWord {
	found := map[string]*nearWord{}
	for _, ix := range indexes {
		if ix == nil {
			continue
		}
		ix.grams.Near(term, max, len(ix.words), ix.wordText, func(w int32, d int) {
			text := ix.words[w].text
			if found[text] == nil {
				found[text] = &nearWord{text: text, dist: d}
			}
		})
	}
	out := make([]nearWord, 0, len(found))
	for _, nw := range found {
		nw.df = stemDF(indexes, Stem(nw.text))
		out = append(out, *nw)
	}
	slices.SortFunc(out, func(a, b nearWord) int {
		switch {
		case a.dist != b.dist:
			return a.dist - b.dist
		case a.df != b.df:
			return b.df - a.df
		}
		return strings.Compare(a.text, b.text)
	})
	return out
}

// stemDF returns how many nodes of indexes hold a word of stem.
func stemDF(indexes []*Index, stem string) int {
	df := 0
	for _, ix := range indexes {
		if ix == nil {
			continue
		}
		df += ix.stemDF(stem)
	}
	return df
}

// correct gives a term that matches nothing its correction: the nearest
// word of the indexes within TypoMax edits, matched by its stem at
// TypoWeight. It reports whether there was one.
func (p *searchPlan) correct(indexes []*Index, t string, pt *planTerm) bool {
	max := TypoMax(utf8.RuneCountInString(t))
	if max == 0 {
		return false
	}
	near := nearWords(indexes, t, max)
	if len(near) == 0 {
		return false
	}
	used := near[0].text
	p.correction = append(p.correction, Correction{Term: t, Used: used})
	stem := Stem(used)
	pt.addStem(indexes, used, stem, TypoWeight*IDF(p.n, stemDF(indexes, stem)))
	return true
}

// addStem adds to the term a clause that counts the words of stem, shown
// as label.
func (pt *planTerm) addStem(indexes []*Index, label, stem string, weight float64) {
	c := int32(len(pt.clauses))
	pt.clauses = append(pt.clauses, planClause{label: label, weight: weight})
	for gi, ix := range indexes {
		if ix == nil {
			continue
		}
		ix.eachStemWord(stem, func(w int32) {
			pt.words[gi] = append(pt.words[gi], termWord{w, c})
		})
	}
}

// termScore returns what term ti adds to the score of node slot si of
// graph gi, whose index is ix, and the clause that gave it (-1 for none).
// tf is scratch room, one entry per clause.
// at, when not nil, holds a position in the posting list of each of the
// term's words (by its place in words[gi]) that the lookups start from and
// move (postingsCursor); nil looks each word up afresh.
func (p *searchPlan) termScore(ti, gi int, ix *Index, si int32, tf []float64, at []int) (float64, int) {
	pt := &p.terms[ti]
	touched := false
	for k, tw := range pt.words[gi] {
		var n int32
		p.work.Postings++
		if at != nil {
			n = tfFrom(ix.words[tw.word].posts, &at[k], si)
		} else {
			n = ix.tf(tw.word, si)
		}
		if n > 0 {
			tf[tw.clause] += float64(n)
			touched = true
		}
	}
	if !touched {
		return 0, -1
	}
	best, which := 0.0, -1
	for c := range pt.clauses {
		if tf[c] == 0 {
			continue
		}
		v := pt.clauses[c].weight * Saturate(tf[c])
		tf[c] = 0
		if v > best {
			best, which = v, c
		}
	}
	return best, which
}

// tfFrom returns how many times node slot si counts the word of posts (0
// if it does not hold it), starting from the place *at of an earlier
// lookup and leaving *at at si's place (seekFrom).
func tfFrom(posts []Posting, at *int, si int32) int32 {
	if i := seekFrom(posts, at, si); i < len(posts) && posts[i].slot == si {
		return posts[i].tf
	}
	return 0
}

// seekFrom returns the place in posts of the first posting of slot si or
// after, and leaves it in *at, the place of an earlier seek it starts
// from. The search asks about slots mostly in ascending order, block after
// block, so a seek is usually a few steps forward from the last (steps
// that double, then a binary search within the last one) rather than a
// binary search over the whole list; a slot not after the last place is
// looked for from the start.
func seekFrom(posts []Posting, at *int, si int32) int {
	lo := *at
	if lo > len(posts) || lo > 0 && posts[lo-1].slot >= si {
		lo = 0
	}
	// Every posting before lo is of a slot before si.
	hi := len(posts)
	for step := 1; lo < len(posts); step *= 2 {
		end := lo + step
		if end >= len(posts) {
			break
		}
		if posts[end-1].slot >= si {
			hi = end
			break
		}
		lo = end
	}
	i := searchSlot(posts[lo:hi], si)
	*at = lo + i
	return lo + i
}
