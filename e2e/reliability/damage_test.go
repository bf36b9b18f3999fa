package reliability

// Damaged files of every kind, under the built server
// (docs/design/storage.md#loading-and-damage). A root is written through the
// server as a user leaves it — three graphs, each json file with its .prev,
// journals holding records, sessions — then one file is damaged, the server
// started on it, and the table says what must follow: the graph served from its
// .prev, or unavailable naming the file, with /health degraded saying why; the
// damaged file kept as .corrupt-<time>; every other graph unaffected.
//
// Cells other tests already hold are not repeated here: a damaged user.json
// without .prev (cmd/kg TestUnloadableUserGraphStillStartsSessions), a
// kg.db that cannot be opened (cmd/kg TestUnopenableBoltFileStopsTheStart),
// a damaged bolt data page (cmd/kg TestDamagedBoltPageServesTheRest), and
// the store-level cases of jsonfile (TestDamage, journal_test.go,
// TestDamagedSessionsStartWithNone) and bolt (damage_test.go,
// TestDecodeFailureMakesOnlyThatGraphUnavailable).

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	bbolt "go.etcd.io/bbolt"
)

// damageRoot is a root written for the damage table.
type damageRoot struct {
	root         string
	alpha, beta  string // the projects; alpha's files get damaged
	aliceSession string // a session of alpha's, made before the damage
}

// alphaFile is a file of alpha's graph (json: projects/alpha/<name>).
func (d damageRoot) alphaFile(name string) string {
	return filepath.Join(d.root, "projects", "alpha", name)
}

// writeDamageRoot writes, through the server, in two runs: first u1, a1,
// b1 (each graph's file written whole), then u2, a2 (journaled), and a
// clean stop (its checkpoint makes each .json hold v2 and each .prev v1);
// then u3, a3, a4 and two more sessions (journal records) and a kill -9,
// which leaves those records in the journals.
func writeDamageRoot(t *testing.T, backend string) damageRoot {
	t.Helper()
	d := damageRoot{root: filepath.Join(t.TempDir(), "root"), alpha: projectDir(t, "alpha"), beta: projectDir(t, "beta")}
	ctx := t.Context()
	srv := startServer(t, backend, d.root)
	c := mustDial(t, srv)
	d.aliceSession = mustSession(t, c, d.alpha)
	bob := mustSession(t, c, d.beta)
	for _, w := range []struct{ sid, level, id string }{
		{d.aliceSession, "user", "u1"}, {d.aliceSession, "project", "a1"}, {bob, "project", "b1"},
		{d.aliceSession, "user", "u2"}, {d.aliceSession, "project", "a2"},
	} {
		mustPut(t, c, w.sid, w.level, w.id)
	}
	_ = c.Close()
	srv.stop()

	srv = startServer(t, backend, d.root)
	c = mustDial(t, srv)
	for _, id := range []string{"u3", "a3", "a4"} {
		level := "project"
		if id[0] == 'u' {
			level = "user"
		}
		mustPut(t, c, d.aliceSession, level, id)
	}
	mustSession(t, c, d.alpha)
	mustSession(t, c, d.beta)
	if r, err := callTool(ctx, c, "kg_read", map[string]any{"session_id": d.aliceSession}); err != nil || r.isError {
		t.Fatalf("full read: %v %s", err, r.text)
	}
	_ = c.Close()
	srv.kill()
	return d
}

func mustDial(t *testing.T, srv *server) *client.Client {
	t.Helper()
	c, err := dialMCP(t.Context(), srv.addr, "kg-damage-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func mustSession(t *testing.T, c *client.Client, project string) string {
	t.Helper()
	r, err := callTool(t.Context(), c, "kg_read", map[string]any{"cwd": project})
	if err != nil || r.isError {
		t.Fatalf("start a session: %v %s", err, r.text)
	}
	sid := sessionOf(r.text)
	return sid
}

func mustPut(t *testing.T, c *client.Client, sid, level, id string) {
	t.Helper()
	r, err := callTool(t.Context(), c, "kg_put_node", map[string]any{"session_id": sid, "level": level, "id": id, "gist": id + " as written"})
	if err != nil || r.isError {
		t.Fatalf("put %s %s: %v %s", level, id, err, r.text)
	}
}

// served returns the ids of a graph's nodes as the server exports them, or
// the error detail when it cannot.
func served(t *testing.T, srv *server, project string) (ids []string, detail string) {
	t.Helper()
	var body struct {
		Nodes  []struct{ ID string }
		Detail string
		Kind   string
	}
	code, err := srv.get("/api/export?"+exportQuery(project), &body)
	if err != nil {
		t.Fatalf("export %q: %v", project, err)
	}
	if code != http.StatusOK {
		if code != http.StatusServiceUnavailable || body.Kind != "unavailable" {
			t.Errorf("export %q: status %d, kind %q; want 200, or 503 unavailable", project, code, body.Kind)
		}
		return nil, body.Detail
	}
	for _, n := range body.Nodes {
		ids = append(ids, n.ID)
	}
	slices.Sort(ids)
	return ids, ""
}

// truncateFile replaces a file by its first half, as a torn copy or a full
// disk can leave it. It is a new file, so a hard link to the old one (a
// .prev) keeps the old content.
func truncateFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
}

