package jsonfile

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", name, diff)
	}
}

// canonical re-renders a JSON document with sorted keys and two-space
// indent, numbers kept verbatim, each progress state on one line: what
// every file kg writes must already be.
func canonical(t *testing.T, b []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("written file does not parse: %v", err)
	}
	states := map[string][]byte{}
	if progress, ok := jsonAt(v, "_meta", "progress").(map[string]any); ok {
		for task, state := range progress {
			var line bytes.Buffer
			enc := json.NewEncoder(&line)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(state); err != nil {
				t.Fatal(err)
			}
			mark := fmt.Sprintf("progress state %d", len(states))
			states[mark] = bytes.TrimSuffix(line.Bytes(), []byte("\n"))
			progress[task] = mark
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	b = out.Bytes()
	for mark, line := range states {
		b = bytes.Replace(b, []byte(`"`+mark+`"`), line, 1)
	}
	return b
}

// jsonAt walks a decoded JSON value along object keys.
func jsonAt(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// copyTree copies a testdata folder to a fresh root.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestReadsReplacedServerFiles(t *testing.T) {
	root := copyTree(t, "testdata/schema1")
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	d, err := s.Load(ctx, domain.UserGraph)
	if err != nil {
		t.Fatal(err)
	}
	g, notes := domain.Restore(domain.UserGraph, d, domain.RestoreOptions{})
	if len(notes) > 0 {
		t.Errorf("restore notes: %q", notes)
	}
	tests := []struct {
		id       string
		tier     domain.Tier
		created  domain.Micros
		lastRead domain.Micros
		version  domain.Version
	}{
		{"prefers-tabs", domain.Active, 1716400000_120000, 1716400500_300000, domain.Version{V: 3, TS: 1716400400_500000, Session: "a1b2c3d4", Seq: 5}},
		{"old-lesson", domain.Archived, 1716000000_000000, 0, domain.Version{V: 1, TS: 1716000000_000000, Seq: 3}},
		{"faded", domain.Orphaned, 0, 0, domain.Version{V: 1, Seq: 0}},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			n, ok := g.Node(tc.id)
			if !ok {
				t.Fatalf("node %q missing", tc.id)
			}
			if n.Tier != tc.tier || n.Created != tc.created || n.LastRead != tc.lastRead {
				t.Errorf("tier %v created %d read %d; want %v %d %d", n.Tier, n.Created, n.LastRead, tc.tier, tc.created, tc.lastRead)
			}
			if tc.version.Seq == 0 {
				tc.version.Seq = n.Version.Seq // numbered by Restore; only its presence matters
			}
			if n.Version != tc.version {
				t.Errorf("version %+v, want %+v", n.Version, tc.version)
			}
		})
	}
	if n, _ := g.Node("prefers-tabs"); string(n.Extra["_useful_ts"]) != `[1716400500.3,1716400600]` {
		t.Errorf("unknown field _useful_ts = %s", n.Extra["_useful_ts"])
	}
	if n, _ := g.Node("faded"); n.OrphanedAt != 1716401000_000000 {
		t.Errorf("orphaned at %d", n.OrphanedAt)
	}
	if g.EdgeCount() != 2 {
		t.Errorf("edges = %d, want 2 (one ending in a file path)", g.EdgeCount())
	}
	if e, ok := g.Edge(domain.EdgeKey{From: "prefers-tabs", To: "old-lesson", Rel: "refines"}); !ok || e.Version.V != 1 || e.Version.TS != 1716400450_250000 {
		t.Errorf("edge version = %+v", e)
	}
	if tomb, ok := g.NodeTombstone("gone"); !ok || tomb.V != 2 || tomb.Seq == 0 {
		t.Errorf("tombstone = %+v, %v", tomb, ok)
	}
	if m, ok := g.Meta("compaction_stats"); !ok || string(m) != `{"runs":12}` {
		t.Errorf("unknown _meta key = %s, %v", m, ok)
	}
	if p, ok := g.Progress("refactor"); !ok || string(p) != `{"step":2,"of":5}` {
		t.Errorf("progress = %s", p)
	}
	if g.Seq() == 0 || len(g.Pending().Nodes) == 0 {
		t.Errorf("schema 1 graph not upgraded: seq %d, pending %+v", g.Seq(), g.Pending())
	}

	list, err := s.List(ctx)
	if err != nil || len(list) != 1 || list[0] != (ports.StoredGraph{Key: domain.ProjectGraph("/home/dev/api"), Slug: "api"}) {
		t.Errorf("List = %+v, %v", list, err)
	}
	pd, err := s.Load(ctx, domain.ProjectGraph("/home/dev/api"))
	if err != nil || len(pd.Nodes) != 1 || pd.Nodes[0].Touches[0] != "server.go" {
		t.Errorf("project graph = %+v, %v", pd, err)
	}

	ss, err := s.LoadSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := ports.Session{ID: "a1b2c3d4", ProjectPath: "/home/dev/api", Start: 1716400000_000000, LastActivity: 1716400900_123456,
		OpCount: 7, LastSyncedTS: 1716400800_000000, Extra: map[string]domain.RawJSON{"promoted_ids": domain.RawJSON(`["x"]`)}}
	if diff := cmp.Diff(want, ss["a1b2c3d4"]); diff != "" {
		t.Errorf("session (-want +got):\n%s", diff)
	}

	// The next save writes schema 2.
	if err := s.Commit(ctx, domain.UserGraph, g, g.Pending()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "user.json"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "schema1-user-upgraded.json", b)
	// A session that changes is journaled, then written in kg's format by
	// the next checkpoint.
	sess := ss["a1b2c3d4"]
	sess.OpCount++
	ss["a1b2c3d4"] = sess
	if err := s.UpdateSessions(ctx, ports.PutSessions(ss)); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckpointSessions(ctx); err != nil {
		t.Fatal(err)
	}
	b, err = os.ReadFile(filepath.Join(root, "sessions.json"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "sessions.json", b)
	if _, err := os.Stat(filepath.Join(root, "user.prev")); err != nil {
		t.Errorf("the replaced file was not kept as user.prev: %v", err)
	}
}
