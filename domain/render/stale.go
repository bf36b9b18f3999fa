package render

import (
	"strconv"
	"strings"
)

// StaleFile is one file a stale node names and how it changed ("changed",
// "vanished").
type StaleFile struct{ Path, Change string }

// StaleMark is a node's stale marks as the reads show them after its id
// (docs/design/trust.md#staleness): "[stale: src/auth/refresh.py changed]",
// at most three files named and the rest counted ("[stale: a changed, b
// vanished, c changed and 2 more]"); "" for a node without marks.
func StaleMark(files []StaleFile) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("[stale: ")
	for i, f := range files {
		if i == 3 {
			b.WriteString(" and ")
			b.WriteString(strconv.Itoa(len(files) - 3))
			b.WriteString(" more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Path)
		b.WriteByte(' ')
		b.WriteString(f.Change)
	}
	b.WriteByte(']')
	return b.String()
}
