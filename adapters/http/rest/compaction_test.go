package rest_test

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// overBudget returns an env whose user graph holds 9 nodes over a budget of
// 200 tokens, past their grace, and one node still in grace.
func overBudget(t *testing.T) (*env, string) {
	t.Helper()
	e := newEnv(t, func(_ *testing.T, s *setup) { s.app.Policy.MaxTokens = 200 })
	sid := e.session("")
	for i := range 9 {
		e.clock.Advance(time.Second)
		e.put("user", sid, fmt.Sprintf("n%d", i), strings.Repeat("x", 20))
	}
	e.clock.Advance(6 * 24 * time.Hour)
	return e, e.session("")
}

func TestCompactionPlanExplainsEveryNode(t *testing.T) {
	e, sid := overBudget(t)
	r := e.do("GET", "/api/compaction/plan?level=user&session_id="+sid, nil).ok(t)
	b := r.body
	if b["level"] != "user" || b["max_tokens"] != 200.0 || b["target_tokens"] != 160.0 || b["archived_budget"] != 60.0 ||
		b["estimate_before"] != 225.0 || b["estimate_after"] != 150.0 || b["over_budget"] != false {
		t.Errorf("plan header = %s", r.raw)
	}
	archived := b["archived"].([]any)
	moves := b["moves"].([]any)
	if len(archived) == 0 || len(moves) < len(archived) {
		t.Fatalf("plan archives nothing: %s", r.raw)
	}
	first := moves[0]
	if get(first, "pass") != "archive" || get(first, "from") != "active" || get(first, "to") != "archived" ||
		!strings.Contains(get(first, "reason").(string), "estimate 225 > target 160") ||
		get(first, "rank", "score") == nil {
		t.Errorf("first move = %v", first)
	}
	ranking := b["ranking"].([]any)
	if len(ranking) != 9 {
		t.Fatalf("ranking = %v", ranking)
	}
	for i, x := range ranking {
		if get(x, "rank") != float64(i+1) || get(x, "eligible") != true || get(x, "score") == nil || get(x, "p_use") == nil {
			t.Errorf("ranking[%d] = %v", i, x)
		}
	}
	for i, id := range archived {
		if get(ranking, i, "id") != id {
			t.Errorf("ranking[%d] = %v, but the plan archives %v %d-th", i, get(ranking, i, "id"), id, i+1)
		}
	}
	if n, _ := e.stored(domain.UserGraph, archived[0].(string)); n.Tier != domain.Active {
		t.Error("the plan changed the graph")
	}

	// One run does what the plan said, with the same reasons.
	run := e.do("POST", "/api/compaction/run?level=user&session_id="+sid, nil).ok(t)
	if fmt.Sprint(run.body["archived"]) != fmt.Sprint(archived) || get(run.body, "moves", 0, "reason") != get(first, "reason") {
		t.Errorf("run = %s\nplan = %s", run.raw, r.raw)
	}
	if n, _ := e.stored(domain.UserGraph, archived[0].(string)); n.Tier != domain.Archived {
		t.Error("the run was not saved")
	}
	// Now the archived are unranked, with null figures.
	r = e.do("GET", "/api/compaction/plan?level=user", nil).ok(t)
	last := get(r.body, "ranking", 8)
	if get(last, "tier") != "archived" || get(last, "rank") != nil || get(last, "score") != nil {
		t.Errorf("archived node in the ranking = %v", last)
	}
	if again := e.do("POST", "/api/compaction/run?level=user", nil).ok(t); len(again.body["moves"].([]any)) != 0 {
		t.Errorf("second run moved: %s", again.raw)
	}

	e.do("GET", "/api/compaction/plan", nil).fails(t, http.StatusBadRequest, "invalid", "level", "required")
	e.do("POST", "/api/compaction/run?level=project", nil).fails(t, http.StatusBadRequest, "invalid", "project_path", "session_id or project_path")
	e.do("GET", "/api/compaction/plan?level=user&session_id=0123456789abcdef", nil).fails(t, http.StatusNotFound, "not_found", "session_id", "unknown session")
}

