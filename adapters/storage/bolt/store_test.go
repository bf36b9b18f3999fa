package bolt_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/kg-memory/kg/adapters/storage/record"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

const t0 = domain.Micros(1716400000_123456)

// open opens a store on dir and closes it, after bbolt's consistency check,
// when the test ends.
func open(t testing.TB, dir string) *bolt.Store {
	t.Helper()
	s, err := bolt.Open(context.Background(), dir, bolt.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		// A test that closed the store itself gets ErrDatabaseNotOpen.
		if err := s.Check(); err != nil && !errors.Is(err, berrors.ErrDatabaseNotOpen) {
			t.Errorf("check: %v", err)
		}
		_ = s.Close()
	})
	return s
}

// saveAll writes the whole of d as graph key and returns the restored graph.
func saveAll(t testing.TB, s *bolt.Store, key domain.GraphKey, d domain.GraphData) *domain.Graph {
	t.Helper()
	g, notes := domain.Restore(key, d, domain.RestoreOptions{})
	if len(notes) > 0 {
		t.Fatalf("restore: %q", notes)
	}
	if err := s.Commit(context.Background(), key, g, g.Everything()); err != nil {
		t.Fatalf("commit %s: %v", key, err)
	}
	g.Checkpoint()
	return g
}

func TestRoundTripKeepsEveryByte(t *testing.T) {
	v := func(n, seq uint64) domain.Version {
		return domain.Version{V: n, TS: t0 + domain.Micros(seq), Session: "s1", Seq: seq}
	}
	cases := []struct {
		name string
		key  domain.GraphKey
		data domain.GraphData
	}{
		{"empty user graph", domain.UserGraph, domain.GraphData{Schema: 2}},
		{"unknown fields keep their whitespace and escapes", domain.UserGraph, domain.GraphData{Schema: 2, Seq: 3,
			Nodes: []domain.Node{{ID: "a", Gist: "g <&>", Version: v(1, 1),
				Extra: map[string]domain.RawJSON{"_x": domain.RawJSON("{\n  \"k\": [1, 2]\n}"), "html": domain.RawJSON(`"<b>\u00e9"`)}}},
			Edges: []domain.Edge{{From: "a", To: "b", Rel: "r", Version: v(1, 2), Extra: map[string]domain.RawJSON{}}},
			Meta:  map[string]domain.RawJSON{"future": domain.RawJSON("[ 1,\t2 ]")}}},
		{"nil and empty lists stay apart", domain.ProjectGraph("/p/one"), domain.GraphData{Schema: 2, Seq: 2, ProjectPath: "/p/one",
			Nodes: []domain.Node{
				{ID: "nil-lists", Gist: "x", Version: v(1, 1)},
				{ID: "empty-lists", Gist: "y", Notes: []string{}, Touches: []string{}, Version: v(1, 2)},
			}}},
		{"tiers, tombstones and progress", domain.ProjectGraph("/p/two"), domain.GraphData{Schema: 2, Seq: 9, ProjectPath: "/p/two",
			Nodes: []domain.Node{
				{ID: "arch", Gist: "x", Tier: domain.Archived, TierSeq: 5, Created: t0, LastRead: t0 + 1, Version: v(2, 3)},
				{ID: "orph", Gist: "y", Tier: domain.Orphaned, OrphanedAt: t0 + 2, TierSeq: 6, Version: v(1, 4)},
			},
			NodeTombstones: map[string]domain.Tombstone{"gone": {V: 3, TS: t0, Seq: 7, Pruned: true}},
			EdgeTombstones: map[domain.EdgeKey]domain.Tombstone{{From: "a\x00b", To: "c", Rel: "r"}: {V: 1, TS: t0, Session: "s", Seq: 8}},
			Progress:       map[string]domain.RawJSON{"task": domain.RawJSON(`{"step": 2}`)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir)
			want := saveAll(t, s, c.key, c.data).Data()
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s = open(t, dir)
			got, err := s.Load(context.Background(), c.key)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			g, _ := domain.Restore(c.key, got, domain.RestoreOptions{})
			if diff := cmp.Diff(want, g.Data()); diff != "" {
				t.Errorf("reloaded graph differs (-want +got):\n%s", diff)
			}
			if got.Schema != domain.SchemaVersion {
				t.Errorf("schema = %d, want %d", got.Schema, domain.SchemaVersion)
			}
		})
	}
}

func TestFileMode(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("mode = %v, want 0600", got)
	}
	if s.Path() != filepath.Join(dir, bolt.FileName) {
		t.Errorf("path = %s", s.Path())
	}
}

