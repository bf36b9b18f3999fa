package apijson

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
)

// The API's node carries "stale" when the node is possibly stale and
// leaves it out when not (docs/design/trust.md#staleness).
func TestNodeStaleField(t *testing.T) {
	n := &domain.Node{ID: "a", Gist: "g", Stale: []domain.StaleFile{
		{Path: "docs/old.md", Change: domain.FileVanished, Recorded: "git:00"},
		{Path: "src/a.py", Change: domain.FileChanged, Recorded: "git:11"},
	}}
	b, _ := json.Marshal(NodeOf(n))
	if want := `"stale":[{"path":"docs/old.md","change":"vanished"},{"path":"src/a.py","change":"changed"}]`; !strings.Contains(string(b), want) {
		t.Errorf("stale node: %s; want %s", b, want)
	}
	b, _ = json.Marshal(NodeOf(&domain.Node{ID: "a", Gist: "g"}))
	if strings.Contains(string(b), "stale") {
		t.Errorf("fresh node: %s", b)
	}
}
