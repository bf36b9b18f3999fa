package bolt_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	bbolt "go.etcd.io/bbolt"

	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

const (
	projA = "/work/a"
	projB = "/work/b"
)

// buildFile writes a kg.db in dir with a user graph, a project A large
// enough that its nodes fill pages of their own, a small project B and
// many sessions, and returns its path.
func buildFile(t *testing.T, dir string) string {
	t.Helper()
	s := open(t, dir)
	saveAll(t, s, domain.UserGraph, bigGraph(20))
	a := bigGraph(300)
	a.ProjectPath = projA
	saveAll(t, s, domain.ProjectGraph(projA), a)
	b := bigGraph(3)
	b.ProjectPath = projB
	saveAll(t, s, domain.ProjectGraph(projB), b)
	sessions := map[string]ports.Session{}
	for i := range 100 {
		id := fmt.Sprintf("%016x", i)
		sessions[id] = ports.Session{ID: id, ProjectPath: projA, Start: t0, LastActivity: t0, Synced: map[domain.GraphKey]uint64{}}
	}
	if err := s.UpdateSessions(context.Background(), ports.PutSessions(sessions)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, bolt.FileName)
}

// rootPage returns the page that holds the root of the bucket at path.
func rootPage(t *testing.T, file string, path ...string) uint64 {
	t.Helper()
	db, err := bbolt.Open(file, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var pg uint64
	err = db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(path[0]))
		for _, p := range path[1:] {
			b = b.Bucket([]byte(p))
		}
		pg = uint64(b.Root())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pg == 0 {
		t.Fatalf("bucket %v is inline: it has no page of its own", path)
	}
	return pg
}

// pageSize is bbolt's page size on the machines kg runs on.
var pageSize = os.Getpagesize()

// writePage overwrites page pg of file with b (zeros when nil).
func writePage(t *testing.T, file string, pg uint64, b []byte) {
	t.Helper()
	if b == nil {
		b = make([]byte, pageSize)
	}
	f, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, int64(pg)*int64(pageSize)); err != nil {
		t.Fatal(err)
	}
}

// freelistPage returns the free-list page named by the newer meta page.
func freelistPage(t *testing.T, file string) uint64 { return metaField(t, file, 32) }

// pagesEnd is where the pages of the file end (its high-water mark, by the
// newer meta page), in bytes.
func pagesEnd(t *testing.T, file string) int64 {
	return int64(metaField(t, file, 40)) * int64(pageSize)
}

// metaField returns the 8-byte field at off in the newer meta page.
func metaField(t *testing.T, file string, off int) uint64 {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// A meta page: the 16-byte page header, then magic, version, page
	// size, flags (4 bytes each), the root bucket (16), the free list (at
	// 32), the high-water mark (40) and the txid (48), 8 bytes each.
	var best, txid uint64
	for _, page := range []int{0, pageSize} {
		m := raw[page+16:]
		if tx := binary.LittleEndian.Uint64(m[48:]); tx >= txid {
			best, txid = binary.LittleEndian.Uint64(m[off:]), tx
		}
	}
	return best
}

// wantOneLine fails unless err is an unavailable error whose message is
// one line containing every one of want.
func wantOneLine(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	if domain.KindOf(err) != domain.KindUnavailable {
		t.Errorf("error %q has kind %s, want unavailable", err, domain.KindOf(err))
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not say %q", msg, w)
		}
	}
}

