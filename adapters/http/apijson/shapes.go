package apijson

import (
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/duplicates"
	"github.com/kg-memory/kg/domain/recall"
	"github.com/kg-memory/kg/domain/secrets"
)

// Seconds renders a time as Unix seconds; 0 (unknown) stays 0, which the
// omitempty fields leave out.
func Seconds(t domain.Micros) float64 { return float64(t) / float64(domain.Second) }

// Node is a node as the API shows it: its stored fields under their stored
// names, plus its tier, version, the seq of its last change and the time of
// its last write.
type Node struct {
	ID         string   `json:"id"`
	Gist       string   `json:"gist"`
	Notes      []string `json:"notes"`
	Touches    []string `json:"touches"`
	CreatedTS  float64  `json:"_created_ts,omitempty"`
	LastReadTS float64  `json:"_last_read_ts,omitempty"`
	Archived   bool     `json:"_archived,omitempty"` // archived or orphaned, as the replaced server stored it
	OrphanedTS float64  `json:"_orphaned_ts,omitempty"`
	TierSeq    uint64   `json:"_tier_seq,omitempty"` // seq of the last tier change by compaction or rescue
	// Useful is when sessions marked the node useful with kg_useful, Unix
	// seconds, oldest first (docs/design/hooks.md#kg_useful).
	Useful    []float64 `json:"_useful,omitempty"`
	Use       uint64    `json:"_use"`     // the use count, 65,536 per session (docs/design/compaction.md#the-use-count)
	UseDay    int32     `json:"_use_day"` // the day it was last counted: Unix time / 86,400 s
	Tier      string    `json:"tier"`
	Version   uint64    `json:"version"`
	Seq       uint64    `json:"seq"`
	UpdatedTS float64   `json:"updated_ts,omitempty"`
	// WrittenBy is the principal of the last write, in team mode
	// (docs/design/team.md#who-wrote-what); absent otherwise.
	WrittenBy string `json:"written_by,omitempty"`
	// Stale lists the files the node recorded that changed or vanished
	// since it was written: it is possibly stale
	// (docs/design/trust.md#staleness); absent when none.
	Stale []StaleFile `json:"stale,omitempty"`
}

// StaleFile is a recorded file of a possibly stale node.
type StaleFile struct {
	Path   string `json:"path"`
	Change string `json:"change"` // "changed" or "vanished"
}

// NodeOf returns the API shape of n.
func NodeOf(n *domain.Node) Node {
	out := Node{
		ID: n.ID, Gist: n.Gist, Notes: nonNil(n.Notes), Touches: nonNil(n.Touches),
		CreatedTS: Seconds(n.Created), LastReadTS: Seconds(n.LastRead),
		Archived: n.Tier != domain.Active, TierSeq: n.TierSeq, Use: n.Use.Count, UseDay: n.Use.Day,
		Tier: n.Tier.String(), Version: n.Version.V, Seq: n.Version.Seq, UpdatedTS: Seconds(n.Version.TS),
		WrittenBy: n.Version.Principal,
	}
	if n.Tier == domain.Orphaned {
		out.OrphanedTS = Seconds(n.OrphanedAt)
	}
	for _, t := range recall.UsefulMarks(n) {
		out.Useful = append(out.Useful, Seconds(t))
	}
	for _, m := range n.Stale {
		out.Stale = append(out.Stale, StaleFile{Path: m.Path, Change: string(m.Change)})
	}
	return out
}

// Edge is an edge as the API shows it, notes included.
type Edge struct {
	From      string   `json:"from"`
	To        string   `json:"to"`
	Rel       string   `json:"rel"`
	Notes     []string `json:"notes"`
	Version   uint64   `json:"version"`
	Seq       uint64   `json:"seq"`
	UpdatedTS float64  `json:"updated_ts,omitempty"`
	WrittenBy string   `json:"written_by,omitempty"` // team mode: the principal of the last write
}

// EdgeOf returns the API shape of e.
func EdgeOf(e *domain.Edge) Edge {
	return Edge{From: e.From, To: e.To, Rel: e.Rel, Notes: nonNil(e.Notes),
		Version: e.Version.V, Seq: e.Version.Seq, UpdatedTS: Seconds(e.Version.TS), WrittenBy: e.Version.Principal}
}

// Moves is what a compaction run did or would do.
type Moves struct {
	Archived       []string `json:"archived"`
	Restored       []string `json:"restored"`
	Orphaned       []string `json:"orphaned"`
	Pruned         []string `json:"pruned"`
	Moves          []Move   `json:"moves"` // every move in the order made, each with its reason (the first ones, when MovesUnlisted > 0)
	EstimateBefore int      `json:"estimate_before"`
	EstimateAfter  int      `json:"estimate_after"`
	OverBudget     bool     `json:"over_budget"`
	// MovesUnlisted counts the moves made but not in Moves: an import
	// lists the first of them unless asked for all (docs/api.md). They are
	// in the id lists.
	MovesUnlisted int `json:"moves_unlisted,omitempty"`
}

