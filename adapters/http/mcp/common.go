package mcp

// Pieces of text and of structured output that more than one tool uses.
// Everything that belongs to one tool is in that tool's file.

import (
	"github.com/kg-memory/kg/domain"
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
func movesLine(m domain.Moves) string {
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

// redactionOut is a secret stored redacted.
type redactionOut struct {
	Field    string `json:"field"`
	Kind     string `json:"kind"`
	Start    int    `json:"start" jsonschema:"first char of the secret, from 1"`
	End      int    `json:"end" jsonschema:"last char of the secret, included"`
	StoredAs string `json:"stored_as"`
}

func redactedOutput(fs []secrets.Finding) []redactionOut {
	if len(fs) == 0 {
		return nil
	}
	out := make([]redactionOut, len(fs))
	for i, f := range fs {
		out[i] = redactionOut{Field: f.Field, Kind: f.Kind.ID, Start: f.Start + 1, End: f.End, StoredAs: f.RedactedAs()}
	}
	return out
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

// duplicateOut is a node a new one may duplicate.
type duplicateOut struct {
	ID    string  `json:"id"`
	By    string  `json:"by" jsonschema:"id: the same id but for case, - or _ and a plural s; gist: a near-identical gist"`
	Score float64 `json:"score" jsonschema:"how alike the gists are, 0 to 1; 1 for a match by id"`
}

func duplicatesOutput(ds []duplicates.Match) []duplicateOut {
	if len(ds) == 0 {
		return nil
	}
	out := make([]duplicateOut, len(ds))
	for i, d := range ds {
		out[i] = duplicateOut{ID: d.ID, By: duplicates.By(d), Score: d.Score}
	}
	return out
}

// movesOut is what a compaction run moved.
type movesOut struct {
	Archived []string `json:"archived,omitempty"`
	Restored []string `json:"restored,omitempty"`
	Orphaned []string `json:"orphaned,omitempty"`
	Pruned   []string `json:"pruned,omitempty"`
}

// movesOutput is m as structured output; nil when the run moved nothing.
func movesOutput(m domain.Moves) *movesOut {
	if m.Empty() {
		return nil
	}
	return &movesOut{Archived: m.Archived, Restored: m.Restored, Orphaned: m.Orphaned, Pruned: m.Pruned}
}

// nonNil returns s, or an empty list for nil: the output lists are always
// arrays, so a client never has to tell null from empty.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
