package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// A possibly stale node is marked after its id in the text of the full
// read, the read by id and the search, and carries "stale" in their
// structured results; a fresh node carries none (docs/design/trust.md#staleness).
func TestStaleMarksInEveryRead(t *testing.T) {
	marks := []domain.StaleFile{{Path: "src/auth/refresh.py", Change: domain.FileChanged}}
	stale := &domain.Node{ID: "auth-token-refresh", Gist: "JWT refresh uses a sliding window", Stale: marks}
	fresh := &domain.Node{ID: "auth-module", Gist: "wraps the IdP"}
	const mark = "auth-token-refresh [stale: src/auth/refresh.py changed]"
	wantJSON := `"stale":[{"path":"src/auth/refresh.py","change":"changed"}]`

	fr := app.FullRead{User: app.GraphView{Key: domain.UserGraph, View: domain.View{Active: []*domain.Node{stale, fresh}}}}
	gs := fitFullRead(fr, "s1", maxReadChars)
	checks := []struct {
		name, text string
		out        any
	}{
		{"full read", renderFullRead(gs, "s1"), fullReadOutput(gs, app.ReadResult{SessionID: "s1"})},
	}
	reads := app.ReadResult{SessionID: "s1", Nodes: []app.NodeRead{{Level: domain.LevelUser, Node: stale}, {Level: domain.LevelUser, Node: fresh}}}
	checks = append(checks, struct {
		name, text string
		out        any
	}{"read by id", renderNodeReads(reads.Nodes, "s1"), nodeReadsOutput(reads)})
	sr := app.SearchResult{Hits: []app.Hit{{Level: domain.LevelUser, Node: stale}, {Level: domain.LevelUser, Node: fresh}}}
	checks = append(checks, struct {
		name, text string
		out        any
	}{"search", renderSearch("jwt", sr), searchOutputOf("jwt", sr)})

	for _, c := range checks {
		if !strings.Contains(c.text, mark) {
			t.Errorf("%s: the text does not mark the node:\n%s", c.name, c.text)
		}
		if strings.Contains(c.text, "auth-module [stale") {
			t.Errorf("%s: a fresh node is marked", c.name)
		}
		b, err := json.Marshal(c.out)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), `"stale"`); n != 1 || !strings.Contains(string(b), wantJSON) {
			t.Errorf("%s: structured result has %d stale fields, want one %s:\n%s", c.name, n, wantJSON, b)
		}
	}
}
