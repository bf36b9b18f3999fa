package team

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStalenessInACheckout: on a team server a touch is stored relative to
// the checkout the session named, its file is read there when the node is
// written, and each server's tick reads it again in the checkout of its own
// session of the project and marks the node when it changed
// (docs/design/trust.md#staleness).
func TestStalenessInACheckout(t *testing.T) {
	_, ins := team(t, 2, options{maintenance: 50 * time.Millisecond})
	a, b := ins[0], ins[1]
	const key = "github.com/acme/stale"
	alice := t.TempDir()
	file := filepath.Join(alice, "src", "pay.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("package pay\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var reg struct {
		SessionID string `json:"session_id"`
	}
	if code := a.call("POST", "/api/sessions/register", map[string]any{"project_path": alice, "project_key": key}, &reg); code != 200 {
		t.Fatalf("register: %d", code)
	}
	if code, _ := b.putNode(map[string]any{"level": "project", "session_id": reg.SessionID, "id": "pay",
		"gist": "the payment path", "touches": []string{file}}); code != 200 {
		t.Fatalf("put: %d", code)
	}
	if err := os.WriteFile(file, []byte("package pay // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range []*instance{b, a} {
		deadline := time.Now().Add(20 * time.Second)
		for {
			var read struct {
				Project struct {
					Nodes []struct {
						ID    string                          `json:"id"`
						Stale []struct{ Path, Change string } `json:"stale"`
					} `json:"nodes"`
				} `json:"project"`
			}
			if code := in.call("GET", "/api/graph/read?project_key="+url.QueryEscape(key), nil, &read); code != 200 || len(read.Project.Nodes) != 1 {
				t.Fatalf("%s: graph read %d, %d nodes", in.name, code, len(read.Project.Nodes))
			}
			if st := read.Project.Nodes[0].Stale; len(st) == 1 {
				if st[0].Path != "src/pay.go" || st[0].Change != "changed" {
					t.Errorf("%s: stale %+v, want src/pay.go changed", in.name, st)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the node was not marked stale within 20 s", in.name)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
