package jsonfile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// A session that read 5,000 ids keeps them twice — its seen set and the
// nodes it counted — and sessions.json stores both lists packed: a fraction
// of the ids' own length, read back as they were (issue 28, item 8:
// about 260 KB a session, 2.6 GB at the 10,000-session cap). A short list
// stays readable as it was.
func TestSessionsStoreLongIDListsPacked(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"auth", "token", "refresh", "retry", "policy", "cache", "index", "query", "session", "upload",
		"build", "deploy", "config", "route", "handler", "graph", "budget", "search", "prompt", "journal"}
	var ids, seen []string
	raw := 0
	for i := range 5000 {
		id := fmt.Sprintf("%s-%s-%s-%d", words[i%20], words[(i/20)%20], words[(i/400)%20], i)
		ids, seen = append(ids, id), append(seen, ports.SeenKey(domain.LevelUser, id))
		raw += 2*len(id) + 2
	}
	now := domain.Micros(1716400000_000000)
	sess := ports.Session{ID: "0123456789abcdef", Start: now, LastActivity: now, Synced: map[domain.GraphKey]uint64{domain.UserGraph: 1},
		Hooks:   ports.HookState{Seen: seen},
		Counted: map[domain.GraphKey][]string{domain.UserGraph: ids, domain.ProjectGraph("/work/app"): {"few", "ids"}}}
	if err := s.UpdateSessions(ctx, ports.PutSessions(map[string]ports.Session{sess.ID: sess})); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckpointSessions(ctx); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(root, "sessions.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size()*3 > int64(raw) {
		t.Errorf("sessions.json takes %d bytes for %d bytes of ids, want under a third", fi.Size(), raw)
	}
	b, _ := os.ReadFile(filepath.Join(root, "sessions.json"))
	if !bytesContain(b, `"few"`) {
		t.Errorf("a short counted list is not stored readable:\n%.400s", b)
	}
	s2, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s2.LoadSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g := got[sess.ID]
	if diff := cmp.Diff(sess.Counted, g.Counted); diff != "" || !g.Hooks.Equal(sess.Hooks) {
		t.Fatalf("the session read back differs: counted (-want +got):\n%s\nseen %d keys", diff, len(g.Hooks.Seen))
	}
}

func bytesContain(b []byte, s string) bool { return strings.Contains(string(b), s) }
