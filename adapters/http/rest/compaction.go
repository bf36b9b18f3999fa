package rest

import (
	"net/http"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
)

// rankingJSON is where one node stands in compaction: its figures, and its
// place in the rank order (rank 1 is archived first). A node outside the
// ranked population (in grace, archived, orphaned) has rank, percentiles and
// score null. The percentiles are those of the plan's scoring: p_use under
// "use", p_recency and p_connectedness under "seed"; the others are left out.
type rankingJSON struct {
	ID             string   `json:"id"`
	Tier           string   `json:"tier"`
	Rank           *int     `json:"rank"`
	Score          *float64 `json:"score"`
	PUse           *float64 `json:"p_use,omitempty"`
	PRecency       *float64 `json:"p_recency,omitempty"`
	PConnectedness *float64 `json:"p_connectedness,omitempty"`
	RecencyTS      float64  `json:"recency_ts,omitempty"`
	Use            uint64   `json:"use"`     // the use count at now, 65,536 per session
	UseDay         int32    `json:"use_day"` // the day it was last counted
	Connectedness  int      `json:"connectedness"`
	Eligible       bool     `json:"eligible"` // not orphaned and past grace
	GraceLeftS     float64  `json:"grace_left_s"`
}

// weightsJSON is the formula of a node's score under KG_SCORING=seed (under
// use the score is p_use), so that what explains a ranking is the one
// compaction computes:
// score = recency × p_recency + connectedness × p_connectedness, and
// connectedness = in × edges in + out × edges out (edges from and to active
// nodes). An archived node swaps with one a run archives when it scores at
// least resurrection_margin more.
type weightsJSON struct {
	Recency            float64 `json:"recency"`
	Connectedness      float64 `json:"connectedness"`
	In                 int     `json:"in"`
	Out                int     `json:"out"`
	ResurrectionMargin float64 `json:"resurrection_margin"`
}

func rankingOf(rs []app.NodeRank) []rankingJSON {
	out := make([]rankingJSON, len(rs))
	for i := range rs {
		r := &rs[i]
		j := rankingJSON{ID: r.ID, Tier: r.Tier.String(), RecencyTS: apijson.Seconds(r.Recency), Use: r.Use, UseDay: r.UseDay,
			Connectedness: r.Connectedness, Eligible: r.Eligible, GraceLeftS: apijson.Seconds(r.GraceLeft)}
		if r.Position > 0 {
			j.Rank, j.Score = &r.Position, &r.Score
			j.PUse, j.PRecency, j.PConnectedness = apijson.Percentiles(&r.Rank)
		}
		out[i] = j
	}
	return out
}

// compactionPlan serves GET /api/compaction/plan?level&session_id&
// project_path: what a run would do now, each move with its reason, and
// the ranking of every node of the graph. It changes nothing.
func (a *API) compactionPlan(w http.ResponseWriter, r *http.Request) {
	ex, err := a.svc.ExplainCompaction(r.Context(), scopeOf(r, ""))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	apijson.Write(w, http.StatusOK, struct {
		Level          string  `json:"level"`
		Project        *string `json:"project"`
		Scoring        string  `json:"scoring"` // use or seed: what the scores are (docs/design/compaction.md#score)
		NowTS          float64 `json:"now_ts"`
		MaxTokens      int     `json:"max_tokens"`
		TargetTokens   int     `json:"target_tokens"`
		ArchivedBudget int     `json:"archived_budget"`
		apijson.Moves
		Weights weightsJSON   `json:"weights"`
		Ranking []rankingJSON `json:"ranking"`
	}{
		Level: string(ex.Key.Level), Project: optional(ex.Key.Project), Scoring: ex.Scoring.String(), NowTS: apijson.Seconds(ex.Now),
		MaxTokens: ex.MaxTokens, TargetTokens: ex.Target, ArchivedBudget: ex.ArchivedBudget,
		Moves: apijson.MovesOf(ex.Plan),
		Weights: weightsJSON{Recency: ex.Weights.Recency, Connectedness: ex.Weights.Connectedness,
			In: ex.Weights.In, Out: ex.Weights.Out, ResurrectionMargin: ex.Margin},
		Ranking: rankingOf(ex.Ranking),
	})
}

// compact serves POST /api/compaction/run?level&session_id&project_path:
// one compaction run now, through the write path; the moves made, each with
// its reason.
func (a *API) compact(w http.ResponseWriter, r *http.Request) {
	sc := scopeOf(r, "")
	m, err := a.svc.Compact(r.Context(), sc)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	apijson.Write(w, http.StatusOK, struct {
		Level string `json:"level"`
		apijson.Moves
	}{string(sc.Level), apijson.MovesOf(m)})
}