// A kg.db kg must not open stops Open with one line saying why and what to
// do; nothing panics and the file is left as it was.
func TestOpenRefusesWhatItMustNotOpen(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, dir, file string)
		want   []string
	}{
		{"empty file", func(t *testing.T, dir, file string) {
			if err := os.Truncate(file, 0); err != nil {
				t.Fatal(err)
			}
		}, []string{"is empty (0 bytes)", "restore kg.db from a backup", "delete kg.db"}},
		{"truncated to half its pages", func(t *testing.T, dir, file string) {
			// Half its pages, not half its length: the file is longer than
			// its pages by bbolt's step of growth (docs/design/storage.md#bolt-mapping).
			if err := os.Truncate(file, pagesEnd(t, file)/2); err != nil {
				t.Fatal(err)
			}
		}, []string{"is truncated", "restore it from a backup"}},
		{"both meta pages damaged", func(t *testing.T, dir, file string) {
			writePage(t, file, 0, nil)
			writePage(t, file, 1, nil)
		}, []string{"both of its meta pages are damaged", "restore it from a backup"}},
		{"not a bbolt file", func(t *testing.T, dir, file string) {
			if err := os.WriteFile(file, bytes.Repeat([]byte("not a database "), 1000), 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{"not a bbolt file"}},
		{"free list unreadable", func(t *testing.T, dir, file string) {
			writePage(t, file, freelistPage(t, file), nil)
		}, []string{"cannot be opened", "invalid freelist page", "restore it from a backup"}},
		{"free list hands out a live page", func(t *testing.T, dir, file string) {
			live := rootPage(t, file, "projects", projA, "nodes")
			fl := freelistPage(t, file)
			raw, _ := os.ReadFile(file)
			page := raw[int(fl)*pageSize : int(fl+1)*pageSize]
			n := binary.LittleEndian.Uint16(page[10:])
			binary.LittleEndian.PutUint64(page[16+8*int(n):], live)
			binary.LittleEndian.PutUint16(page[10:], n+1)
			writePage(t, file, fl, page)
		}, []string{"is inconsistent", "reachable freed", "could overwrite live data"}},
		{"symbolic link out of the root", func(t *testing.T, dir, file string) {
			elsewhere := filepath.Join(t.TempDir(), "kg.db")
			if err := os.Rename(file, elsewhere); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, file); err != nil {
				t.Fatal(err)
			}
		}, []string{"is a symbolic link", "regular file inside its storage root"}},
		{"a folder", func(t *testing.T, dir, file string) {
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(file, 0o700); err != nil {
				t.Fatal(err)
			}
		}, []string{"is not a regular file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := buildFile(t, dir)
			c.damage(t, dir, file)
			before, _ := os.ReadFile(file)
			s, err := bolt.Open(context.Background(), dir, bolt.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
			if err == nil {
				s.Close()
				t.Fatal("opened")
			}
			t.Log(err)
			wantOneLine(t, err, append(c.want, file)...)
			if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
				t.Error("the refused file was changed")
			}
		})
	}
}

// A damaged page of one project graph makes that graph, and only it,
// unavailable: Open names it, its Load and Commit fail with an unavailable
// error that names the file and the graph, and every other graph and the
// sessions are read and written as before.
func TestDamagedPageMakesOnlyItsGraphUnavailable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := buildFile(t, dir)
	writePage(t, file, rootPage(t, file, "projects", projA, "nodes"), nil)

	s, err := bolt.Open(ctx, dir, bolt.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer s.Close()
	if d := s.Damage(); len(d) != 1 || !strings.Contains(d[0], projA) || !strings.Contains(d[0], file) {
		t.Errorf("Damage() = %q, want one line naming %s and %s", d, projA, file)
	}

	a := domain.ProjectGraph(projA)
	_, err = s.Load(ctx, a)
	wantOneLine(t, err, a.String(), file, "damaged", "restore it from a backup")
	if !errors.Is(err, ports.ErrDamaged) {
		t.Errorf("load error %q does not wrap ports.ErrDamaged", err)
	}
	g, _ := domain.Restore(a, domain.GraphData{ProjectPath: projA}, domain.RestoreOptions{})
	if _, err := g.PutNode(domain.NodeInput{ID: "n-7", Gist: "over a damaged page"}, domain.Stamp{Now: t0}); err != nil {
		t.Fatal(err)
	}
	err = s.Commit(ctx, a, g, g.Pending())
	wantOneLine(t, err, a.String(), file, "damaged")

	for _, k := range []domain.GraphKey{domain.UserGraph, domain.ProjectGraph(projB)} {
		d, err := s.Load(ctx, k)
		if err != nil {
			t.Fatalf("load %s: %v", k, err)
		}
		g, _ := domain.Restore(k, d, domain.RestoreOptions{})
		if _, err := g.PutNode(domain.NodeInput{ID: "new", Gist: "still writable"}, domain.Stamp{Now: t0 + 1}); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
			t.Errorf("commit %s: %v", k, err)
		}
	}
	if list, err := s.List(ctx); err != nil || len(list) != 2 {
		t.Errorf("List = %v, %v; want both projects", list, err)
	}
	if sess, err := s.LoadSessions(ctx); err != nil || len(sess) != 100 {
		t.Errorf("LoadSessions = %d sessions, %v; want 100", len(sess), err)
	}
}

