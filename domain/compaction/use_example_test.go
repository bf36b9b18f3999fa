package compaction_test

import (
	"fmt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// ExampleRun_useCount is the worked example of
// docs/design/compaction.md#use-count-example: four nodes, their use counts
// made by sessions on different days, and the run under KG_SCORING=use (the
// default) that archives the ones sessions needed least lately. If this
// output changes, the document must change with it.
func ExampleRun_useCount() {
	day := domain.Days
	data := domain.GraphData{Schema: domain.SchemaVersion}
	for i, id := range []string{"auth-flow", "session-store", "rate-limit", "deploy-steps"} {
		data.Seq++
		data.Nodes = append(data.Nodes, domain.Node{ID: id, Gist: "a lesson about " + id + ", twenty words long or so",
			Created: day(10), Version: domain.Version{V: 1, TS: day(30 + i), Seq: data.Seq},
			Use: domain.Use{Known: true}}) // stored as _use 0, _use_day 0
	}
	// deploy-steps was stored without a use count (a file of the replaced
	// server, say): it is given one session's count on the day of its
	// recency, day 33.
	data.Nodes[3].Use = domain.Use{}
	g, _ := domain.Restore(domain.ProjectGraph("/home/me/shop-api"), data, domain.RestoreOptions{})

	// Sessions count: auth-flow on day 93 and again (another session) on
	// day 100; session-store on day 100; rate-limit on day 86.
	g.CountUse("auth-flow", day(93))
	g.CountUse("auth-flow", day(100))
	g.CountUse("session-store", day(100))
	g.CountUse("rate-limit", day(86))
	for _, n := range g.Nodes() {
		fmt.Printf("%-13s _use %6d, _use_day %d, at day 100: %d\n", n.ID, n.Use.Count, n.Use.Day, n.Use.At(domain.UseDay(day(100))))
	}

	p := compaction.DefaultPolicy() // KG_SCORING=use
	p.MaxTokens = 100
	m := compaction.Run(g, day(100), p)
	fmt.Printf("estimate %d -> %d\n", m.EstimateBefore, m.EstimateAfter)
	for _, s := range m.Steps {
		fmt.Printf("%s %s: %s\n", s.Pass, s.ID, s.Reason)
	}
	// Output:
	// auth-flow     _use  98303, _use_day 100, at day 100: 98303
	// deploy-steps  _use  65536, _use_day 33, at day 100: 81
	// rate-limit    _use  65536, _use_day 86, at day 100: 16382
	// session-store _use  65536, _use_day 100, at day 100: 65536
	// estimate 130 -> 65
	// archive deploy-steps: rank 1/4, score 0.0000 = p_use of 0.00 sessions; estimate 130 > target 80 (run started at 130 > max 100)
	// archive rate-limit: rank 2/4, score 0.3333 = p_use of 0.24 sessions; estimate 97 > target 80 (run started at 130 > max 100)
}