// TestCommitWritesOnlyChangedItems checks that writing one node costs the
// same number of item writes in a small and in a large graph.
func TestCommitWritesOnlyChangedItems(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		nodes int
	}{
		{"10 nodes", 10},
		{"5000 nodes", 5000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := open(t, t.TempDir())
			g := saveAll(t, s, domain.UserGraph, bigGraph(c.nodes))
			before := s.Stats()
			if _, err := g.PutNode(domain.NodeInput{ID: "n-3", Gist: "changed"}, domain.Stamp{Now: t0 + 100}); err != nil {
				t.Fatal(err)
			}
			if err := s.Commit(ctx, domain.UserGraph, g, g.Pending()); err != nil {
				t.Fatal(err)
			}
			after := s.Stats()
			// One node and the seq.
			if puts, dels := after.Puts-before.Puts, after.Deletes-before.Deletes; puts != 2 || dels != 0 {
				t.Errorf("one-node commit wrote %d items and deleted %d; want 2 and 0", puts, dels)
			}
			g.Checkpoint()

			before = s.Stats()
			if _, err := g.DeleteNode("n-4", domain.Stamp{Now: t0 + 200}); err != nil {
				t.Fatal(err)
			}
			if err := s.Commit(ctx, domain.UserGraph, g, g.Pending()); err != nil {
				t.Fatal(err)
			}
			after = s.Stats()
			// A node with no edges: its tombstone and the seq put, the node deleted.
			if puts, dels := after.Puts-before.Puts, after.Deletes-before.Deletes; puts != 2 || dels != 1 {
				t.Errorf("delete wrote %d items and deleted %d; want 2 and 1", puts, dels)
			}
		})
	}
}

// bigGraph returns data with n nodes and no edges.
func bigGraph(n int) domain.GraphData {
	d := domain.GraphData{Schema: 2, Seq: uint64(n)}
	for i := range n {
		d.Nodes = append(d.Nodes, domain.Node{ID: fmt.Sprintf("n-%d", i), Gist: "a node of a big graph",
			Notes: []string{"why"}, Created: t0, Version: domain.Version{V: 1, TS: t0, Seq: uint64(i + 1)}})
	}
	return d
}