// A damaged page of the projects bucket makes every project unavailable,
// List included, and leaves the user graph served.
func TestDamagedProjectListMakesEveryProjectUnavailable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := buildFile(t, dir)
	writePage(t, file, rootPage(t, file, "projects"), nil)

	s, err := bolt.Open(ctx, dir, bolt.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer s.Close()
	if d := s.Damage(); len(d) != 1 || !strings.Contains(d[0], "the list of project graphs") {
		t.Errorf("Damage() = %q, want the list of projects", d)
	}
	_, err = s.List(ctx)
	wantOneLine(t, err, file, "damaged")
	_, err = s.Load(ctx, domain.ProjectGraph(projB))
	wantOneLine(t, err, projB, file)
	if _, err := s.Load(ctx, domain.UserGraph); err != nil {
		t.Errorf("load the user graph: %v", err)
	}
}

// Damaged sessions are set aside whole, byte for byte, and the store starts
// with none; a later save and load work as on a new file.
func TestDamagedSessionsAreSetAside(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		damage func(t *testing.T, file string)
		// rawKept: the records can still be read, and must come back
		// byte for byte from the quarantine.
		rawKept bool
	}{
		{"a record that does not decode", func(t *testing.T, file string) {
			damage(t, file, []string{"sessions"}, "0000000000000007", "{not json")
		}, true},
		{"a damaged page", func(t *testing.T, file string) {
			writePage(t, file, rootPage(t, file, "sessions"), nil)
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := buildFile(t, dir)
			c.damage(t, file)
			before := records(t, file, "sessions")

			s, err := bolt.Open(ctx, dir, bolt.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			got, err := s.LoadSessions(ctx)
			if err != nil || len(got) != 0 {
				t.Fatalf("LoadSessions = %d sessions, %v; want none and no error", len(got), err)
			}
			fresh := map[string]ports.Session{"00000000000000ff": {ID: "00000000000000ff", Start: t0, LastActivity: t0}}
			if err := s.UpdateSessions(ctx, ports.PutSessions(fresh)); err != nil {
				t.Fatalf("save after the quarantine: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}

			q := quarantined(t, file)
			if len(q) != 1 {
				t.Fatalf("quarantine holds %v, want one set of sessions", q)
			}
			if c.rawKept {
				if kept := records(t, file, "quarantine", q[0], "sessions"); before == nil || !maps.Equal(before, kept) {
					t.Errorf("the quarantine does not hold the damaged sessions byte for byte: %d records, want %d", len(kept), len(before))
				}
			}
			// Not open(): its consistency check at the end would walk the
			// damaged pages kept in the quarantine.
			s, err = bolt.Open(ctx, dir, bolt.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			if got, err := s.LoadSessions(ctx); err != nil || len(got) != 1 {
				t.Errorf("after a restart: %d sessions, %v; want the one saved", len(got), err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if q := quarantined(t, file); len(q) != 1 {
				t.Errorf("a restart set aside again: %v", q)
			}
		})
	}
}

// records returns the key/value records of the bucket at path, or nil when
// its pages cannot be read.
func records(t *testing.T, file string, path ...string) (out map[string]string) {
	t.Helper()
	db, err := bbolt.Open(file, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	out = map[string]string{}
	_ = db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(path[0]))
		for _, p := range path[1:] {
			b = b.Bucket([]byte(p))
		}
		return b.ForEach(func(k, v []byte) error {
			out[string(k)] = string(v)
			return nil
		})
	})
	return out
}

// quarantined returns the names of the sets under the quarantine bucket.
func quarantined(t *testing.T, file string) []string {
	t.Helper()
	db, err := bbolt.Open(file, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var names []string
	_ = db.View(func(tx *bbolt.Tx) error {
		q := tx.Bucket([]byte("quarantine"))
		if q == nil {
			return nil
		}
		return q.ForEachBucket(func(k []byte) error {
			names = append(names, string(k))
			return nil
		})
	})
	return names
}

// Errors say why, not only what failed: the cause's text is in the
// message, and the cause is wrapped.
func TestErrorsKeepTheirCause(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	g := saveAll(t, s, domain.UserGraph, domain.GraphData{Schema: 2})
	if _, err := g.PutNode(domain.NodeInput{ID: "x", Gist: "y"}, domain.Stamp{Now: t0}); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	s.InjectFault(full)
	defer s.InjectFault(nil)
	errs := map[string]error{
		"commit":        s.Commit(ctx, domain.UserGraph, g, g.Pending()),
		"save sessions": s.UpdateSessions(ctx, ports.PutSessions(map[string]ports.Session{"a": {ID: "a"}})),
	}
	for what, err := range errs {
		if !errors.Is(err, full) || !strings.Contains(err.Error(), "no space left on device") {
			t.Errorf("%s: %v; want the cause wrapped and in the message", what, err)
		}
	}

	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := bolt.Open(ctx, notDir, bolt.Options{})
	if err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("open on a file as root: %v; want the cause in the message", err)
	}
}

// noFreelist is what a meta page names as its free list when the free list
// was not written (bbolt's PgidNoFreelist).
const noFreelist = ^uint64(0)

// crashImage copies the kg.db of an open store into a new root, as a kill -9
// would leave it: every commit durable, the free list never written (ADR
// 0040). It returns the new root and its kg.db.
func crashImage(t *testing.T, from string) (dir, file string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(from, bolt.FileName))
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	file = filepath.Join(dir, bolt.FileName)
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// Commits do not write the free list; Close does, so a file at rest names
// it and the next Open reads it instead of walking every page.
func TestFreeListIsWrittenAtCloseOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := buildFile(t, dir) // closed
	if fl := freelistPage(t, file); fl == noFreelist {
		t.Fatal("a closed file names no free list")
	}
	s := open(t, dir)
	k := domain.ProjectGraph(projB)
	d, err := s.Load(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := domain.Restore(k, d, domain.RestoreOptions{})
	if _, err := g.PutNode(domain.NodeInput{ID: "n-1", Gist: "changed"}, domain.Stamp{Now: t0 + 5}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
		t.Fatal(err)
	}
	if fl := freelistPage(t, file); fl != noFreelist {
		t.Errorf("after commits the newest meta page names free-list page %d, want none", fl)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fl := freelistPage(t, file); fl == noFreelist {
		t.Error("after Close the file names no free list")
	}
}

// A file left without its free list (a kill -9) opens: bbolt rebuilds the
// list, the consistency check passes, every acknowledged write is there,
// and writes go on.
func TestOpenAfterCrashRebuildsTheFreeList(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	buildFile(t, dir)
	s := open(t, dir)
	k := domain.ProjectGraph(projA)
	d, err := s.Load(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := domain.Restore(k, d, domain.RestoreOptions{})
	for i := range 50 { // frees pages, so the rebuilt list is not empty
		if _, err := g.PutNode(domain.NodeInput{ID: fmt.Sprintf("n-%d", i), Gist: fmt.Sprintf("rewritten %d", i)}, domain.Stamp{Now: t0 + domain.Micros(i)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
			t.Fatal(err)
		}
		g.Checkpoint()
	}
	crashed, file := crashImage(t, dir)
	if fl := freelistPage(t, file); fl != noFreelist {
		t.Fatalf("the crash image names free-list page %d, want none", fl)
	}

	s2 := open(t, crashed) // its cleanup runs bbolt's consistency check
	if d := s2.Damage(); len(d) > 0 {
		t.Fatalf("Damage() = %q", d)
	}
	got, err := s2.Load(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(g.Data(), got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("reopened graph differs (-written +read):\n%s", diff)
	}
	g2, _ := domain.Restore(k, got, domain.RestoreOptions{})
	if _, err := g2.PutNode(domain.NodeInput{ID: "after", Gist: "written after the crash"}, domain.Stamp{Now: t0 + 100}); err != nil {
		t.Fatal(err)
	}
	if err := s2.Commit(ctx, k, g2, g2.Pending()); err != nil {
		t.Fatal(err)
	}
	if err := s2.Check(); err != nil {
		t.Errorf("check after a write: %v", err)
	}
}

// A file left without its free list and with a damaged page is refused
// with one line, not served and not crashed on: bbolt would rebuild the list
// in a goroutine a damaged page crashes, and count the pages under it as
// free. The file is left as it was.
func TestOpenAfterCrashRefusesADamagedPage(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	buildFile(t, dir)
	s := open(t, dir)
	k := domain.ProjectGraph(projB)
	d, err := s.Load(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := domain.Restore(k, d, domain.RestoreOptions{})
	if _, err := g.PutNode(domain.NodeInput{ID: "new", Gist: "written before the crash"}, domain.Stamp{Now: t0 + 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
		t.Fatal(err)
	}
	crashed, file := crashImage(t, dir)
	writePage(t, file, rootPage(t, file, "projects", projA, "nodes"), nil)
	before, _ := os.ReadFile(file)

	s2, err := bolt.Open(ctx, crashed, bolt.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err == nil {
		s2.Close()
		t.Fatal("opened")
	}
	t.Log(err)
	wantOneLine(t, err, file, "not closed cleanly", "damaged", "restore it from a backup")
	if !errors.Is(err, ports.ErrDamaged) {
		t.Errorf("error %q does not wrap ports.ErrDamaged", err)
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
		t.Error("the refused file was changed")
	}
}

// While a page is damaged the free list is written with every commit, so
// that the file can be opened again (and its damage confined) after a
// crash.
func TestDamagedFileKeepsItsFreeListOnDisk(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := buildFile(t, dir)
	writePage(t, file, rootPage(t, file, "projects", projA, "nodes"), nil)
	s := openDamaged(t, dir)
	if len(s.Damage()) != 1 {
		t.Fatalf("Damage() = %q, want one line", s.Damage())
	}
	k := domain.ProjectGraph(projB)
	d, err := s.Load(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := domain.Restore(k, d, domain.RestoreOptions{})
	if _, err := g.PutNode(domain.NodeInput{ID: "new", Gist: "beside a damaged page"}, domain.Stamp{Now: t0 + 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, k, g, g.Pending()); err != nil {
		t.Fatal(err)
	}
	if fl := freelistPage(t, file); fl == noFreelist {
		t.Error("a commit to a damaged file left it without a free list")
	}
	crashed, _ := crashImage(t, dir)
	s2 := openDamaged(t, crashed)
	if len(s2.Damage()) != 1 {
		t.Errorf("reopened crash image: Damage() = %q, want one line", s2.Damage())
	}
}

// openDamaged opens the store in dir, which holds damaged pages, and closes
// it when the test ends (without bbolt's check, which fails on them).
func openDamaged(t *testing.T, dir string) *bolt.Store {
	t.Helper()
	s, err := bolt.Open(context.Background(), dir, bolt.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
