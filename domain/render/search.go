package render

import (
	"fmt"
	"strconv"
	"strings"
)

// Search is what kg_search shows (docs/design/mcp.md#kg_search), as plain
// values: the MCP adapter fills it from what app found.
type Search struct {
	Query       string
	Hits        []SearchHit // best first
	Corrections []Correction
	Nearest     []Nearest // shown only when there are no hits
	Unavailable []string  // why each graph not searched was not
}

// SearchHit is one hit of kg_search.
type SearchHit struct {
	Where          string // the graph it is in: "user", "project my-app"
	ID, Mark, Tier string // Mark: "[stale: …]" or ""
	Gist           string
	Score          float64
	Matched, Notes []string
}

// Correction is a term that matched nothing and the word searched in its
// place.
type Correction struct{ Term, Used string }

// Nearest is a term that matched nothing and the nearest spelling of it in
// memory.
type Nearest struct{ Term, Nearest string }

// SearchText is the text of kg_search. The hits, most of the answer, are
// written without fmt: this is the hot path of a search
// (docs/performance.md#search-through-the-client).
func SearchText(s Search) string {
	var b strings.Builder
	b.Grow(searchSize(s.Hits))
	for _, c := range s.Corrections {
		fmt.Fprintf(&b, "No exact match for %q; showing %q\n", c.Term, c.Used)
	}
	if len(s.Hits) == 0 {
		fmt.Fprintf(&b, "No nodes match %q\n", s.Query)
		for _, n := range s.Nearest {
			fmt.Fprintf(&b, "Nearest spelling of %q in memory: %q\n", n.Term, n.Nearest)
		}
	} else {
		fmt.Fprintf(&b, "%s for %q (kg_read with id shows one in full and restores it):\n", Plural(len(s.Hits), "node found", "nodes found"), s.Query)
	}
	for i := range s.Hits {
		writeSearchHit(&b, &s.Hits[i])
	}
	for _, why := range s.Unavailable {
		fmt.Fprintf(&b, "Not searched: %s\n", why)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// searchSize is about the length of a search's text, so that it is built
// in one buffer.
func searchSize(hits []SearchHit) int {
	size := 128
	for _, h := range hits {
		size += 64 + len(h.ID) + len(h.Mark) + len(h.Gist)
		for _, m := range h.Matched {
			size += 1 + len(m)
		}
		for _, s := range h.Notes {
			size += 7 + len(s)
		}
	}
	return size
}

// writeSearchHit appends the lines of one hit to b:
// "  [where] id (tier, score 1.2345, matched a b): gist", then
// "    - note" a line each.
func writeSearchHit(b *strings.Builder, h *SearchHit) {
	b.WriteString("  [")
	b.WriteString(h.Where)
	b.WriteString("] ")
	b.WriteString(h.ID)
	if h.Mark != "" {
		b.WriteByte(' ')
		b.WriteString(h.Mark)
	}
	b.WriteString(" (")
	b.WriteString(h.Tier)
	b.WriteString(", score ")
	var num [32]byte
	b.Write(strconv.AppendFloat(num[:0], h.Score, 'f', 4, 64))
	for i, m := range h.Matched {
		if i == 0 {
			b.WriteString(", matched ")
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(m)
	}
	b.WriteString("): ")
	b.WriteString(h.Gist)
	b.WriteByte('\n')
	for _, s := range h.Notes {
		b.WriteString("    - ")
		b.WriteString(s)
		b.WriteByte('\n')
	}
}