func TestDecodeFailureMakesOnlyThatGraphUnavailable(t *testing.T) {
	ctx := context.Background()
	project := domain.ProjectGraph("/work/fine")
	cases := []struct {
		name   string
		bucket []string // path of the bucket holding the damaged item
		key    string
		value  string
		damage domain.GraphKey
		item   string // what the error must name
	}{
		{"node that is not JSON", []string{"user", "nodes"}, "a", "{not json", domain.UserGraph, `node "a"`},
		{"node with an unknown tier", []string{"user", "nodes"}, "a", `{"id":"a","gist":"g","notes":null,"touches":null,"tier":"lost","version":{"v":1,"ts":1}}`, domain.UserGraph, `node "a"`},
		{"edge of the wrong type", []string{"projects", "/work/fine", "edges"}, "e", `{"from":1}`, project, `edge "e"`},
		{"seq that is not a number", []string{"projects", "/work/fine", "meta"}, "seq", `x`, project, `meta "seq"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir)
			saveAll(t, s, domain.UserGraph, domain.GraphData{Schema: 2, Seq: 1,
				Nodes: []domain.Node{{ID: "a", Gist: "g", Version: domain.Version{V: 1, TS: t0, Seq: 1}}}})
			saveAll(t, s, project, domain.GraphData{Schema: 2, Seq: 1, ProjectPath: project.Project,
				Edges: []domain.Edge{{From: "x", To: "y", Rel: "r", Version: domain.Version{V: 1, TS: t0, Seq: 1}}}})
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			damage(t, filepath.Join(dir, bolt.FileName), c.bucket, c.key, c.value)

			s = open(t, dir)
			_, err := s.Load(ctx, c.damage)
			if domain.KindOf(err) != domain.KindUnavailable {
				t.Fatalf("load damaged graph: err = %v, want kind unavailable", err)
			}
			if !strings.Contains(err.Error(), c.item) || !strings.Contains(err.Error(), c.damage.String()) {
				t.Errorf("error %q does not name the graph %s and the item %s", err, c.damage, c.item)
			}
			other := domain.UserGraph
			if c.damage == domain.UserGraph {
				other = project
			}
			if _, err := s.Load(ctx, other); err != nil {
				t.Errorf("load undamaged graph %s: %v", other, err)
			}
		})
	}
}

// damage writes value under key in the bucket at path, behind the store's
// back, as a bug or a foreign tool could.
func damage(t *testing.T, file string, path []string, key, value string) {
	t.Helper()
	db, err := bbolt.Open(file, 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(path[0]))
		for _, p := range path[1:] {
			b = b.Bucket([]byte(p))
		}
		return b.Put([]byte(key), []byte(value))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSecondOpenFailsFast(t *testing.T) {
	dir := t.TempDir()
	open(t, dir)
	// bbolt's flock is per open file description, so a second open in this
	// process contends exactly as a second process would.
	s2, err := bolt.Open(context.Background(), dir, bolt.Options{Timeout: 20 * time.Millisecond})
	if err == nil {
		s2.Close()
		t.Fatal("second open succeeded")
	}
	if domain.KindOf(err) != domain.KindUnavailable || !errors.Is(err, berrors.ErrTimeout) {
		t.Errorf("err = %v, want an unavailable timeout", err)
	}
	if !strings.Contains(err.Error(), "locked by another process") {
		t.Errorf("message %q does not say the file is locked", err)
	}
}

func TestInjectedFaultRollsBack(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	g := saveAll(t, s, domain.UserGraph, domain.GraphData{Schema: 2})
	if _, err := g.PutNode(domain.NodeInput{ID: "ghost", Gist: "must not stay"}, domain.Stamp{Now: t0}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	s.InjectFault(boom)
	err := s.Commit(ctx, domain.UserGraph, g, g.Pending())
	if domain.KindOf(err) != domain.KindUnavailable || !errors.Is(err, boom) {
		t.Fatalf("commit err = %v, want unavailable wrapping the fault", err)
	}
	if err := s.UpdateSessions(ctx, ports.PutSessions(map[string]ports.Session{"abc": {ID: "abc"}})); !errors.Is(err, boom) {
		t.Fatalf("save sessions err = %v, want the fault", err)
	}
	d, err := s.Load(ctx, domain.UserGraph)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Nodes) != 0 {
		t.Errorf("failed commit left %d nodes", len(d.Nodes))
	}
	if sess, _ := s.LoadSessions(ctx); len(sess) != 0 {
		t.Errorf("failed save left %d sessions", len(sess))
	}
	s.InjectFault(nil)
	if err := s.Commit(ctx, domain.UserGraph, g, g.Pending()); err != nil {
		t.Fatalf("commit after clearing the fault: %v", err)
	}
	if d, _ := s.Load(ctx, domain.UserGraph); len(d.Nodes) != 1 {
		t.Errorf("retry stored %d nodes, want 1", len(d.Nodes))
	}
}

func TestListSlugs(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	for _, p := range []string{"/a/api", "/b/api", "/c/.hidden name!", "/d/---"} {
		saveAll(t, s, domain.ProjectGraph(p), domain.GraphData{Schema: 2, ProjectPath: p})
	}
	saveAll(t, s, domain.UserGraph, domain.GraphData{Schema: 2})
	got, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hash := record.ProjectHash("/b/api")
	want := []ports.StoredGraph{
		{Key: domain.ProjectGraph("/a/api"), Slug: "api"},
		{Key: domain.ProjectGraph("/b/api"), Slug: "api-" + hash},
		{Key: domain.ProjectGraph("/c/.hidden name!"), Slug: "hidden-name-"},
		{Key: domain.ProjectGraph("/d/---"), Slug: "project"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

// UpdateSessions writes exactly the sessions it names and deletes exactly
// the stored ids it names, whatever else is stored.
func TestUpdateSessionsWritesWhatItNames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, dir)
	set := map[string]ports.Session{}
	for i := range 100 {
		id := fmt.Sprintf("%016x", i)
		set[id] = ports.Session{ID: id, Start: t0, LastActivity: t0}
	}
	if err := s.UpdateSessions(ctx, ports.PutSessions(set)); err != nil {
		t.Fatal(err)
	}
	before := s.Stats()
	put := ports.Session{ID: "ffffffffffffffff", Start: t0 + 1, LastActivity: t0 + 1, OpCount: 2}
	gone := fmt.Sprintf("%016x", 5)
	if err := s.UpdateSessions(ctx, ports.SessionChanges{Put: []ports.Session{put}, Delete: []string{gone, "not-stored"}}); err != nil {
		t.Fatal(err)
	}
	set[put.ID] = put
	delete(set, gone)
	if after := s.Stats(); after.Puts-before.Puts != 1 || after.Deletes-before.Deletes != 1 || after.Commits-before.Commits != 1 {
		t.Errorf("update: %+v after %+v; want one transaction, one put, one delete", after, before)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := open(t, dir).LoadSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(set, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
}
