package mcp

// Pieces of text that more than one tool uses.
// Everything that belongs to one tool is in that tool's file.

import (
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/duplicates"
	"github.com/kg-memory/kg/domain/render"
	"github.com/kg-memory/kg/domain/secrets"
)

// graphTitle is "USER GRAPH" or "PROJECT GRAPH (name)".
func graphTitle(level domain.Level, name string) string {
	return render.GraphTitle(level != domain.LevelUser, name)
}

// plural is "1 node" or "3 nodes".
func plural(n int, one, many string) string { return render.Plural(n, one, many) }

// movesLine is "\nCompaction: archived a, b; restored c", or "" when the
// run moved nothing.
func movesLine(m compaction.Moves) string {
	return render.MovesLine(m.Archived, m.Restored, m.Orphaned, m.Pruned)
}

// redactedLine is "\nRedacted: notes[1] looked like an AWS access key
// (chars 12–31), stored as [REDACTED:aws-access-key]", one finding after
// another, or "" for none (KG_SECRETS=redact, docs/design/trust.md#secrets).
func redactedLine(fs []secrets.Finding) string {
	rs := make([]render.Redaction, len(fs))
	for i, f := range fs {
		rs[i] = render.Redaction{Field: f.Field, Label: f.Kind.Label, Start: f.Start + 1, End: f.End, StoredAs: f.RedactedAs()}
	}
	return render.RedactedLine(rs)
}

// duplicatesLine is "\nPossible duplicates: auth-token-refresh (0.86),
// Auth_Token (same id)", or "" for none (docs/design/trust.md#duplicates).
func duplicatesLine(ds []duplicates.Match) string {
	out := make([]render.Duplicate, len(ds))
	for i, d := range ds {
		out[i] = render.Duplicate{ID: d.ID, ByID: d.ByID, Score: d.Score}
	}
	return render.DuplicatesLine(out)
}
