package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// Through MCP, on every backend: a node three sessions read by id outranks
// one written once, later, and survives the run that archives the other —
// the counts made before a restart included. Under --scoring seed the same
// graph archives the node read by three, whose recency is older
// (docs/design/compaction.md#score).
func TestCompactionKeepsWhatSessionsReadThroughMCP(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, storage string) {
		for _, tc := range []struct{ scoring, archived, kept string }{
			{"use", "written-once", "read-by-three"},
			{"seed", "read-by-three", "written-once"},
		} {
			t.Run(tc.scoring, func(t *testing.T) {
				t.Parallel()
				root, proj := t.TempDir(), t.TempDir()
				s := startKG(t, storage, root, "--grace-days", "0", "--scoring", tc.scoring)
				w := s.session(proj)
				long := strings.Repeat("a word of the gist ", 10) // one fits in 100 tokens, two do not
				s.putNode(w, "project", "read-by-three", "needed by every session: "+long, nil)
				for range 3 {
					r := s.ok("kg_read", map[string]any{"session_id": s.session(proj), "ids": []string{"read-by-three"}})
					mustContain(t, r.text, "use: ")
				}
				// The writer reading it again counts nothing more.
				r := s.ok("kg_read", map[string]any{"session_id": w, "ids": []string{"read-by-three"}})
				mustContain(t, r.text, "use: 4.00 sessions, last counted ")
				s.putNode(w, "project", "written-once", "written and never needed again: "+long, nil)

				// Restarted with a budget both cannot fit in: the load's run
				// compacts, with the counts saved at the stop.
				s.stop()
				s = startKG(t, storage, root, "--grace-days", "0", "--scoring", tc.scoring, "--max-tokens", "100")
				tiers := planTiers(t, s, proj)
				if tiers[tc.archived] != "archived" || tiers[tc.kept] != "active" {
					t.Errorf("tiers after the run = %v; want %s archived, %s active", tiers, tc.archived, tc.kept)
				}
			})
		}
	})
}

// planTiers reads each node's tier from the compaction plan, which changes
// nothing (a read by id would restore an archived node).
func planTiers(t *testing.T, s *kgServer, proj string) map[string]string {
	t.Helper()
	resp, err := http.Get("http://" + s.Addr + "/api/compaction/plan?level=project&project_path=" + url.QueryEscape(filepath.Clean(proj)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var plan struct {
		Scoring string `json:"scoring"`
		Ranking []struct {
			ID   string `json:"id"`
			Tier string `json:"tier"`
		} `json:"ranking"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&plan); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("plan: %d, %v", resp.StatusCode, err)
	}
	out := map[string]string{"scoring": plan.Scoring}
	for _, r := range plan.Ranking {
		out[r.ID] = r.Tier
	}
	return out
}