// Move is one tier change with the facts that decided it.
type Move struct {
	ID     string `json:"id"`
	From   string `json:"from"`
	To     string `json:"to"` // "deleted" for a pruned node
	Pass   string `json:"pass"`
	Reason string `json:"reason"`
	Rank   *Rank  `json:"rank,omitempty"`
}

// Rank is where a node stands in compaction's rank order under the scoring
// it was computed with (docs/design/compaction.md#score): its recency, use
// count and connectedness, the percentiles its score is made of in the ranked
// population — p_use under "use", p_recency and p_connectedness under
// "seed"; the others are left out — its score and its grace. Connectedness
// is 66 × edges in + 33 × edges out, counting edges from and to active nodes
// (in integer hundredths, docs/design/compaction.md#recency-and-connectedness).
type Rank struct {
	Scoring        string   `json:"scoring"`
	RecencyTS      float64  `json:"recency_ts,omitempty"`
	Use            uint64   `json:"use"`     // the use count decayed to the run's day, 65,536 per session
	UseDay         int32    `json:"use_day"` // the day it was last counted
	Connectedness  int      `json:"connectedness"`
	PUse           *float64 `json:"p_use,omitempty"`
	PRecency       *float64 `json:"p_recency,omitempty"`
	PConnectedness *float64 `json:"p_connectedness,omitempty"`
	Score          float64  `json:"score"`
	Eligible       bool     `json:"eligible"`
	GraceLeftS     float64  `json:"grace_left_s"`
}

// RankOf returns the API shape of r.
func RankOf(r *compaction.Rank) *Rank {
	if r == nil {
		return nil
	}
	out := &Rank{
		Scoring: r.Scoring.String(), RecencyTS: Seconds(r.Recency), Use: r.Use, UseDay: r.UseDay, Connectedness: r.Connectedness,
		Score: r.Score, Eligible: r.Eligible, GraceLeftS: Seconds(r.GraceLeft),
	}
	out.PUse, out.PRecency, out.PConnectedness = Percentiles(r)
	return out
}

// Percentiles returns the percentiles r's score is made of under its
// scoring, nil for the others.
func Percentiles(r *compaction.Rank) (pUse, pRecency, pConnectedness *float64) {
	if r.Scoring == compaction.ScoringUse {
		return &r.PUse, nil, nil
	}
	return nil, &r.PRecency, &r.PConnectedness
}

// MovesOf returns the API shape of m.
func MovesOf(m compaction.Moves) Moves {
	out := Moves{
		Archived: nonNil(m.Archived), Restored: nonNil(m.Restored), Orphaned: nonNil(m.Orphaned), Pruned: nonNil(m.Pruned),
		Moves:          make([]Move, 0, len(m.Steps)),
		EstimateBefore: m.EstimateBefore, EstimateAfter: m.EstimateAfter, OverBudget: m.OverBudget,
		MovesUnlisted: m.Unlisted,
	}
	for i := range m.Steps {
		s := &m.Steps[i]
		mv := Move{ID: s.ID, From: s.From.String(), To: s.To.String(), Pass: s.Pass, Reason: s.Reason, Rank: RankOf(s.Rank)}
		if s.Pruned {
			mv.To = "deleted"
		}
		out.Moves = append(out.Moves, mv)
	}
	return out
}

// MovesOrNil is MovesOf, or nil when the run moved nothing: what a write's
// result carries.
func MovesOrNil(m compaction.Moves) *Moves {
	if m.Empty() {
		return nil
	}
	out := MovesOf(m)
	return &out
}

// nonNil makes an absent list an empty one, so clients always get an array.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Redaction is a secret a write held and that was stored replaced by
// [REDACTED:<kind>] (KG_SECRETS=redact, docs/design/trust.md#secrets): where,
// which kind, never the secret. Start and end are chars from 1, both
// included, as the error of block mode names them.
type Redaction struct {
	Field    string `json:"field"`
	Kind     string `json:"kind"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	StoredAs string `json:"stored_as"`
}

// RedactionsOf returns the API shape of fs; nil for none, which the
// omitempty fields leave out.
func RedactionsOf(fs []secrets.Finding) []Redaction {
	if len(fs) == 0 {
		return nil
	}
	out := make([]Redaction, len(fs))
	for i, f := range fs {
		out[i] = Redaction{Field: f.Field, Kind: f.Kind.ID, Start: f.Start + 1, End: f.End, StoredAs: f.RedactedAs()}
	}
	return out
}

// Duplicate is a node a new one may duplicate
// (docs/design/trust.md#duplicates): by "id" or by "gist", with how alike
// the gists are (1 for a match by id).
type Duplicate struct {
	ID    string  `json:"id"`
	By    string  `json:"by"`
	Score float64 `json:"score"`
}

// DuplicatesOf returns the API shape of ds; nil for none.
func DuplicatesOf(ds []duplicates.Match) []Duplicate {
	if len(ds) == 0 {
		return nil
	}
	out := make([]Duplicate, len(ds))
	for i, d := range ds {
		out[i] = Duplicate{ID: d.ID, By: duplicates.By(d), Score: d.Score}
	}
	return out
}
