package mcp

import (
	"strings"
	"testing"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/fullread"
)

// A possibly stale node is marked after its id in the text of the full
// read, the read by id and the search; a fresh node is not
// (docs/design/trust.md#staleness). REST carries the marks as "stale"
// lists.
func TestStaleMarksInEveryRead(t *testing.T) {
	marks := []domain.StaleFile{{Path: "src/auth/refresh.py", Change: domain.FileChanged}}
	stale := &domain.Node{ID: "auth-token-refresh", Gist: "JWT refresh uses a sliding window", Stale: marks}
	fresh := &domain.Node{ID: "auth-module", Gist: "wraps the IdP"}
	const mark = "auth-token-refresh [stale: src/auth/refresh.py changed]"

	fr := app.FullRead{User: app.GraphView{Key: domain.UserGraph, View: fullread.View{Active: []*domain.Node{stale, fresh}}}}
	reads := []app.NodeRead{{Level: domain.LevelUser, Node: stale}, {Level: domain.LevelUser, Node: fresh}}
	sr := app.SearchResult{Hits: []app.Hit{{Level: domain.LevelUser, Node: stale}, {Level: domain.LevelUser, Node: fresh}}}
	for _, c := range []struct{ name, text string }{
		{"full read", renderFullRead(fitFullRead(fr, "s1", maxReadChars), "s1")},
		{"read by id", renderNodeReads(reads, "s1")},
		{"search", renderSearch("jwt", sr)},
	} {
		if !strings.Contains(c.text, mark) {
			t.Errorf("%s: the text does not mark the node:\n%s", c.name, c.text)
		}
		if strings.Contains(c.text, "auth-module [stale") {
			t.Errorf("%s: a fresh node is marked", c.name)
		}
	}
}
