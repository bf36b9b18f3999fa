package jsonfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kg-memory/kg/adapters/storage/jsonfile/codec"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

func TestRecordFraming(t *testing.T) {
	payload := []byte(`{"seq":[1,2],"nodes":{"a":null}}`)
	rec := frameRecord(nil, payload)
	if !bytes.HasSuffix(rec, []byte("\n")) || bytes.Count(rec, []byte("\n")) != 1 {
		t.Fatalf("record %q is not one line", rec)
	}
	got, why := parseRecord(rec[:len(rec)-1])
	if why != "" || !bytes.Equal(got, payload) {
		t.Fatalf("parseRecord(frameRecord(p)) = %q, %q", got, why)
	}
	line := rec[:len(rec)-1]
	damaged := map[string][]byte{
		"payload byte flipped": bytes.Replace(line, []byte(`"a"`), []byte(`"b"`), 1),
		"checksum changed":     append(slices.Clone(line[:len(line)-4]), 'f', 'f', '"', '}'),
		"cut short":            line[:len(line)-5],
		"no head":              line[1:],
		"checksum not hex":     bytes.Replace(line, line[len(line)-10:len(line)-2], []byte("zzzzzzzz"), 1),
	}
	for name, l := range damaged {
		if _, why := parseRecord(l); why == "" {
			t.Errorf("%s: %q parsed as a whole record", name, l)
		}
	}
}

func TestScanJournal(t *testing.T) {
	r1 := frameRecord(nil, []byte(`{"n":1}`))
	r2 := frameRecord(nil, []byte(`{"n":2}`))
	r3 := frameRecord(nil, []byte(`{"n":3}`))
	bad := bytes.Replace(r2, []byte(`"n":2`), []byte(`"n":9`), 1) // checksum fails
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name    string
		in      []byte
		records int
		good    int
		damaged int // the line named as damaged; 0 for none
		last    bool
	}{
		{"empty", nil, 0, 0, 0, false},
		{"whole records", cat(r1, r2, r3), 3, len(r1) + len(r2) + len(r3), 0, false},
		{"torn last record", cat(r1, r2, r3[:len(r3)/2]), 2, len(r1) + len(r2), 0, false},
		{"last record without its newline", cat(r1, r2, r3[:len(r3)-1]), 2, len(r1) + len(r2), 0, false},
		{"zeros after the records (a power cut)", cat(r1, r2, make([]byte, 300)), 2, len(r1) + len(r2), 0, false},
		// A whole line (it ends in a newline) that fails is damage,
		// even the last: a kill tears only a line it has not finished.
		{"whole last record failing its checksum", cat(r1, bad), 1, len(r1), 2, true},
		{"garbage lines at the end", cat(r1, []byte("x\ny\n")), 1, len(r1), 2, false},
		{"bad record followed by a good one", cat(r1, bad, r3), 1, len(r1), 2, false},
		{"torn record followed by a good one", cat(r1, r2[:len(r2)/2], []byte("\n"), r3), 1, len(r1), 2, false},
		{"bad last record, then a torn tail", cat(r1, r2, bad, r3[:10]), 2, len(r1) + len(r2), 3, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			records, good, err := scanJournal(tc.in)
			var damage *JournalDamage
			if got := errors.As(err, &damage); got != (tc.damaged > 0) || (err != nil && !got) {
				t.Fatalf("err = %v, want damage at line %d", err, tc.damaged)
			}
			if damage != nil {
				if damage.Line != tc.damaged || damage.Offset != good || damage.Last != tc.last {
					t.Errorf("damage = %+v, want line %d at byte %d, last %v", damage, tc.damaged, good, tc.last)
				}
				if !errors.Is(err, ports.ErrDamaged) {
					t.Errorf("damage %v is not ports.ErrDamaged", err)
				}
			}
			if len(records) != tc.records || good != tc.good {
				t.Errorf("%d records, good %d; want %d, %d", len(records), good, tc.records, tc.good)
			}
			for i, r := range records {
				if r.line != i+1 {
					t.Errorf("record %d says line %d", i, r.line)
				}
			}
		})
	}
}

// journalEnv is a store with a user graph saved whole (node "base") and
// then three commits in the journal (nodes "j1", "j2", "j3").
type journalEnv struct {
	t    *testing.T
	root string
	s    *Store
	tfs  *testFS
	logs *bytes.Buffer
	g    *domain.Graph
}