// damageFirstRecord changes a byte inside the first record of a journal
// that holds at least two, so its checksum fails with whole records after
// it.
func damageFirstRecord(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(b, []byte("\n")) < 2 {
		t.Fatalf("%s holds %d records, want at least 2:\n%s", path, bytes.Count(b, []byte("\n")), b)
	}
	i := bytes.Index(b, []byte(`"batch":`)) + len(`"batch":`) + 5
	b[i] ^= 0x01
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// damageLastRecord changes a byte inside the last record of a journal,
// leaving the line whole (its newline kept), as bit rot could.
func damageLastRecord(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(b, []byte(`"batch":`)) + len(`"batch":`) + 5
	if !bytes.HasSuffix(b, []byte("\n")) || i < len(`"batch":`)+5 {
		t.Fatalf("%s holds no whole record:\n%s", path, b)
	}
	b[i] ^= 0x01
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// putBolt overwrites one record of a kg.db, as a bad write could.
func putBolt(t *testing.T, root string, value []byte, path ...string) {
	t.Helper()
	db, err := bbolt.Open(filepath.Join(root, "kg.db"), 0o600, &bbolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(path[0]))
		for _, p := range path[1 : len(path)-1] {
			if b == nil {
				break
			}
			b = b.Bucket([]byte(p))
		}
		if b == nil {
			return fmt.Errorf("no bucket %q in kg.db", path[:len(path)-1])
		}
		return b.Put([]byte(path[len(path)-1]), value)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// kept returns the files matching a glob under root.
func kept(t *testing.T, root, glob string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(root, glob))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// damageCase is one row of the table: a damage, and what the server
// started on it must do.
type damageCase struct {
	name    string
	backend string
	damage  func(t *testing.T, d damageRoot)
	// alpha: the node ids alpha's graph must serve; nil: unavailable, the
	// error naming unavailable.
	alpha       []string
	unavailable string
	// degraded: a word /health's problems must hold; "" wants "ok".
	degraded string
	// keptAs: a glob under the root that must match one damaged file kept.
	keptAs string
	// sessionsLost: the session made before the damage is gone (the
	// sessions were set aside); else it must still be known.
	sessionsLost bool
	// quarantined: kg.db holds the damaged sessions under quarantine/.
	quarantined bool
	// log: a message the server must log at start.
	log string
}

var damageCases = []damageCase{
	{name: "graph.json damaged, .prev loads", backend: "json",
		damage: func(t *testing.T, d damageRoot) { truncateFile(t, d.alphaFile("graph.json")) },
		// .prev holds a1, the journal a3 and a4; a2, written between the
		// two and repeated by no record, is lost with the damaged file, as
		// docs/decisions/0011 says.
		alpha: []string{"a1", "a3", "a4"}, keptAs: "projects/alpha/graph.corrupt-*",
		log: "storage: file is damaged; loaded its previous version"},
	{name: "graph.json and .prev damaged", backend: "json",
		damage: func(t *testing.T, d damageRoot) {
			truncateFile(t, d.alphaFile("graph.json"))
			truncateFile(t, d.alphaFile("graph.prev"))
		},
		unavailable: "graph.json is damaged", degraded: "graph.json is damaged"},
	{name: ".prev damaged", backend: "json",
		damage: func(t *testing.T, d damageRoot) { truncateFile(t, d.alphaFile("graph.prev")) },
		alpha:  []string{"a1", "a2", "a3", "a4"}},
	{name: "journal with a torn tail", backend: "json",
		damage: func(t *testing.T, d damageRoot) {
			f, err := os.OpenFile(d.alphaFile("graph.journal"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(`{"batch":{"seq":[40,41],"nodes":{"torn":`); err != nil {
				t.Fatal(err)
			}
		},
		alpha: []string{"a1", "a2", "a3", "a4"},
		log:   "storage: dropped a torn record at the end of the journal; it was never acknowledged"},
	{name: "journal damaged in the middle", backend: "json",
		damage:      func(t *testing.T, d damageRoot) { damageFirstRecord(t, d.alphaFile("graph.journal")) },
		unavailable: "graph.journal is damaged", degraded: "graph.journal is damaged",
		keptAs: "projects/alpha/graph.journal.corrupt-*"},
	{name: "journal with a damaged last record", backend: "json",
		// A whole last line whose checksum fails is damage, not a torn
		// write (ADR 0043).
		damage:      func(t *testing.T, d damageRoot) { damageLastRecord(t, d.alphaFile("graph.journal")) },
		unavailable: "graph.journal is damaged: line ", degraded: "its checksum does not match (the last record)",
		keptAs: "projects/alpha/graph.journal.corrupt-*"},
	{name: "sessions.json and .prev damaged", backend: "json",
		damage: func(t *testing.T, d damageRoot) {
			truncateFile(t, filepath.Join(d.root, "sessions.json"))
			truncateFile(t, filepath.Join(d.root, "sessions.prev"))
		},
		alpha: []string{"a1", "a2", "a3", "a4"}, keptAs: "sessions.corrupt-*", sessionsLost: true,
		log: "storage: the sessions could not be loaded; starting with none"},
	{name: "sessions.journal damaged in the middle", backend: "json",
		damage: func(t *testing.T, d damageRoot) { damageFirstRecord(t, filepath.Join(d.root, "sessions.journal")) },
		alpha:  []string{"a1", "a2", "a3", "a4"}, keptAs: "sessions.journal.corrupt-*", sessionsLost: true,
		log: "storage: the sessions could not be loaded; starting with none"},
	{name: "a node record does not decode", backend: "bolt",
		damage: func(t *testing.T, d damageRoot) {
			putBolt(t, d.root, []byte(`{"gist": 1}`), "projects", d.alpha, "nodes", "a1")
		},
		unavailable: `node "a1"`, degraded: `node "a1"`},
	{name: "a session record does not decode", backend: "bolt",
		damage: func(t *testing.T, d damageRoot) {
			putBolt(t, d.root, []byte(`{"start_ts": "not a time"`), "sessions", d.aliceSession)
		},
		alpha: []string{"a1", "a2", "a3", "a4"}, sessionsLost: true, quarantined: true,
		log: "bolt: sessions are damaged; set aside, starting with none"},
}

// copyRoot copies a root written by writeDamageRoot for one case of the
// table: no file of a root names the root itself.
func (d damageRoot) copyRoot(t *testing.T) damageRoot {
	t.Helper()
	to := filepath.Join(t.TempDir(), "root")
	if out, err := exec.Command("cp", "-a", d.root, to).CombinedOutput(); err != nil {
		t.Fatalf("copy the root: %v: %s", err, out)
	}
	d.root = to
	return d
}

func TestDamagedFiles(t *testing.T) {
	t.Parallel()
	written := map[string]damageRoot{}
	for _, dc := range damageCases {
		if _, ok := written[dc.backend]; !ok {
			written[dc.backend] = writeDamageRoot(t, dc.backend)
		}
	}
	for _, dc := range damageCases {
		t.Run(dc.backend+"/"+dc.name, func(t *testing.T) {
			t.Parallel()
			d := written[dc.backend].copyRoot(t)
			dc.damage(t, d)
			srv := startServer(t, dc.backend, d.root)
			ctx := t.Context()

			ids, detail := served(t, srv, d.alpha)
			if dc.alpha != nil && !slices.Equal(ids, dc.alpha) {
				t.Errorf("alpha serves %v (%s), want %v", ids, detail, dc.alpha)
			}
			if dc.alpha == nil && (ids != nil || !strings.Contains(detail, dc.unavailable)) {
				t.Errorf("alpha serves %v (%q), want it unavailable naming %q", ids, detail, dc.unavailable)
			}
			// Every other graph is as it was written.
			if ids, detail := served(t, srv, ""); !slices.Equal(ids, []string{"u1", "u2", "u3"}) {
				t.Errorf("the user graph serves %v (%s), want u1 u2 u3", ids, detail)
			}
			if ids, detail := served(t, srv, d.beta); !slices.Equal(ids, []string{"b1"}) {
				t.Errorf("beta serves %v (%s), want b1", ids, detail)
			}
			// Project graphs load at their first request; from then on
			// /health says why one cannot.
			h := srv.health()
			switch problems := strings.Join(h.Problems, "\n"); {
			case dc.degraded == "" && h.Status != "ok":
				t.Errorf("/health is %q: %s; want ok", h.Status, problems)
			case dc.degraded != "" && (h.Status != "degraded" || !strings.Contains(problems, dc.degraded) || !strings.Contains(problems, d.alpha)):
				t.Errorf("/health is %q: %s; want degraded naming %s and %q", h.Status, problems, d.alpha, dc.degraded)
			}
			if dc.keptAs != "" {
				if k := kept(t, d.root, dc.keptAs); len(k) != 1 {
					t.Errorf("kept %v, want one file matching %s", k, dc.keptAs)
				}
			}
			if dc.log != "" && srv.log.count(dc.log) == 0 {
				t.Errorf("the server did not log %q:\n%s", dc.log, srv.log.text())
			}

			// The session from before the damage, and a new one.
			c := mustDial(t, srv)
			r, err := callTool(ctx, c, "kg_read", map[string]any{"session_id": d.aliceSession})
			switch {
			case err != nil:
				t.Fatal(err)
			case dc.sessionsLost && (!r.isError || !strings.Contains(r.text, "unknown session")):
				t.Errorf("the session from before is %q, want it unknown", r.text)
			case !dc.sessionsLost && r.isError:
				t.Errorf("the session from before: %s", r.text)
			}
			alice := mustSession(t, c, d.alpha)
			bob := mustSession(t, c, d.beta)
			mustPut(t, c, bob, "project", "b2")
			mustPut(t, c, alice, "user", "u4")
			r, err = callTool(ctx, c, "kg_put_node", map[string]any{"session_id": alice, "level": "project", "id": "a5", "gist": "a5"})
			switch {
			case err != nil:
				t.Fatal(err)
			case dc.alpha == nil && (!r.isError || !strings.Contains(r.text, dc.unavailable)):
				t.Errorf("a write to the unavailable alpha: %q, want it refused naming %q", r.text, dc.unavailable)
			case dc.alpha != nil && r.isError:
				t.Errorf("a write to alpha: %s", r.text)
			}
			_ = c.Close()
			srv.stop()
			if log := srv.log.text(); strings.Contains(log, "goroutine ") && strings.Contains(log, "panic") {
				t.Errorf("a panic in the log:\n%s", log)
			}
			if dc.quarantined {
				db, err := bbolt.Open(filepath.Join(d.root, "kg.db"), 0o600, &bbolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				var n int
				_ = db.View(func(tx *bbolt.Tx) error {
					if q := tx.Bucket([]byte("quarantine")); q != nil {
						return q.ForEachBucket(func([]byte) error { n++; return nil })
					}
					return nil
				})
				if n != 1 {
					t.Errorf("kg.db holds %d sets of quarantined sessions, want 1", n)
				}
			}
		})
	}
}

// A damaged aliases.json: the projects that have their folder are served
// as before; a project that would be looked up through the aliases cannot
// be, and says so, naming the file.
func TestDamagedAliases(t *testing.T) {
	t.Parallel()
	d := writeDamageRoot(t, "json")
	if err := os.WriteFile(filepath.Join(d.root, "aliases.json"), []byte(`{"old-name": `), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, "json", d.root)
	for project, want := range map[string][]string{"": {"u1", "u2", "u3"}, d.alpha: {"a1", "a2", "a3", "a4"}, d.beta: {"b1"}} {
		if ids, detail := served(t, srv, project); !slices.Equal(ids, want) {
			t.Errorf("%q serves %v (%s), want %v", project, ids, detail, want)
		}
	}
	c := mustDial(t, srv)
	gamma := projectDir(t, "gamma")
	sid := mustSession(t, c, gamma)
	r, err := callTool(context.Background(), c, "kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": "g1", "gist": "g1"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.isError || !strings.Contains(r.text, "aliases.json") {
		t.Errorf("a new project's first write: %q, want it refused naming aliases.json", r.text)
	}
	if h := srv.health(); h.Status != "degraded" || !strings.Contains(strings.Join(h.Problems, " "), "aliases.json") {
		t.Errorf("/health = %+v, want degraded naming aliases.json", h)
	}
	_ = c.Close()
	srv.stop()
}
