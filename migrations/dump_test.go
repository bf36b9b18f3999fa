package migrations_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/migrations"
)

var update = flag.Bool("update", false, "rewrite the golden want files under testdata/")

// dump renders every graph and session of b as indented JSON, with tmp
// replaced by $TMP so the result can be compared with a golden file. It is
// this test's own view of the data, independent of any backend's format.
func dump(t *testing.T, b migrations.Backend, tmp string) []byte {
	t.Helper()
	ctx := context.Background()
	list, err := b.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keys := []domain.GraphKey{domain.UserGraph}
	for _, sg := range list {
		keys = append(keys, sg.Key)
	}
	type version struct {
		V       uint64 `json:"v"`
		TS      int64  `json:"ts"`
		Session string `json:"session,omitempty"`
		Seq     uint64 `json:"seq"`
	}
	type node struct {
		ID, Gist   string
		Notes      []string                   `json:",omitempty"`
		Touches    []string                   `json:",omitempty"`
		Tier       string                     `json:"tier"`
		Created    int64                      `json:"created,omitempty"`
		LastRead   int64                      `json:"last_read,omitempty"`
		OrphanedAt int64                      `json:"orphaned_at,omitempty"`
		TierSeq    uint64                     `json:"tier_seq,omitempty"`
		Version    version                    `json:"version"`
		Extra      map[string]json.RawMessage `json:"extra,omitempty"`
	}
	type edge struct {
		From, To, Rel string
		Notes         []string                   `json:",omitempty"`
		Version       version                    `json:"version"`
		Extra         map[string]json.RawMessage `json:"extra,omitempty"`
	}
	type graph struct {
		Seq         uint64
		ProjectPath string `json:",omitempty"`
		Nodes       []node
		Edges       []edge
		Tombstones  map[string]domain.Tombstone `json:",omitempty"`
		Progress    map[string]json.RawMessage  `json:",omitempty"`
		Meta        map[string]json.RawMessage  `json:",omitempty"`
	}
	ver := func(v domain.Version) version {
		return version{V: v.V, TS: int64(v.TS), Session: v.Session, Seq: v.Seq}
	}
	raw := func(m map[string]domain.RawJSON) map[string]json.RawMessage {
		if len(m) == 0 {
			return nil
		}
		out := map[string]json.RawMessage{}
		for k, v := range m {
			out[k] = json.RawMessage(v)
		}
		return out
	}
	out := struct {
		Graphs   map[string]graph
		Sessions any
	}{Graphs: map[string]graph{}}
	for _, k := range keys {
		d, err := b.Load(ctx, k)
		if err != nil {
			t.Fatalf("load %s: %v", k, err)
		}
		g0, _ := domain.Restore(k, d, domain.RestoreOptions{})
		d = g0.Data()
		g := graph{Seq: d.Seq, ProjectPath: d.ProjectPath, Nodes: []node{}, Edges: []edge{}, Progress: raw(d.Progress), Meta: raw(d.Meta)}
		for _, n := range d.Nodes {
			g.Nodes = append(g.Nodes, node{ID: n.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches, Tier: n.Tier.String(),
				Created: int64(n.Created), LastRead: int64(n.LastRead), OrphanedAt: int64(n.OrphanedAt), TierSeq: n.TierSeq,
				Version: ver(n.Version), Extra: raw(n.Extra)})
		}
		for _, e := range d.Edges {
			g.Edges = append(g.Edges, edge{From: e.From, To: e.To, Rel: e.Rel, Notes: e.Notes, Version: ver(e.Version), Extra: raw(e.Extra)})
		}
		for id, tb := range d.NodeTombstones {
			if g.Tombstones == nil {
				g.Tombstones = map[string]domain.Tombstone{}
			}
			g.Tombstones["node:"+id] = tb
		}
		for ek, tb := range d.EdgeTombstones {
			if g.Tombstones == nil {
				g.Tombstones = map[string]domain.Tombstone{}
			}
			g.Tombstones["edge:"+ek.String()] = tb
		}
		out.Graphs[k.String()] = g
	}
	sessions, err := b.LoadSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type session struct {
		ProjectPath                     string `json:",omitempty"`
		Start, LastActivity, LastSynced int64
		OpCount                         int64
		Synced                          map[string]uint64          `json:",omitempty"`
		Extra                           map[string]json.RawMessage `json:",omitempty"`
	}
	ss := map[string]session{}
	for id, s := range sessions {
		v := session{ProjectPath: s.ProjectPath, Start: int64(s.Start), LastActivity: int64(s.LastActivity),
			LastSynced: int64(s.LastSyncedTS), OpCount: s.OpCount, Extra: raw(s.Extra)}
		for k, seq := range s.Synced {
			if v.Synced == nil {
				v.Synced = map[string]uint64{}
			}
			v.Synced[k.String()] = seq
		}
		ss[id] = v
	}
	out.Sessions = ss
	b2, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(bytes.ReplaceAll(b2, []byte(tmp), []byte("$TMP")), '\n')
}

// golden compares got with the file want, or rewrites it under -update.
func golden(t *testing.T, want string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(want, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(w), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", want, diff)
	}
}

// copyTree copies the folder src to dst, replacing $TMP in file contents
// with tmp, so inputs can name paths of the test's own folder.
func copyTree(t *testing.T, src, dst, tmp string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, bytes.ReplaceAll(b, []byte("$TMP"), []byte(tmp)), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot returns the content of every file under dir, by relative path.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func openBolt(t *testing.T, dir string) *bolt.Store {
	t.Helper()
	s, err := bolt.Open(context.Background(), dir, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func sortedNames(r migrations.Result) string {
	return "changed=" + strings.Join(slices.Sorted(slices.Values(r.Changed)), ",") +
		" unchanged=" + strings.Join(slices.Sorted(slices.Values(r.Unchanged)), ",")
}