func TestCompactionPlanGraceLeft(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put("user", sid, "young", "in grace")
	e.clock.Advance(24 * time.Hour)
	r := e.do("GET", "/api/compaction/plan?level=user", nil).ok(t)
	x := get(r.body, "ranking", 0)
	if get(x, "id") != "young" || get(x, "eligible") != false || get(x, "rank") != nil || get(x, "grace_left_s") != float64(4*86400) {
		t.Errorf("node in grace = %v", x)
	}
}

// The plan gives the formula its scores were computed with, read from the
// policy compaction uses, so that what explains a ranking (the web page)
// writes no weights of its own: with weights other than the defaults, the
// plan names those, and every score is that formula of its percentiles.
// Under KG_SCORING=use (the default) the plan says so, each ranked node's
// score is its p_use, and its use count is given: a node two sessions read
// by id outranks the others, written by one.
func TestCompactionPlanExplainsTheUseCount(t *testing.T) {
	e := newEnv(t, func(_ *testing.T, s *setup) { s.app.Policy.MaxTokens = 200 })
	sid := e.session("")
	for i := range 6 {
		e.clock.Advance(time.Second)
		e.put("user", sid, fmt.Sprintf("n%d", i), strings.Repeat("x", 20))
	}
	other := e.session("")
	e.put("user", other, "n0", strings.Repeat("y", 20))            // a second session's count, saved with the write
	e.do("GET", "/api/nodes/user/n1?session_id="+other, nil).ok(t) // a REST read: shown, not counted
	e.clock.Advance(6 * 24 * time.Hour)
	r := e.do("GET", "/api/compaction/plan?level=user", nil).ok(t)
	if got := r.body["scoring"]; got != "use" {
		t.Errorf("scoring = %v, want use", got)
	}
	ranking := r.body["ranking"].([]any)
	for _, x := range ranking {
		if get(x, "p_recency") != nil || get(x, "p_connectedness") != nil {
			t.Errorf("%v: seed percentiles under use: %v", get(x, "id"), x)
		}
		if pu, score := get(x, "p_use"), get(x, "score"); pu != score {
			t.Errorf("%v: score %v is not its p_use %v", get(x, "id"), score, pu)
		}
	}
	// Six days on, one session's count has decayed to 36,178 (T[6]).
	last := ranking[len(ranking)-1]
	if get(last, "id") != "n0" || get(last, "use") != float64(2*36178) {
		t.Errorf("last in rank order = %v, want n0 with two sessions' use", last)
	}
	if u := get(ranking[0], "use"); u != float64(36178) {
		t.Errorf("first in rank order has use %v, want one session's (its writer's)", u)
	}
}

func TestCompactionPlanGivesItsWeights(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    compaction.ScoreWeights
	}{
		{"the defaults", compaction.DefaultScoreWeights()},
		{"others", compaction.ScoreWeights{Recency: 0.5, Connectedness: 0.25, In: 3, Out: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, func(_ *testing.T, s *setup) {
				s.app.Policy.MaxTokens, s.app.Policy.Score, s.app.Policy.Scoring = 200, tc.w, compaction.ScoringSeed
			})
			sid := e.session("")
			for i := range 6 {
				e.clock.Advance(time.Second)
				e.put("user", sid, fmt.Sprintf("n%d", i), strings.Repeat("x", 20))
			}
			e.do("POST", "/api/edges", map[string]any{"level": "user", "session_id": sid, "from": "n1", "to": "n2", "rel": "uses"}).ok(t)
			e.clock.Advance(6 * 24 * time.Hour)
			r := e.do("GET", "/api/compaction/plan?level=user", nil).ok(t)
			want := map[string]any{"recency": tc.w.Recency, "connectedness": tc.w.Connectedness,
				"in": float64(tc.w.In), "out": float64(tc.w.Out), "resurrection_margin": compaction.ResurrectionMargin}
			if got := r.body["weights"]; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("weights = %v, want %v", got, want)
			}
			for _, x := range r.body["ranking"].([]any) {
				pr, pc, score := get(x, "p_recency").(float64), get(x, "p_connectedness").(float64), get(x, "score").(float64)
				if f := tc.w.Recency*pr + tc.w.Connectedness*pc; math.Abs(f-score) > 1e-9 {
					t.Errorf("%v: score %v, but the weights give %v", get(x, "id"), score, f)
				}
			}
			if get(r.body, "ranking", 0, "id") == "n2" {
				t.Errorf("n2, the end of the one edge, ranks first to be archived: %s", r.raw)
			}
		})
	}
}