func newJournalEnv(t *testing.T) *journalEnv {
	t.Helper()
	e := &journalEnv{t: t, root: t.TempDir()}
	e.s, e.tfs, e.logs = openTest(t, e.root)
	e.g = oneNode(t, domain.UserGraph, "base")
	e.commit()
	for i := 1; i <= 3; i++ {
		e.put(fmt.Sprintf("j%d", i))
	}
	return e
}

func (e *journalEnv) put(id string) {
	e.t.Helper()
	if _, err := e.g.PutNode(domain.NodeInput{ID: id, Gist: "gist of " + id}, domain.Stamp{Now: 1716400100_000000}); err != nil {
		e.t.Fatal(err)
	}
	e.commit()
}

func (e *journalEnv) commit() {
	e.t.Helper()
	if err := e.s.Commit(e.t.Context(), domain.UserGraph, e.g, e.g.Pending()); err != nil {
		e.t.Fatal(err)
	}
	e.g.Checkpoint()
}

func (e *journalEnv) journal() string { return filepath.Join(e.root, "user.journal") }

// records returns the journal's bytes split after each record.
func (e *journalEnv) records() [][]byte {
	e.t.Helper()
	b, err := os.ReadFile(e.journal())
	if err != nil {
		e.t.Fatal(err)
	}
	recs := bytes.SplitAfter(b, []byte("\n"))
	return recs[:len(recs)-1] // the empty rest after the last newline
}

// reopen opens a new store on the root, as a restart does.
func (e *journalEnv) reopen() {
	e.t.Helper()
	e.s, e.tfs, e.logs = openTest(e.t, e.root)
}

func TestLoadDropsATornTail(t *testing.T) {
	e := newJournalEnv(t)
	recs := e.records()
	if len(recs) != 3 {
		t.Fatalf("journal holds %d records, want 3", len(recs))
	}
	whole := int64(len(bytes.Join(recs, nil)))
	// The record of a fourth write, torn by a crash halfway.
	e.put("j4")
	full, _ := os.ReadFile(e.journal())
	must(t, os.WriteFile(e.journal(), full[:whole+(int64(len(full))-whole)/2], 0o600))

	e.reopen()
	d, err := e.s.Load(t.Context(), domain.UserGraph)
	if err != nil || !slices.Equal(nodeIDs(d), []string{"base", "j1", "j2", "j3"}) {
		t.Fatalf("load = %v, %v; want the acknowledged writes without the torn one", nodeIDs(d), err)
	}
	if !strings.Contains(e.logs.String(), "torn record") {
		t.Errorf("the torn record was not logged:\n%s", e.logs)
	}
	if fi, err := os.Stat(e.journal()); err != nil || fi.Size() != whole {
		t.Errorf("journal is %v bytes after the load, want the %d of its whole records", fi.Size(), whole)
	}
	// The next write appends after the whole records, and reads back.
	e.g, _ = domain.Restore(domain.UserGraph, d, domain.RestoreOptions{})
	e.put("j5")
	e.reopen()
	if d, err := e.s.Load(t.Context(), domain.UserGraph); err != nil || !slices.Equal(nodeIDs(d), []string{"base", "j1", "j2", "j3", "j5"}) {
		t.Errorf("after another write: %v, %v", nodeIDs(d), err)
	}
}

