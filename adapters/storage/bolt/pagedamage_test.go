package bolt_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// The graphs of the file every damage case starts from: ids differ between
// graphs, so that a page of one can never pass for a page of another.
var damageGraphs = []struct {
	key   domain.GraphKey
	nodes int
}{
	{domain.UserGraph, 15},
	{domain.ProjectGraph("/work/big"), 150}, // leaves under a branch page
	{domain.ProjectGraph("/work/mid"), 30},
	{domain.ProjectGraph("/work/small"), 3},
}

// damageFile builds the kg.db every case starts from: a user graph and
// three projects of different sizes (one large enough for branch pages),
// with edges, a tombstone and a progress state, and 60 sessions (a page of
// their own); closed, as
// kg leaves a file at rest.
func damageFile(t *testing.T) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	s, err := bolt.Open(context.Background(), dir, bolt.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for gi, dg := range damageGraphs {
		prefix := fmt.Sprintf("g%d", gi)
		d := domain.GraphData{Schema: 2, ProjectPath: dg.key.Project,
			NodeTombstones: map[string]domain.Tombstone{prefix + "-gone": {V: 2, TS: t0, Seq: 1}},
			Progress:       map[string]domain.RawJSON{prefix + "-task": domain.RawJSON(`{"step":1}`)}}
		seq := uint64(1)
		for i := range dg.nodes {
			seq++
			d.Nodes = append(d.Nodes, domain.Node{ID: fmt.Sprintf("%s-node-%03d", prefix, i), Gist: "what " + prefix + " knows, item " + strconv.Itoa(i),
				Notes: []string{"why it matters"}, Created: t0, Version: domain.Version{V: 1, TS: t0, Seq: seq}})
			if i > 0 {
				seq++
				d.Edges = append(d.Edges, domain.Edge{From: fmt.Sprintf("%s-node-%03d", prefix, i), To: fmt.Sprintf("%s-node-%03d", prefix, i-1),
					Rel: "follows", Version: domain.Version{V: 1, TS: t0, Seq: seq}})
			}
		}
		d.Seq = seq
		saveAll(t, s, dg.key, d)
	}
	sessions := map[string]ports.Session{}
	for i := range 60 {
		id := fmt.Sprintf("%016x", i)
		sessions[id] = ports.Session{ID: id, ProjectPath: "/work/big", Start: t0, LastActivity: t0, Synced: map[domain.GraphKey]uint64{}}
	}
	if err := s.UpdateSessions(context.Background(), ports.PutSessions(sessions)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, filepath.Join(dir, bolt.FileName)
}

// graphDigest is a digest of a graph's content as loaded.
func graphDigest(key domain.GraphKey, d domain.GraphData) string {
	g, _ := domain.Restore(key, d, domain.RestoreOptions{})
	sum := sha256.Sum256(fmt.Appendf(nil, "%v", g.Data())) // fmt prints maps sorted
	return hex.EncodeToString(sum[:8])
}

// caseResult is what the child saw of one damaged file.
type caseResult struct {
	Refused  string            `json:"refused,omitempty"`  // Open's error
	OneLine  bool              `json:"one_line,omitempty"` // ... is one line of kind unavailable, wrapping ErrDamaged
	Damage   []string          `json:"damage,omitempty"`
	Loaded   map[string]string `json:"loaded,omitempty"`    // graph → digest
	Failed   map[string]string `json:"failed,omitempty"`    // graph → error
	Damaged  map[string]bool   `json:"damaged,omitempty"`   // graph → its error wraps ErrDamaged
	Wrote    map[string]string `json:"wrote,omitempty"`     // graph → "" or the error of a write after the damage
	Sessions int               `json:"sessions"`            // sessions loaded (-1: error)
	Reopen   map[string]string `json:"reopen,omitempty"`    // graph → digest after the writes and a reopen
	ReopenBy string            `json:"reopen_by,omitempty"` // the reopen's error
}

// exercise opens the store on dir as the server would, reads every graph
// and the sessions, writes one node to every graph that loaded and a
// session, closes, reopens and reads again.
func exercise(dir string) caseResult {
	ctx := context.Background()
	var r caseResult
	log := slog.New(slog.DiscardHandler)
	s, err := bolt.Open(ctx, dir, bolt.Options{Logger: log})
	if err != nil {
		r.Refused = err.Error()
		r.OneLine = !strings.Contains(err.Error(), "\n") && domain.KindOf(err) == domain.KindUnavailable && errors.Is(err, ports.ErrDamaged)
		return r
	}
	r.Damage = s.Damage()
	r.Loaded, r.Failed, r.Damaged, r.Wrote, r.Reopen = map[string]string{}, map[string]string{}, map[string]bool{}, map[string]string{}, map[string]string{}
	if sess, err := s.LoadSessions(ctx); err != nil {
		r.Sessions = -1
	} else {
		r.Sessions = len(sess)
	}
	if _, err := s.List(ctx); err != nil {
		r.Failed["list"] = err.Error()
	}
	graphs := map[string]*domain.Graph{}
	for _, dg := range damageGraphs {
		d, err := s.Load(ctx, dg.key)
		if err != nil {
			r.Failed[dg.key.String()] = err.Error()
			r.Damaged[dg.key.String()] = errors.Is(err, ports.ErrDamaged)
			continue
		}
		r.Loaded[dg.key.String()] = graphDigest(dg.key, d)
		g, _ := domain.Restore(dg.key, d, domain.RestoreOptions{})
		graphs[dg.key.String()] = g
	}
	for name, g := range graphs {
		_, err := g.PutNode(domain.NodeInput{ID: "written-after-the-damage", Gist: "served"}, domain.Stamp{Now: t0 + 99})
		if err == nil {
			err = s.Commit(ctx, g.Key(), g, g.Pending())
		}
		r.Wrote[name] = ""
		if err != nil {
			r.Wrote[name] = err.Error()
		} else {
			g.Checkpoint()
		}
	}
	if err := s.UpdateSessions(ctx, ports.PutSessions(map[string]ports.Session{"00000000000000ff": {ID: "00000000000000ff", Start: t0, LastActivity: t0}})); err != nil {
		r.Failed["save sessions"] = err.Error()
	}
	if err := s.Close(); err != nil {
		r.Failed["close"] = err.Error()
	}
	s, err = bolt.Open(ctx, dir, bolt.Options{Logger: log})
	if err != nil {
		r.ReopenBy = err.Error()
		return r
	}
	defer s.Close()
	for name, g := range graphs {
		d, err := s.Load(ctx, g.Key())
		if err != nil {
			r.Reopen[name] = "error: " + err.Error()
			continue
		}
		r.Reopen[name] = graphDigest(g.Key(), d)
	}
	return r
}

const damageChildEnv = "KG_BOLT_DAMAGE_CASES"

// TestDamageChild is the child process of TestEveryDamagedPage: it
// exercises each root listed in the file $KG_BOLT_DAMAGE_CASES, printing
// "begin N" before and "result N <json>" after each, so that a crash or a
// hang is pinned on its case.
func TestDamageChild(t *testing.T) {
	list := os.Getenv(damageChildEnv)
	if list == "" {
		t.Skip("the child process of TestEveryDamagedPage")
	}
	raw, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	var job damageJob
	if err := json.Unmarshal(raw, &job); err != nil {
		t.Fatal(err)
	}
	pristine, err := os.ReadFile(job.File)
	if err != nil {
		t.Fatal(err)
	}
	from, _ := strconv.Atoi(os.Getenv(damageChildEnv + "_FROM"))
	for i := from; i < len(job.Cases); i++ {
		fmt.Printf("begin %d\n", i)
		dir, err := os.MkdirTemp(job.Scratch, "case-")
		if err != nil {
			t.Fatal(err)
		}
		b := slices.Clone(pristine)
		job.Cases[i].apply(b)
		if err := os.WriteFile(filepath.Join(dir, bolt.FileName), b, 0o600); err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(exercise(dir))
		_ = os.RemoveAll(dir)
		fmt.Printf("result %d %s\n", i, out)
	}
}

// damageJob is what the parent hands its child: the undamaged file, the
// cases, and where to make the damaged copies.
type damageJob struct {
	File    string       `json:"file"`
	Scratch string       `json:"scratch"`
	Cases   []damageCase `json:"cases"`
}

// pageHeaderLen is the size of a bbolt page header.
const pageHeaderLen = 16

// damageCase is one damaged copy of the file.
type damageCase struct {
	Name string `json:"name"`
	Page uint64 `json:"page"` // the page damaged
	Kind string `json:"kind"` // zero, random (the whole page), bytes (a few), flip (one)
	Seed uint64 `json:"seed"`
}

// apply damages b, a copy of the file, as the case says.
func (c damageCase) apply(b []byte) {
	pb := b[c.Page*uint64(pageSize) : (c.Page+1)*uint64(pageSize)]
	rng := rand.New(rand.NewPCG(c.Page, c.Seed))
	switch c.Kind {
	case "zero":
		clear(pb)
	case "random":
		for i := range pb {
			pb[i] = byte(rng.Uint32())
		}
	case "bytes":
		for range 1 + rng.IntN(8) {
			// The first 256 bytes hold the header and the elements:
			// hit them as often as the rest.
			off := rng.IntN(256)
			if rng.IntN(2) == 0 {
				off = rng.IntN(len(pb))
			}
			pb[off] = byte(rng.Uint32())
		}
	case "flip":
		pb[rng.IntN(len(pb))] ^= byte(1 + rng.IntN(255))
	case "self":
		// A branch page whose first child is itself: a cursor that
		// descends it never stops.
		binary.LittleEndian.PutUint64(pb[pageHeaderLen+8:], c.Page)
	case "ksize":
		// A leaf element whose key reaches far past the page: reading
		// it faults on the memory map.
		binary.LittleEndian.PutUint32(pb[pageHeaderLen+8:], 0x7fffffff)
	}
}

// runInChildren exercises every case in child processes, restarting after
// a case that kills or hangs its child, and returns each case's result, or
// the crash (its output's tail) of the case that died.
func runInChildren(t *testing.T, file string, cases []damageCase) (results []*caseResult, crashes []string) {
	t.Helper()
	// fsync is a no-op on tmpfs: the cases test reading, not durability.
	scratch := t.TempDir()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "kg-bolt-damage-"); err == nil {
			scratch = d
			t.Cleanup(func() { _ = os.RemoveAll(d) })
		}
	}
	list := filepath.Join(t.TempDir(), "cases.json")
	raw, _ := json.Marshal(damageJob{File: file, Scratch: scratch, Cases: cases})
	if err := os.WriteFile(list, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	results, crashes = make([]*caseResult, len(cases)), make([]string, len(cases))
	for from := 0; from < len(cases); {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDamageChild$", "-test.v")
		cmd.Env = append(os.Environ(), damageChildEnv+"="+list, damageChildEnv+"_FROM="+strconv.Itoa(from))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(out)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				lines <- sc.Text()
			}
			_, _ = io.Copy(io.Discard, out)
		}()
		current, tail := -1, []string{}
		hung := false
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				tail = append(tail, l)
				if len(tail) > 20 {
					tail = tail[1:]
				}
				var n int
				if _, err := fmt.Sscanf(l, "begin %d", &n); err == nil {
					current = n
					continue
				}
				if rest, ok := strings.CutPrefix(l, "result "); ok {
					num, js, _ := strings.Cut(rest, " ")
					n, _ := strconv.Atoi(num)
					var r caseResult
					if err := json.Unmarshal([]byte(js), &r); err != nil {
						t.Fatalf("child result %q: %v", l, err)
					}
					results[n] = &r
					current = -1
				}
			case <-time.After(20 * time.Second):
				hung = true
				_ = cmd.Process.Kill()
				break read
			}
		}
		for range lines { // drain after a kill
		}
		err = cmd.Wait()
		if current < 0 {
			if err != nil && !hung && results[len(cases)-1] == nil {
				t.Fatalf("the child failed outside any case: %v\n%s", err, stderr.String())
			}
			break
		}
		what := "crashed"
		if hung {
			what = "hung (killed after 20 s)"
		}
		st := stderr.String()
		if i := strings.Index(st, "fatal error"); i >= 0 {
			st = st[i:]
		}
		if len(st) > 1500 {
			st = st[:1500]
		}
		crashes[current] = fmt.Sprintf("%s: %v\n%s\n%s", what, err, strings.Join(tail, "\n"), st)
		from = current + 1
	}
	return results, crashes
}

