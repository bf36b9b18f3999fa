package apijson

import (
	"github.com/kg-memory/kg/domain"
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
	Tier      string    `json:"tier"`
	Version   uint64    `json:"version"`
	Seq       uint64    `json:"seq"`
	UpdatedTS float64   `json:"updated_ts,omitempty"`
	// WrittenBy is the principal of the last write, in team mode
	// (docs/design/team.md#who-wrote-what); absent otherwise.
	WrittenBy string `json:"written_by,omitempty"`
}

// NodeOf returns the API shape of n.
func NodeOf(n *domain.Node) Node {
	out := Node{
		ID: n.ID, Gist: n.Gist, Notes: nonNil(n.Notes), Touches: nonNil(n.Touches),
		CreatedTS: Seconds(n.Created), LastReadTS: Seconds(n.LastRead),
		Archived: n.Tier != domain.Active, TierSeq: n.TierSeq,
		Tier: n.Tier.String(), Version: n.Version.V, Seq: n.Version.Seq, UpdatedTS: Seconds(n.Version.TS),
		WrittenBy: n.Version.Principal,
	}
	if n.Tier == domain.Orphaned {
		out.OrphanedTS = Seconds(n.OrphanedAt)
	}
	for _, t := range domain.UsefulMarks(n) {
		out.Useful = append(out.Useful, Seconds(t))
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
	Moves          []Move   `json:"moves"` // every move in the order made, each with its reason
	EstimateBefore int      `json:"estimate_before"`
	EstimateAfter  int      `json:"estimate_after"`
	OverBudget     bool     `json:"over_budget"`
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

// Rank is where a node stands in compaction's rank order: its recency and
// connectedness, their percentiles in the ranked population, its score and its
// grace. Connectedness is 66 × edges in + 33 × edges out, counting edges from
// and to active nodes (in integer hundredths,
// docs/design/compaction.md#recency-and-connectedness).
type Rank struct {
	RecencyTS      float64 `json:"recency_ts,omitempty"`
	Connectedness  int     `json:"connectedness"`
	PRecency       float64 `json:"p_recency"`
	PConnectedness float64 `json:"p_connectedness"`
	Score          float64 `json:"score"`
	Eligible       bool    `json:"eligible"`
	GraceLeftS     float64 `json:"grace_left_s"`
}

// RankOf returns the API shape of r.
func RankOf(r *domain.Rank) *Rank {
	if r == nil {
		return nil
	}
	return &Rank{
		RecencyTS: Seconds(r.Recency), Connectedness: r.Connectedness,
		PRecency: r.PRecency, PConnectedness: r.PConnectedness, Score: r.Score,
		Eligible: r.Eligible, GraceLeftS: Seconds(r.GraceLeft),
	}
}

// MovesOf returns the API shape of m.
func MovesOf(m domain.Moves) Moves {
	out := Moves{
		Archived: nonNil(m.Archived), Restored: nonNil(m.Restored), Orphaned: nonNil(m.Orphaned), Pruned: nonNil(m.Pruned),
		Moves:          make([]Move, 0, len(m.Steps)),
		EstimateBefore: m.EstimateBefore, EstimateAfter: m.EstimateAfter, OverBudget: m.OverBudget,
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
func MovesOrNil(m domain.Moves) *Moves {
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
