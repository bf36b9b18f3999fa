package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kg-memory/kg/cmd/kg/internal/doctor"
	"github.com/kg-memory/kg/domain/secrets/secretcorpus"
)

// secretsDoc writes an export document of the user graph with one node per
// positive of the corpus, its text in the node's notes.
func secretsDoc(t *testing.T) (string, []secretcorpus.Sample) {
	t.Helper()
	pos := secretcorpus.Positives()
	var nodes []map[string]any
	for i, s := range pos {
		nodes = append(nodes, map[string]any{"id": "s" + strconv.Itoa(i), "gist": "a lesson", "notes": []string{s.Text}, "tier": "active", "version": 1})
	}
	b, _ := json.Marshal(map[string]any{"format": "kg-graph", "version": 1, "level": "user", "exported_ts": 1716400000,
		"nodes": nodes, "edges": []any{}, "progress": map[string]any{}})
	file := filepath.Join(t.TempDir(), "secrets.json")
	writeFile(t, file, string(b))
	return file, pos
}

// kg import screens the document for secrets on the files and through a
// server, in the mode of KG_SECRETS (docs/design/trust.md#secrets).
func TestImportScreensForSecrets(t *testing.T) {
	t.Parallel()
	file, pos := secretsDoc(t)

	// Block (the default), on the files: refused whole, nothing written,
	// no secret echoed.
	root := t.TempDir()
	code, out, stderr := runKG(t, nil, "import", file, "--storage-root", root)
	if code != 1 || out != "" || !strings.Contains(stderr, "nodes[0].notes[0]: looks like ") || !strings.Contains(stderr, "(nothing was changed)") {
		t.Fatalf("block: exit %d, %q %q", code, out, stderr)
	}
	for _, s := range pos {
		if strings.Contains(stderr, s.Secret) {
			t.Errorf("corpus.txt:%d: the refusal echoes the secret", s.Line)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "user.json")); err == nil {
		t.Error("a refused import wrote user.json")
	}

	// Redact, on the files: written, every secret replaced and named.
	code, out, stderr = runKG(t, []string{"KG_SECRETS=redact"}, "import", file, "--storage-root", root)
	if code != 0 || strings.Count(out, "\nredacted: nodes[") != len(pos) {
		t.Fatalf("redact: exit %d\n%s%s", code, out, stderr)
	}
	stored, err := os.ReadFile(filepath.Join(root, "user.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Nodes map[string]struct{ Notes []string } `json:"nodes"`
	}
	if err := json.Unmarshal(stored, &doc); err != nil {
		t.Fatal(err)
	}
	for i, s := range pos {
		note := doc.Nodes["s"+strconv.Itoa(i)].Notes
		if len(note) != 1 || strings.Contains(note[0], s.Secret) || !strings.Contains(note[0], "[REDACTED:"+s.Kind+"]") {
			t.Errorf("corpus.txt:%d: stored %q", s.Line, note)
		}
		if strings.Contains(out, s.Secret) {
			t.Errorf("corpus.txt:%d: the output echoes the secret", s.Line)
		}
	}

	// Through a server in block mode: refused; a command that asks for
	// another mode is refused before anything is sent.
	third := t.TempDir()
	p := start(t, "--port", "0", "--storage-root", third)
	code, _, stderr = runKG(t, nil, "import", file, "--storage-root", third)
	if code != 1 || !strings.Contains(stderr, "looks like ") || !strings.Contains(stderr, "(nothing was changed)") {
		t.Errorf("through the server: exit %d %q", code, stderr)
	}
	code, _, stderr = runKG(t, []string{"KG_SECRETS=allow"}, "import", file, "--storage-root", third)
	if code != 1 || !strings.Contains(stderr, "KG_SECRETS=allow (it runs with block)") {
		t.Errorf("another mode through the server: exit %d %q", code, stderr)
	}
	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("server exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(third, "user.json")); err == nil {
		t.Error("the server wrote a refused import")
	}
}

// Data stored before the scanner (here: in allow mode) still loads and
// serves in block mode; kg doctor --secrets names each finding by its node,
// field, kind and position, never the secret, on the files and beside a
// server that holds a bolt file.
func TestDoctorFindsStoredSecrets(t *testing.T) {
	t.Parallel()
	file, pos := secretsDoc(t)
	for _, storage := range []string{"json", "bolt"} {
		t.Run(storage, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			env := []string{"KG_SECRETS=allow", "KG_STORAGE=" + storage}
			if code, out, stderr := runKG(t, env, "import", file, "--storage-root", root); code != 0 {
				t.Fatalf("import: exit %d %s%s", code, out, stderr)
			}
			check := func(t *testing.T) {
				t.Helper()
				code, out, stderr := runKG(t, nil, "doctor", "--secrets", "--json", "--storage-root", root)
				if code != 0 {
					t.Errorf("doctor: exit %d %s", code, stderr)
				}
				var got struct{ Findings []doctor.Finding }
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				n := 0
				for _, f := range got.Findings {
					if f.Subject == "user graph" && f.Level == doctor.LevelWarn && strings.Contains(f.Problem, ": looks like ") {
						n++
						if f.Fix == "" || !strings.Contains(f.Fix, "rotate the credential") {
							t.Errorf("finding without its fix: %+v", f)
						}
					}
				}
				if n < len(pos) {
					t.Errorf("doctor --secrets found %d secrets; want at least %d:\n%s", n, len(pos), out)
				}
				if !strings.Contains(out, `"node s0 notes[0]: looks like `) {
					t.Errorf("findings do not name the node and field:\n%s", out)
				}
				for _, s := range pos {
					if strings.Contains(out, s.Secret) {
						t.Errorf("corpus.txt:%d: doctor echoes the secret", s.Line)
					}
				}
			}
			check(t)
			// Beside a server in block mode, which serves what it holds.
			p := start(t, "--port", "0", "--storage-root", root, "--storage", storage)
			read := callTool(t, p.Addr, "kg_read", map[string]any{"cwd": t.TempDir()})
			if strings.HasPrefix(read, "=== USER GRAPH — 0 active, 0 archived ===") {
				t.Errorf("the stored graph is not served:\n%s", read)
			}
			check(t)
			if code := p.stop(syscall.SIGTERM); code != 0 {
				t.Errorf("server exit %d", code)
			}
		})
	}
}