func TestLoadRefusesADamagedJournal(t *testing.T) {
	e := newJournalEnv(t)
	other := domain.ProjectGraph("/home/dev/other")
	og := oneNode(t, other, "fine")
	must(t, e.s.Commit(t.Context(), other, og, og.Pending()))

	recs := e.records()
	recs[1] = bytes.Replace(recs[1], []byte(`"gist of j2"`), []byte(`"gist of J2"`), 1)
	damaged := bytes.Join(recs, nil)
	must(t, os.WriteFile(e.journal(), damaged, 0o600))

	for i := range 2 {
		e.reopen()
		_, err := e.s.Load(t.Context(), domain.UserGraph)
		if domain.KindOf(err) != domain.KindUnavailable || !strings.Contains(err.Error(), "user.journal") {
			t.Fatalf("load %d = %v, want unavailable naming user.journal", i+1, err)
		}
		kept, _ := filepath.Glob(filepath.Join(e.root, "user.journal.corrupt-*"))
		if len(kept) != 1 || filepath.Base(kept[0]) != "user.journal.corrupt-1716400000" {
			t.Fatalf("load %d: kept copies %q, want one user.journal.corrupt-1716400000", i+1, kept)
		}
		if b, _ := os.ReadFile(kept[0]); !bytes.Equal(b, damaged) {
			t.Error("the kept copy is not the damaged journal")
		}
		// The journal stays: the graph stays unavailable until it is
		// repaired or removed, rather than loading without its writes.
		if b, _ := os.ReadFile(e.journal()); !bytes.Equal(b, damaged) {
			t.Error("the damaged journal was changed")
		}
		if err := e.s.Commit(t.Context(), domain.UserGraph, e.g, e.g.Everything()); domain.KindOf(err) != domain.KindUnavailable {
			t.Errorf("commit to the damaged graph = %v, want unavailable", err)
		}
		if d, err := e.s.Load(t.Context(), other); err != nil || len(d.Nodes) != 1 {
			t.Errorf("the other graph: %v, %v", d.Nodes, err)
		}
	}
	if !strings.Contains(e.logs.String(), "docs/operations.md") {
		t.Errorf("the damage was logged without a hint:\n%s", e.logs)
	}
	// Removing the journal (as docs/operations.md says) makes the graph
	// load again, from its file.
	must(t, os.Remove(e.journal()))
	if d, err := e.s.Load(t.Context(), domain.UserGraph); err != nil || !slices.Equal(nodeIDs(d), []string{"base"}) {
		t.Errorf("after removing the journal: %v, %v", nodeIDs(d), err)
	}
}

// A whole last record whose checksum fails is damage, not a torn write: a
// kill cannot leave a line with its newline but a wrong checksum, so it is an
// acknowledged write gone bad. The graph is unavailable with the line named,
// the journal is kept as a copy (bytes, not a link that an edit in place
// would change) and left in place, and removing that line brings the graph
// back with every other write (docs/decisions/0043-damaged-last-journal-record.md).
func TestLoadRefusesADamagedLastRecord(t *testing.T) {
	e := newJournalEnv(t)
	recs := e.records()
	recs[2] = bytes.Replace(recs[2], []byte(`"gist of j3"`), []byte(`"gist of J3"`), 1)
	damaged := bytes.Join(recs, nil)
	must(t, os.WriteFile(e.journal(), damaged, 0o600))

	for i := range 2 {
		e.reopen()
		_, err := e.s.Load(t.Context(), domain.UserGraph)
		var jd *JournalDamage
		if domain.KindOf(err) != domain.KindUnavailable || !errors.As(err, &jd) || !errors.Is(err, ports.ErrDamaged) {
			t.Fatalf("load %d = %v, want unavailable damage", i+1, err)
		}
		if jd.Line != 3 || !jd.Last || jd.Offset != len(recs[0])+len(recs[1]) {
			t.Errorf("damage %+v, want line 3, the last, at byte %d", jd, len(recs[0])+len(recs[1]))
		}
		for _, want := range []string{"user.journal", "line 3", "checksum", "user.journal.corrupt-1716400000", "until line 3 is repaired or removed"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("load %d: %q lacks %q", i+1, err, want)
			}
		}
		kept, _ := filepath.Glob(filepath.Join(e.root, "user.journal.corrupt-*"))
		if len(kept) != 1 {
			t.Fatalf("load %d: kept copies %q, want one", i+1, kept)
		}
		if b, _ := os.ReadFile(kept[0]); !bytes.Equal(b, damaged) {
			t.Error("the kept copy is not the damaged journal")
		}
		if a, b := fileInfo(t, kept[0]), fileInfo(t, e.journal()); os.SameFile(a, b) {
			t.Error("the kept copy is a link to the journal: repairing the journal in place would change it")
		}
		if b, _ := os.ReadFile(e.journal()); !bytes.Equal(b, damaged) {
			t.Error("the damaged journal was changed")
		}
	}
	if !strings.Contains(e.logs.String(), "level=ERROR") || !strings.Contains(e.logs.String(), "line 3") {
		t.Errorf("the damage was not logged as an error naming the line:\n%s", e.logs)
	}
	// Removing the damaged line brings the graph back without that write.
	must(t, os.WriteFile(e.journal(), bytes.Join(recs[:2], nil), 0o600))
	e.reopen()
	if d, err := e.s.Load(t.Context(), domain.UserGraph); err != nil || !slices.Equal(nodeIDs(d), []string{"base", "j1", "j2"}) {
		t.Errorf("after removing line 3: %v, %v", nodeIDs(d), err)
	}
}