// pristine is what the undamaged file holds: each graph's digest, and
// the part of the file each page belongs to.
type pristine struct {
	digests map[string]string
	owners  []string
}

func readPristine(t *testing.T, dir, file string) pristine {
	t.Helper()
	owners, damaged, err := bolt.PageOwners(file)
	if err != nil || len(damaged) > 0 {
		t.Fatalf("the undamaged file: %v, %v", damaged, err)
	}
	s, err := bolt.Open(context.Background(), dir, bolt.Options{ReadOnly: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Check(); err != nil {
		t.Fatalf("bbolt's check of the undamaged file: %v", err)
	}
	p := pristine{digests: map[string]string{}, owners: owners}
	for _, dg := range damageGraphs {
		d, err := s.Load(context.Background(), dg.key)
		if err != nil {
			t.Fatal(err)
		}
		p.digests[dg.key.String()] = graphDigest(dg.key, d)
	}
	return p
}

// graphOf names the graph a page belongs to, as damageGraphs names it, or
// "" for a page outside every graph (the sessions, the file's own pages).
func graphOf(owner string) string {
	switch {
	case owner == "the user graph":
		return domain.UserGraph.String()
	case strings.HasPrefix(owner, "the project graph "):
		return domain.ProjectGraph(strings.TrimPrefix(owner, "the project graph ")).String()
	}
	return ""
}

// Some damaged kg.db pages crashed the process at start (a fault in bbolt's
// consistency check, or its free-list rebuild, both in goroutines a recover
// cannot reach), and a child id pointing back up a tree hung it. For every
// page of a small file of four graphs — zeroed, and with a few random bytes
// changed; each branch page filled with random bytes and with its first
// child id made its own; each leaf with its first key made 2 GiB long — and
// for one random byte changed anywhere, 60 seeds, the store is opened in a
// child process: it never crashes or hangs; it either refuses the file with
// one line (only for damage to the pages that locate everything else: the
// free list, the root bucket) or serves every graph the damage does not lie
// in, reads and writes, with their content intact; and a graph it cannot
// serve says why, naming itself and the file.
func TestEveryDamagedPage(t *testing.T) {
	t.Parallel()
	base, file := damageFile(t)
	p := readPristine(t, base, file)
	hwm := uint64(len(p.owners))
	t.Logf("%d pages below the high-water mark", hwm)

	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cases []damageCase
	for pg := range hwm {
		cases = append(cases,
			damageCase{Name: fmt.Sprintf("page %d zeroed", pg), Page: pg, Kind: "zero"},
			damageCase{Name: fmt.Sprintf("page %d, random bytes", pg), Page: pg, Kind: "bytes", Seed: 100})
		switch binary.LittleEndian.Uint16(raw[int(pg)*pageSize+8:]) { // the page's flags
		case 0x01: // branch
			cases = append(cases, damageCase{Name: fmt.Sprintf("page %d, its first child id made its own", pg), Page: pg, Kind: "self"},
				damageCase{Name: fmt.Sprintf("page %d random", pg), Page: pg, Kind: "random", Seed: 1})
		case 0x02: // leaf
			cases = append(cases, damageCase{Name: fmt.Sprintf("page %d, its first key made 2 GiB long", pg), Page: pg, Kind: "ksize"})
		}
	}
	for seed := range uint64(60) {
		pg := 2 + rand.New(rand.NewPCG(7, seed)).Uint64N(hwm-2)
		cases = append(cases, damageCase{Name: fmt.Sprintf("seed %d: a byte of page %d", seed, pg), Page: pg, Kind: "flip", Seed: seed})
	}
	t.Logf("%d damaged files", len(cases))

	results, crashes := runInChildren(t, file, cases)
	refused, degraded := 0, 0
	for i, c := range cases {
		if crashes[i] != "" {
			t.Errorf("%s (%s): the process %s", c.Name, p.owners[c.Page], crashes[i])
			continue
		}
		r := results[i]
		owner := "nothing (free, or the meta pages)"
		if o := p.owners[c.Page]; o != "" {
			owner = o
		}
		hit := graphOf(p.owners[c.Page])
		if r.Refused != "" {
			refused++
			// Refusing is right only where nothing can be found without
			// the page: the free list, both meta pages, the root bucket.
			fileLevel := p.owners[c.Page] == "" || p.owners[c.Page] == "the page that lists kg's buckets" || p.owners[c.Page] == "the layout version"
			t.Logf("%s (in %s): refused: %s", c.Name, owner, r.Refused)
			if !fileLevel || !r.OneLine {
				t.Errorf("%s (in %s): refused: %s", c.Name, owner, r.Refused)
			}
			continue
		}
		if len(r.Failed) > 0 || len(r.Damage) > 0 {
			degraded++
		}
		for _, dg := range damageGraphs {
			name := dg.key.String()
			_, listHit := r.Failed["list"]
			if name == hit || (dg.key.Level == domain.LevelProject && listHit && p.owners[c.Page] == "the list of project graphs") {
				// The damaged graph: unavailable and reported, or served
				// (the damage lay where nothing reads, or in an item's
				// bytes, which bbolt does not checksum).
				if e, failed := r.Failed[name]; failed {
					if !r.Damaged[name] {
						t.Errorf("%s (in %s): %s failed without being damage: %s", c.Name, owner, name, e)
					}
					// Reported: by Damage (pages) or by the load's error (an
					// item that does not decode), which /health lists.
					if !strings.Contains(e, bolt.FileName) || !strings.Contains(e, strings.TrimPrefix(name, "project:")) {
						t.Errorf("%s (in %s): the error of %s does not name it and the file: %s", c.Name, owner, name, e)
					}
				}
				continue
			}
			if e, failed := r.Failed[name]; failed {
				t.Errorf("%s (in %s): %s, which the damage does not touch, failed: %s", c.Name, owner, name, e)
				continue
			}
			if r.Loaded[name] != p.digests[name] {
				t.Errorf("%s (in %s): %s, which the damage does not touch, loaded different content", c.Name, owner, name)
			}
			if r.Wrote[name] != "" {
				t.Errorf("%s (in %s): a write to %s failed: %s", c.Name, owner, name, r.Wrote[name])
			}
			if r.ReopenBy != "" {
				t.Errorf("%s (in %s): reopening after the writes failed: %s", c.Name, owner, r.ReopenBy)
			} else if strings.HasPrefix(r.Reopen[name], "error") || r.Reopen[name] == p.digests[name] {
				t.Errorf("%s (in %s): after a reopen %s does not hold its write: %s", c.Name, owner, name, r.Reopen[name])
			}
		}
		if r.Sessions < 0 {
			t.Errorf("%s (in %s): the sessions failed to load; damaged sessions are set aside", c.Name, owner)
		}
		if e, ok := r.Failed["save sessions"]; ok {
			t.Errorf("%s (in %s): saving sessions failed: %s", c.Name, owner, e)
		}
	}
	t.Logf("%d cases: %d refused with one line, %d served degraded, %d served whole", len(cases), refused, degraded, len(cases)-refused-degraded)
}
