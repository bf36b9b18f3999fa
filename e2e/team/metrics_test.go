package team

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/metrics/metricstest"
	"github.com/kg-memory/kg/domain/compaction"
)

// TestMetricsCountThisServersWork: compaction moves made by one server reach
// the other through the change log (its copy and its /ws subscribers follow
// them), but each server's /metrics counts what it did itself
// (docs/design/team.md#health-and-metrics): the server that wrote reports the
// moves and the batches, the one that only heard of them reports none.
func TestMetricsCountThisServersWork(t *testing.T) {
	policy := compaction.DefaultPolicy()
	policy.MaxTokens, policy.Grace = 300, 0 // every write past the budget archives at once
	_, ins := team(t, 2, options{policy: &policy})
	const project = "example.com/team/metrics"
	writer, hearer := ins[0], ins[1]
	hearer.graph(project) // loaded: its listener follows every batch
	sid := writer.register(project)
	var last string
	for i := range 30 {
		last = fmt.Sprintf("fact-%02d", i)
		if code, _ := writer.putNode(map[string]any{"session_id": sid, "level": "project", "project_path": project,
			"id": last, "gist": strings.Repeat(fmt.Sprintf("word%d ", i), 12)}); code != 200 {
			t.Fatalf("write %d: %d", i, code)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(hearer.graph(project)) < 30 {
		if time.Now().After(deadline) {
			t.Fatal("the other server did not catch up within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	admin := writer.newToken("operator", "admin") // /metrics needs scope admin in team mode
	scrape := func(in *instance) metricstest.Scrape {
		return metricstest.Get(t, in.url+"/metrics", "Authorization", "Bearer "+admin)
	}
	w, h := scrape(writer), scrape(hearer)
	moved := w.Value("kg_compaction_moves_total", "kind", "archived")
	if moved == 0 {
		t.Fatal("the writing server reports no archived node: the test did not make compaction move anything")
	}
	if got := h.Value("kg_compaction_moves_total"); got != 0 {
		t.Errorf("the server that only heard of the moves reports kg_compaction_moves_total %v (the writer: %v archived), want 0", got, moved)
	}
	if got := h.Value("kg_write_batches_total", "level", "project"); got != 0 {
		t.Errorf("the server that wrote nothing reports %v project batches", got)
	}
	if got := w.Value("kg_write_batches_total", "level", "project", "outcome", "saved"); got < 30 {
		t.Errorf("the writing server reports %v saved project batches, want at least 30", got)
	}
}