// A record whose checksum holds but that does not decode names its line too.
func TestUndecodableRecordNamesItsLine(t *testing.T) {
	e := newJournalEnv(t)
	recs := e.records()
	recs[1] = frameRecord(nil, []byte(`{"seq":[2,3],"nodes":{"x":{"node":{"gist":7}}}}`))
	must(t, os.WriteFile(e.journal(), bytes.Join(recs, nil), 0o600))
	e.reopen()
	_, err := e.s.Load(t.Context(), domain.UserGraph)
	var jd *JournalDamage
	if !errors.As(err, &jd) || jd.Line != 2 || jd.Last || !strings.Contains(jd.Reason, "does not decode") {
		t.Fatalf("load = %v (%+v), want damage at line 2 that does not decode", err, jd)
	}
}

func fileInfo(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	must(t, err)
	return fi
}

// TestCheckpointInterruptedBeforeTruncate stops a checkpoint after the
// file is renamed into place and before the journal is emptied: the
// journal's records are all in the file, and replaying them again (those at
// the file's seq are replayed: a batch that took no seq has one) changes
// nothing.
func TestCheckpointInterruptedBeforeTruncate(t *testing.T) {
	e := newJournalEnv(t)
	e.g.StampRead("j1", 1716400500_000000) // a batch that takes no seq, last
	e.commit()
	want := e.g.Data()
	e.tfs.mu.Lock()
	e.tfs.fail = func(op, name string) error {
		if op == "truncate" {
			return errKilled
		}
		return nil
	}
	e.tfs.mu.Unlock()
	if err := e.s.Checkpoint(t.Context(), domain.UserGraph, e.g); err == nil {
		t.Fatal("the checkpoint reported no error")
	}
	file, err := os.ReadFile(filepath.Join(e.root, "user.json"))
	if err != nil || !bytes.Contains(file, []byte(`"j3"`)) {
		t.Fatalf("user.json was not rewritten: %v", err)
	}
	if recs := e.records(); len(recs) != 4 {
		t.Fatalf("the journal holds %d records, want all 4", len(recs))
	}
	for range 2 {
		e.reopen()
		d, err := e.s.Load(t.Context(), domain.UserGraph)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := domain.Restore(domain.UserGraph, d, domain.RestoreOptions{})
		if diff := cmp.Diff(want, got.Data(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("reloaded graph differs (-want +got):\n%s", diff)
		}
		// A later write appends after those records and reads back.
		e.g = got
		e.put("after")
		want = e.g.Data()
	}
}

// TestCommitAppendsOnlyWhatChanged checks that a commit on a large graph
// costs a record of the items it changed: the file is untouched and the
// journal grows by about one node.
func TestCommitAppendsOnlyWhatChanged(t *testing.T) {
	root := t.TempDir()
	s, tfs, _ := openTest(t, root)
	g := benchGraph(t, benchKey, 2000)
	must(t, s.Commit(t.Context(), benchKey, g, g.Everything()))
	g.Checkpoint()
	dir := filepath.Join(root, "projects", "project")
	before, err := os.ReadFile(filepath.Join(dir, "graph.json"))
	if err != nil {
		t.Fatal(err)
	}
	tfs.takeOps()
	if _, err := g.PutNode(domain.NodeInput{ID: "n000042", Gist: "changed"}, domain.Stamp{Now: 1716500000_000000}); err != nil {
		t.Fatal(err)
	}
	must(t, s.Commit(t.Context(), benchKey, g, g.Pending()))
	if ops := tfs.takeOps(); slices.ContainsFunc(ops, func(op string) bool { return strings.Contains(op, "graph.json") || strings.Contains(op, "graph.tmp") }) {
		t.Errorf("the commit touched the graph file: %q", ops)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "graph.json"))
	if !bytes.Equal(before, after) {
		t.Error("the graph file changed")
	}
	j, err := os.ReadFile(filepath.Join(dir, "graph.journal"))
	if err != nil || len(j) > 1024 || !bytes.Contains(j, []byte(`"changed"`)) {
		t.Errorf("journal = %d bytes (%v), want one small record with the change", len(j), err)
	}
}

