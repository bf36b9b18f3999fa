package render

import (
	"strconv"
	"strings"
)

// NodeRead is what kg_read by id shows of one node
// (docs/design/mcp.md#kg_read), as plain values: the MCP adapter fills it
// from what app read.
type NodeRead struct {
	ID, Mark, Graph, Tier string // Graph names it in a sentence: "user graph", "project graph (my-app)"
	// RestoredFrom is the tier this read restored the node from; "" when
	// it was active or the restore was not saved.
	RestoredFrom         string
	Gist                 string
	Notes, Touches       []string
	Version              uint64
	Created, LastWritten string // RFC 3339; "" for none
	UseSessions          string // the use count in sessions: "1.49"
	LastCounted          string // 2006-01-02; "" for never counted
	Out, In              []EdgeEnd
	Rescued              []string
	// NotSaved says why restoring the node from WasTier could not be
	// saved; "" when it was, or needed no saving.
	NotSaved, WasTier string
}

// EdgeEnd is an edge of a node read by id, seen from the node.
type EdgeEnd struct {
	Key string // EdgeKey
	// Other is the other end's tier, and its graph's level when that is
	// not the node's ("active", "archived, user graph"); "" for a
	// reference (a file, a URL, an unknown id).
	Other string
	Notes []string
}

// WriteNodeRead appends the text of one node read by id to b.
func WriteNodeRead(b *strings.Builder, r NodeRead) {
	b.WriteString("=== NODE " + r.ID)
	if r.Mark != "" {
		b.WriteString(" " + r.Mark)
	}
	b.WriteString(" — " + r.Graph + ", " + r.Tier)
	if r.RestoredFrom != "" {
		b.WriteString(" (was " + r.RestoredFrom + "; this read restored it)")
	}
	b.WriteString(" ===\n")
	b.WriteString("gist: " + r.Gist + "\n")
	writeItems(b, "notes:\n", r.Notes)
	writeItems(b, "touches:\n", r.Touches)
	b.WriteString("version: " + strconv.FormatUint(r.Version, 10))
	if r.Created != "" {
		b.WriteString(", created " + r.Created)
	}
	if r.LastWritten != "" {
		b.WriteString(", last written " + r.LastWritten)
	}
	b.WriteByte('\n')
	b.WriteString("use: " + r.UseSessions + " sessions")
	if r.LastCounted != "" {
		b.WriteString(", last counted " + r.LastCounted)
	}
	b.WriteByte('\n')
	writeEnds(b, "EDGES OUT:\n", r.Out)
	writeEnds(b, "EDGES IN:\n", r.In)
	if len(r.Rescued) > 0 {
		b.WriteString("RESCUED (orphaned neighbours now archived): " + strings.Join(r.Rescued, ", ") + "\n")
	}
	if r.NotSaved != "" {
		b.WriteString("NOTE: restoring this " + r.WasTier + " node could not be saved (" + r.NotSaved + "); it stays " + r.WasTier + "\n")
	}
}

// writeItems appends a titled list, "  - item" a line; nothing for none.
func writeItems(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString(title)
	for _, s := range items {
		b.WriteString(Indent + "- " + s + "\n")
	}
}

func writeEnds(b *strings.Builder, title string, ends []EdgeEnd) {
	if len(ends) == 0 {
		return
	}
	b.WriteString(title)
	for _, e := range ends {
		b.WriteString(Indent + e.Key)
		if e.Other != "" {
			b.WriteString(" [" + e.Other + "]")
		}
		b.WriteByte('\n')
		for _, s := range e.Notes {
			b.WriteString(Indent + Indent + "- " + s + "\n")
		}
	}
}
