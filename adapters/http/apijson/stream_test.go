package apijson

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/importing"
)

// The streamed answer of an import is byte for byte what json.Encoder gives
// the whole value, with moves and without.
func TestEncodeImportResultMatchesTheWholeEncoding(t *testing.T) {
	rank := &compaction.Rank{ID: "a", Recency: 1716400000_000000, Connectedness: 99, PRecency: 0.5, Score: 0.25, Eligible: true}
	moves := compaction.Moves{Archived: []string{"a", "b"}, Pruned: []string{"c"}, EstimateBefore: 900, EstimateAfter: 300, OverBudget: true,
		Steps: []compaction.Move{
			{ID: "a", From: domain.Active, To: domain.Archived, Pass: compaction.PassArchive, Rank: rank, Reason: "rank 1/2 <\"quoted\">"},
			{ID: "b", From: domain.Active, To: domain.Archived, Pass: compaction.PassArchive, Reason: "second"},
			{ID: "c", From: domain.Orphaned, To: domain.Orphaned, Pruned: true, Pass: "prune", Reason: "old"},
		}}
	for _, r := range []app.ImportResult{
		{Level: domain.LevelUser, Mode: importing.Merge, ImportResult: domain.ImportResult{Unchanged: 3}},
		{Level: domain.LevelProject, Project: "/p", Mode: importing.Replace, Compaction: moves,
			ImportResult: domain.ImportResult{Nodes: []*domain.Node{{ID: "a"}}, Progress: []string{"t"}}},
	} {
		var want, got bytes.Buffer
		if err := json.NewEncoder(&want).Encode(ImportResultOf(r)); err != nil {
			t.Fatal(err)
		}
		if err := EncodeImportResult(&got, r); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("streamed:\n%s\nwhole:\n%s", got.String(), want.String())
		}
	}
}