// TestCheckpointReusesTheBytesOfUnchangedNodes checks the node cache: a
// second checkpoint encodes only the node that changed, drops the deleted
// one, and writes the same file a checkpoint without the cache writes.
func TestCheckpointReusesTheBytesOfUnchangedNodes(t *testing.T) {
	root := t.TempDir()
	s, _, _ := openTest(t, root)
	g := benchGraph(t, benchKey, 50)
	must(t, s.Commit(t.Context(), benchKey, g, g.Everything()))
	g.Checkpoint()
	st := s.lockState(s.folderFile("project"))
	st.mu.Unlock()
	first := map[string][]byte{}
	for id, value := range st.nodes.Values() {
		first[id] = value
	}
	if len(first) != 50 {
		t.Fatalf("cache holds %d nodes after the first save, want 50", len(first))
	}
	at := domain.Stamp{Now: 1716500000_000000}
	if _, err := g.PutNode(domain.NodeInput{ID: "n000007", Gist: "changed"}, at); err != nil {
		t.Fatal(err)
	}
	if _, err := g.DeleteNode("n000049", at); err != nil {
		t.Fatal(err)
	}
	must(t, s.Commit(t.Context(), benchKey, g, g.Pending()))
	g.Checkpoint()
	must(t, s.Checkpoint(t.Context(), benchKey, g))
	for id, value := range st.nodes.Values() {
		if again := &value[0] != &first[id][0]; again != (id == "n000007") {
			t.Errorf("node %s: encoded again %v", id, again)
		}
	}
	if n := cachedNodes(&st.nodes); n != 49 {
		t.Errorf("cache holds %d nodes, want the 49 left", n)
	}
	written, err := os.ReadFile(filepath.Join(root, "projects", "project", "graph.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fresh bytes.Buffer
	src := codec.SourceOfGraph(g)
	src.ProjectPath = benchKey.Project
	must(t, codec.WriteGraph(&fresh, src))
	if !bytes.Equal(written, fresh.Bytes()) {
		t.Error("the file written with the cache differs from one written without it")
	}
}

// UpdateSessions appends one record with exactly the sessions it names, and
// the store's view of the set follows without a rewrite.
func TestUpdateSessionsAppendsWhatItNames(t *testing.T) {
	root := t.TempDir()
	s, tfs, _ := openTest(t, root)
	ctx := t.Context()
	set := map[string]ports.Session{}
	for i := range 200 {
		id := fmt.Sprintf("%016x", i)
		set[id] = ports.Session{ID: id, ProjectPath: "/home/dev/p", Start: 1716400000_000000, LastActivity: 1716400000_000000}
	}
	must(t, s.UpdateSessions(ctx, ports.PutSessions(set)))
	tfs.takeOps()
	added := ports.Session{ID: "ffffffffffffffff", Start: 1716400001_000000, LastActivity: 1716400001_000000}
	gone := fmt.Sprintf("%016x", 3)
	must(t, s.UpdateSessions(ctx, ports.SessionChanges{Put: []ports.Session{added}, Delete: []string{gone, "not-stored"}}))
	set[added.ID] = added
	delete(set, gone)
	if ops := tfs.takeOps(); !slices.Equal(ops, []string{"append sessions.journal", "fsyncdir .", "write sessions.journal", "fsync sessions.journal"}) {
		t.Errorf("an update made %q, want one append to a new journal", ops)
	}
	j, _ := os.ReadFile(filepath.Join(root, "sessions.journal"))
	if bytes.Count(j, []byte("\n")) != 1 || len(j) > 400 || !bytes.Contains(j, []byte(added.ID)) || !bytes.Contains(j, []byte(`"`+gone+`":null`)) ||
		bytes.Contains(j, []byte("not-stored")) {
		t.Errorf("sessions.journal = %q; want one small record with the put and the removal", j)
	}
	must(t, s.UpdateSessions(ctx, ports.SessionChanges{Delete: []string{"not-stored"}}))
	if ops := tfs.takeOps(); len(ops) != 0 {
		t.Errorf("removing a session not stored wrote: %q", ops)
	}
	for _, reopened := range []bool{false, true} {
		if reopened {
			s, _, _ = openTest(t, root)
		}
		got, err := s.LoadSessions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(set, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("sessions (reopened %v) differ (-want +got):\n%s", reopened, diff)
		}
	}
}

// cachedNodes counts the nodes c holds.
func cachedNodes(c *codec.NodeCache) int {
	n := 0
	for range c.Values() {
		n++
	}
	return n
}
