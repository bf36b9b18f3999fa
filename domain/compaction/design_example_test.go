package compaction_test

import (
	"fmt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// ExampleRun_workedExample is the worked example of
// docs/design/compaction.md#worked-example: a nine-node project graph with
// a budget of 100 tokens, on which one run under KG_SCORING=seed archives
// (pass 1), swaps a node back in (pass 1b) and orphans (pass 2). The document computes every
// number printed here by hand; if this output changes, the document must
// change with it.
func ExampleRun_workedExample() {
	day := domain.Days
	// Times are in days; "now" is day 100. Every node was created more
	// than five days ago, so none is in its grace period.
	type node struct {
		id, gist             string
		created, write, read int // days; read 0 = never read
		tier                 domain.Tier
	}
	nodes := []node{
		{"auth-flow", "Login issues a JWT", 10, 90, 0, domain.Active},
		{"session-store", "Sessions in Redis", 12, 40, 0, domain.Active},
		{"rate-limit", "100 req/min per key", 20, 20, 60, domain.Active},
		{"deploy-steps", "make ship deploys", 30, 30, 0, domain.Active},
		{"retry-policy", "Retry 3x with backoff", 2, 50, 0, domain.Archived},
		{"old-logger", "Logs via log15", 3, 15, 0, domain.Archived},
		{"v1-endpoints", "v1 routes are frozen", 4, 8, 0, domain.Archived},
		{"css-hack", "Safari flex fix", 1, 3, 0, domain.Archived},
		{"onboarding", "Read HACKING.md", 7, 25, 0, domain.Archived},
	}
	edges := []domain.EdgeKey{
		{From: "session-store", To: "auth-flow", Rel: "backs"},
		{From: "auth-flow", To: "retry-policy", Rel: "uses"},
		{From: "deploy-steps", To: "scripts/deploy.sh", Rel: "runs"},
		{From: "old-logger", To: "src/log.go", Rel: "touches"},
	}

	// The graph as a backend would load it: seqs 1–13.
	data := domain.GraphData{Schema: domain.SchemaVersion}
	for _, n := range nodes {
		data.Seq++
		data.Nodes = append(data.Nodes, domain.Node{
			ID: n.id, Gist: n.gist, Tier: n.tier, Created: day(n.created), LastRead: day(n.read),
			Version: domain.Version{V: 1, TS: day(n.write), Seq: data.Seq},
		})
	}
	for _, k := range edges {
		data.Seq++
		data.Edges = append(data.Edges, domain.Edge{From: k.From, To: k.To, Rel: k.Rel,
			Version: domain.Version{V: 1, TS: day(1), Seq: data.Seq}})
	}
	g, _ := domain.Restore(domain.ProjectGraph("/home/me/shop-api"), data, domain.RestoreOptions{})

	p := compaction.DefaultPolicy() // grace 5 days, margin 0.05, notes not estimated
	p.MaxTokens = 100               // target 80, archived budget 30 (6 ids)
	p.Scoring = compaction.ScoringSeed

	m := compaction.Run(g, day(100), p)
	for _, s := range m.Steps {
		fmt.Printf("%s %s: %s -> %s\n", s.Pass, s.ID, s.From, s.To)
		if s.Rank != nil {
			fmt.Printf("  recency day %d, connectedness %d, p_recency %.4f, p_connectedness %.4f, score %.4f\n",
				s.Rank.Recency/domain.Day, s.Rank.Connectedness, s.Rank.PRecency, s.Rank.PConnectedness, s.Rank.Score)
		}
		fmt.Println("  " + s.Reason)
	}
	fmt.Printf("estimate %d -> %d\n", m.EstimateBefore, m.EstimateAfter)
	for _, n := range g.Nodes() { // by id
		fmt.Printf("%-13s %-8s tier seq %d\n", n.ID, n.Tier, n.TierSeq)
	}
	// Output:
	// archive deploy-steps: active -> archived
	//   recency day 30, connectedness 0, p_recency 0.0000, p_connectedness 0.1667, score 0.1100
	//   rank 1/4, score 0.1100; estimate 141 > target 80 (run started at 141 > max 100)
	// archive rate-limit: active -> archived
	//   recency day 60, connectedness 0, p_recency 0.6667, p_connectedness 0.1667, score 0.3300
	//   rank 2/4, score 0.3300; estimate 102 > target 80 (run started at 141 > max 100)
	// resurrect retry-policy: archived -> active
	//   recency day 50, connectedness 66, p_recency 0.7500, p_connectedness 0.9375, score 0.8662
	//   score 0.8662 beats 0.3713 of deploy-steps (archived now) by 0.4950 >= margin 0.0500; estimate 78 -> 79 (103 with it alone), target 80
	// archive-for-swap session-store: active -> archived
	//   recency day 40, connectedness 33, p_recency 0.6250, p_connectedness 0.7500, score 0.7013
	//   rank 7/9, score 0.7013; estimate 103 > target 80 after restoring retry-policy
	// orphan css-hack: archived -> orphaned
	//   0 edges to active nodes; 7 archived ids x 5 = 35 tokens > archived budget 30
	// estimate 141 -> 79
	// auth-flow     active   tier seq 0
	// css-hack      orphaned tier seq 18
	// deploy-steps  archived tier seq 14
	// old-logger    archived tier seq 0
	// onboarding    archived tier seq 0
	// rate-limit    archived tier seq 15
	// retry-policy  active   tier seq 16
	// session-store archived tier seq 17
	// v1-endpoints  archived tier seq 0
}
