package team

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestPrivateProjectsAreTheirsAlone: a private project ("private/<principal>
// <path>", a folder with no project key) is its principal's alone on every
// surface, whichever server serves the request and however it is named —
// by project_key, by project_path or cwd holding the key, or by a session
// started on it. To anyone else it is a project that does not exist: the
// answer for alice's project holding her node is the answer for a private
// project of hers never written, and nothing anyone else sends changes it
// (docs/design/team.md#people-and-tokens).
func TestPrivateProjectsAreTheirsAlone(t *testing.T) {
	_, ins := team(t, 2, options{})
	a, b := ins[0], ins[1]
	alice, bob := a.as(a.newToken("alice", "write")), b.as(a.newToken("bob", "write"))
	secret := filepath.Join(t.TempDir(), "secret") // no .kg/project, no git: alice's private project
	if err := os.MkdirAll(secret, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _ := alice.putNode(map[string]any{"level": "project", "project_path": secret, "id": "alice-secret", "gist": "the launch date"}); code != 200 {
		t.Fatalf("alice's write: %d", code)
	}
	key := "private/alice" + secret
	never := "private/alice/never/written"
	if got := alice.graph(key); got["alice-secret"] == nil {
		t.Fatalf("alice cannot read her own private project by its key: %v", keys(got))
	}

	for _, tc := range []struct{ method, path string }{
		{"GET", "/api/export?level=project&project_key=%s"},
		{"GET", "/api/export?level=project&project_path=%s"},
		{"GET", "/api/graph/read?project_key=%s"},
		{"GET", "/api/search?q=launch&project_key=%s"},
		{"GET", "/api/search?q=launch&level=project&project_path=%s"},
		{"GET", "/api/nodes/project/alice-secret?project_key=%s"},
		{"GET", "/api/history?level=project&project_key=%s"},
		{"GET", "/api/compaction/plan?level=project&project_key=%s"},
		{"GET", "/api/session_state?project_key=%s"},
		{"GET", "/api/session_bootstrap?project_key=%s"},
		{"POST", "/api/sessions/register?project_key=%s"},
		{"POST", "/api/nodes?project_key=%s"},
	} {
		for _, who := range []*instance{bob, a.as(bob.token)} {
			got, gotBody := rawCall(t, who, tc.method, strings.Replace(tc.path, "%s", url.QueryEscape(key), 1), privateBody(key))
			want, wantBody := rawCall(t, who, tc.method, strings.Replace(tc.path, "%s", url.QueryEscape(never), 1), privateBody(never))
			if got != http.StatusNotFound || strings.Contains(gotBody, "alice-secret") || strings.Contains(gotBody, "launch") {
				t.Errorf("bob's %s %s on %s: %d %s; want 404 and nothing of alice's", tc.method, tc.path, who.name, got, gotBody)
			}
			if got != want || strings.ReplaceAll(gotBody, key, never) != wantBody {
				t.Errorf("bob's %s %s on %s tells alice's project from one never written: %d %s against %d %s",
					tc.method, tc.path, who.name, got, gotBody, want, wantBody)
			}
		}
	}

	// MCP: kg_read naming the key as its cwd starts no session on it, so no
	// kg_put_node can follow into it.
	res := bob.tool("kg_read", map[string]any{"cwd": key})
	if !res.isError || strings.Contains(res.text, "alice-secret") {
		t.Errorf("bob's kg_read cwd=%s: error %v, %s; want an unknown project", key, res.isError, res.text)
	}
	if sid := sessionOf(res.text); sid != "" {
		if put := bob.tool("kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": "bob-was-here", "gist": "x"}); !put.isError {
			t.Errorf("bob's kg_put_node into alice's private project succeeded: %s", put.text)
		}
	}
	if res := bob.tool("kg_read", map[string]any{"cwd": "/elsewhere", "project_key": key}); !res.isError {
		t.Errorf("bob's kg_read project_key=%s: %s; want an unknown project", key, res.text)
	}

	// /ws: the handshake is refused as for an unknown project.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, hs, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(b.url, "http")+"/ws?project_key="+url.QueryEscape(key),
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + bob.token}}})
	if err == nil || hs == nil || hs.StatusCode != http.StatusNotFound {
		t.Errorf("bob's /ws?project_key=%s: %v; want 404", key, err)
	}

	if got := alice.graph(key); len(got) != 1 || got["alice-secret"] == nil {
		t.Errorf("alice's private project after bob's tries: %v; want her node alone", keys(got))
	}
}

// privateBody is the body of a write naming project key.
func privateBody(key string) map[string]any {
	return map[string]any{"level": "project", "project_key": key, "id": "bob-was-here", "gist": "x"}
}

// rawCall sends a request and returns its status and body as text,
// whatever the status.
func rawCall(t *testing.T, in *instance, method, path string, body map[string]any) (int, string) {
	t.Helper()
	var r io.Reader
	if method != "GET" {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, in.url+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if in.token != "" {
		req.Header.Set("Authorization", "Bearer "+in.token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s on %s: %v", method, path, in.name, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}
