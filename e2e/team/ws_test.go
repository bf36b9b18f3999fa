package team

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestSocketsAcrossServersArePersonal: /ws on B hears what is written on A
// as each person may: with scope=all, every shared project and the
// listener's own user graph and private projects, never another person's
// (docs/design/team.md#people-and-tokens); subscribed by project_key, that
// project's events, the key winning over a project_path this server cannot
// read, as on every route (docs/design/team.md#project-keys). A last write
// to the shared project marks the end: the listener publishes batches in
// commit order, so an event that should not arrive would have arrived by
// then.
func TestSocketsAcrossServersArePersonal(t *testing.T) {
	_, ins := team(t, 2, options{poll: time.Minute}) // the events come through the listener
	a, b := ins[0], ins[1]
	aliceToken, bobToken := a.newToken("alice", "write"), a.newToken("bob", "write")
	aliceA, bobA := a.as(aliceToken), a.as(bobToken)
	aliceB, bobB := b.as(aliceToken), b.as(bobToken)
	const shared = "github.com/acme/sockets"
	scratch := filepath.Join(t.TempDir(), "scratch") // no key: a private project of whoever names it
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		t.Fatal(err)
	}

	aliceAll := aliceB.dial("scope=all")
	bobAll := bobB.dial("scope=all")
	aliceKeyed := aliceB.dial("project_key=" + url.QueryEscape(shared) + "&project_path=" + url.QueryEscape("/home/alice/elsewhere/sockets"))
	bobOther := bobB.dial("project_key=" + url.QueryEscape("github.com/acme/other"))

	for _, w := range []struct {
		in   *instance
		body map[string]any
	}{
		{bobA, map[string]any{"level": "user", "id": "bob-user", "gist": "bob's own"}},
		{bobA, map[string]any{"level": "project", "project_path": scratch, "id": "bob-private", "gist": "bob's private project"}},
		{aliceA, map[string]any{"level": "user", "id": "alice-user", "gist": "alice's own"}},
		{aliceA, map[string]any{"level": "project", "project_path": scratch, "id": "alice-private", "gist": "alice's private project"}},
		{bobA, map[string]any{"level": "project", "project_path": shared, "id": "shared-1", "gist": "for everyone"}},
		{aliceA, map[string]any{"level": "project", "project_key": shared, "project_path": "/home/alice/api", "id": "marker", "gist": "the last write"}},
	} {
		if code, _ := w.in.putNode(w.body); code != 200 {
			t.Fatalf("put %v on a: %d", w.body["id"], code)
		}
	}
	ids := func(s *socket) []string {
		var out []string
		for _, ev := range s.events() {
			if n, ok := ev["node"].(map[string]any); ok {
				out = append(out, n["id"].(string))
			}
		}
		return out
	}
	for _, c := range []struct {
		name string
		s    *socket
		want []string
	}{
		{"alice, scope=all", aliceAll, []string{"alice-user", "alice-private", "shared-1", "marker"}},
		{"bob, scope=all", bobAll, []string{"bob-user", "bob-private", "shared-1", "marker"}},
		{"alice, project_key before a path", aliceKeyed, []string{"alice-user", "shared-1", "marker"}},
	} {
		if !c.s.waitFor(10*time.Second, func(fs []map[string]any) bool {
			for _, f := range eventFrames(fs) {
				if n, ok := f["node"].(map[string]any); ok && n["id"] == "marker" {
					return true
				}
			}
			return false
		}) {
			t.Fatalf("%s on b: the last write on a never arrived; heard %v", c.name, ids(c.s))
		}
		if got := ids(c.s); !slices.Equal(got, c.want) {
			t.Errorf("%s on b heard %v, want %v", c.name, got, c.want)
		}
	}
	// Bob's socket on another project hears his own user graph only: a
	// last write of his own marks its end.
	if code, _ := bobA.putNode(map[string]any{"level": "user", "id": "bob-user-2", "gist": "bob's last"}); code != 200 {
		t.Fatalf("bob's last write: %d", code)
	}
	if !bobOther.waitFor(10*time.Second, func(fs []map[string]any) bool { return len(eventFrames(fs)) >= 2 }) {
		t.Fatalf("bob's socket on another project heard %v, want his two user writes", ids(bobOther))
	}
	if got := ids(bobOther); !slices.Equal(got, []string{"bob-user", "bob-user-2"}) {
		t.Errorf("bob's socket on github.com/acme/other heard %v, want [bob-user bob-user-2]", got)
	}
}
