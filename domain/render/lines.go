package render

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Indent starts every listed line of a section: a node, an edge, an id.
const Indent = "  "

// Section headers of the full read and the preload.
const (
	ActiveHeader = "ACTIVE:\n"
	EdgesHeader  = "EDGES:\n"
)

// Runes is the length of s in code points, the unit of every character
// budget of the texts (docs/design/hooks.md#the-preload).
func Runes(s string) int { return utf8.RuneCountInString(s) }

// EdgeKey is an edge's identity on one line: "from --rel--> to".
func EdgeKey(from, rel, to string) string { return from + " --" + rel + "--> " + to }

// CountedEdge is an edge as the full read and the preload list it: its key
// and how many notes it has, never the notes themselves
// (docs/design/mcp.md#full-read). Notes of any length on many edges would
// take the read past what its token estimate charges, and an edge to
// "Design — draft" would read like an edge to "Design" with the note
// "draft". A read by id and kg_sync show them.
func CountedEdge(key string, notes int) string {
	switch notes {
	case 0:
		return key
	case 1:
		return key + " (+1 note)"
	default:
		return key + " (+" + strconv.Itoa(notes) + " notes)"
	}
}

// Node is a node's listed line: "  id: gist\n", with Label before the id
// ("[user] " in a recall) and Mark after it ("[stale: …]") when set.
type Node struct {
	Label, ID, Mark, Gist string
}

// String is the line, newline included.
func (n Node) String() string {
	var b strings.Builder
	b.Grow(len(Indent) + len(n.Label) + len(n.ID) + len(n.Mark) + len(n.Gist) + 4)
	n.Write(&b)
	return b.String()
}

// Write appends the line to b: a text of many lines is built in one
// buffer, without a string per line.
func (n Node) Write(b *strings.Builder) {
	b.WriteString(Indent)
	b.WriteString(n.Label)
	b.WriteString(n.ID)
	if n.Mark != "" {
		b.WriteByte(' ')
		b.WriteString(n.Mark)
	}
	b.WriteString(": ")
	b.WriteString(n.Gist)
	b.WriteByte('\n')
}

// Len is the line's length in code points, newline included, without
// building it: a budget measures every candidate line, and writes few.
func (n Node) Len() int {
	c := len(Indent) + Runes(n.Label) + Runes(n.ID) + len(": ") + Runes(n.Gist) + 1
	if n.Mark != "" {
		c += 1 + Runes(n.Mark)
	}
	return c
}

// GraphTitle names a graph in a section header: "USER GRAPH", "PROJECT
// GRAPH", "PROJECT GRAPH (name)".
func GraphTitle(project bool, name string) string {
	switch {
	case !project:
		return "USER GRAPH"
	case name == "":
		return "PROJECT GRAPH"
	}
	return "PROJECT GRAPH (" + name + ")"
}

// GraphHeader is a graph's section header in the full read and the
// preload: "=== USER GRAPH — 12 active, 3 archived ===\n".
func GraphHeader(title string, active, archived int) string {
	return "=== " + title + " — " + strconv.Itoa(active) + " active, " + strconv.Itoa(archived) + " archived ===\n"
}
