package kg_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecisionIndexListsEveryRecord holds docs/decisions/README.md to the
// folder: one row per record, each linking a file that is there.
func TestDecisionIndexListsEveryRecord(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("docs", "decisions")
	records, err := filepath.Glob(filepath.Join(dir, "[0-9][0-9][0-9][0-9]-*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, r := range records {
		files = append(files, filepath.Base(r))
	}
	index, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, m := range regexp.MustCompile(`(?m)^\| \[(\d{4})\]\((\d{4}-[^)]+\.md)\) \| .+ \|$`).FindAllStringSubmatch(string(index), -1) {
		if m[1] != m[2][:4] {
			t.Errorf("the row of %s links %s", m[1], m[2])
		}
		rows = append(rows, m[2])
	}
	if !slices.IsSorted(rows) {
		t.Errorf("the rows are not in the order of their numbers: %v", rows)
	}
	slices.Sort(rows)
	if d := cmp.Diff(files, rows); d != "" {
		t.Errorf("docs/decisions/README.md lists other records than the folder holds (-files +rows):\n%s", d)
	}
}
