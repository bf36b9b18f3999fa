package app

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// overBudget returns an env whose user graph holds 9 nodes over a budget of
// 200 tokens, all still in grace, and a clock moved past the grace.
func overBudget(t *testing.T) (*env, string) {
	e := newEnv(t, func(c *Config) { c.Policy.MaxTokens = 200 })
	sid := e.session("")
	for i := range 9 {
		e.clock.Advance(time.Second)
		e.put(user(sid), fmt.Sprintf("n%d", i), strings.Repeat("x", 20))
	}
	if n := e.evs(ports.EventCompacted); len(n) != 0 {
		t.Fatalf("nodes in grace were moved: %+v", n)
	}
	e.clock.Advance(6 * 24 * time.Hour)
	return e, e.session("") // the first expired with the time that passed
}

func storedTiers(t *testing.T, e *env, key domain.GraphKey) map[domain.Tier]int {
	t.Helper()
	d, err := e.store.Store.Load(e.ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	m := map[domain.Tier]int{}
	for _, n := range d.Nodes {
		m[n.Tier]++
	}
	return m
}

// The plan of ExplainCompaction changes nothing, and is what a run then
// does.
func TestCompactionPlanChangesNothing(t *testing.T) {
	e, sid := overBudget(t)
	commits := e.store.count(domain.UserGraph)
	ex, err := e.svc.ExplainCompaction(e.ctx, user(sid))
	if err != nil {
		t.Fatal(err)
	}
	plan := ex.Plan
	if len(plan.Archived) == 0 || len(plan.Steps) == 0 {
		t.Fatalf("plan = %+v, want archives with reasons", plan)
	}
	if e.store.count(domain.UserGraph) != commits || storedTiers(t, e, domain.UserGraph)[domain.Archived] != 0 {
		t.Error("the plan changed the graph")
	}

	run, err := e.svc.Compact(e.ctx, user(sid))
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "run archived", run.Archived, plan.Archived)
	if got := storedTiers(t, e, domain.UserGraph)[domain.Archived]; got != len(run.Archived) {
		t.Errorf("stored %d archived, want %d", got, len(run.Archived))
	}
	evs := e.evs(ports.EventCompacted)
	if len(evs) != 1 || evs[0].SourceSession != sid {
		t.Errorf("compacted events = %+v", evs)
	}
	again, err := e.svc.Compact(e.ctx, user(sid))
	if err != nil || !again.Empty() {
		t.Errorf("second run = %+v, %v; want nothing moved", again, err)
	}

	_, err = e.svc.Compact(e.ctx, project(sid))
	wantKind(t, err, domain.KindInvalid, "session_id")
}
