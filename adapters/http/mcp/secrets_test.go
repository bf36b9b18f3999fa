package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/secrets/secretcorpus"
	"github.com/kg-memory/kg/domain/secretscreen"
)

func withSecrets(m secretscreen.Mode) envOption {
	return func(c *app.Config, _ *memory.Store) { c.Secrets = m }
}

// storedText is every string the store holds of the user graph's nodes and
// edges.
func (e *env) storedText(t *testing.T) string {
	t.Helper()
	d, err := e.store.Load(context.Background(), domain.UserGraph)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, n := range d.Nodes {
		b.WriteString(strings.Join(append(append([]string{n.ID, n.Gist}, n.Notes...), n.Touches...), "\n"))
	}
	for _, ed := range d.Edges {
		b.WriteString(strings.Join(append([]string{ed.From, ed.To, ed.Rel}, ed.Notes...), "\n"))
	}
	return b.String()
}

// The corpus through kg_put_node and kg_put_edge in each KG_SECRETS mode
// (docs/design/trust.md#secrets).
func TestSecretsThroughTheTools(t *testing.T) {
	pos, neg := secretcorpus.Positives(), secretcorpus.Negatives()

	t.Run("block", func(t *testing.T) {
		e := newEnv(t)
		sid := e.session(t, t.TempDir())
		for _, s := range pos {
			r := e.call(t, "kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "n", "gist": "g", "notes": []string{"ok", s.Text}})
			if !r.isError || !strings.HasPrefix(r.text, "Error: notes[1]: looks like ") || !strings.Contains(r.text, "store a reference") {
				t.Errorf("corpus.txt:%d: put_node in block mode: %s", s.Line, r.text)
			}
			r = e.call(t, "kg_put_edge", map[string]any{"session_id": sid, "level": "user", "from": "a", "to": "b", "rel": "r", "notes": []string{s.Text}})
			if !r.isError || !strings.HasPrefix(r.text, "Error: notes[0]: looks like ") {
				t.Errorf("corpus.txt:%d: put_edge in block mode: %s", s.Line, r.text)
			}
			mustNotContain(t, r.text, s.Secret)
		}
		if d, _ := e.store.Load(context.Background(), domain.UserGraph); len(d.Nodes)+len(d.Edges) != 0 {
			t.Fatalf("block mode stored %d nodes and %d edges", len(d.Nodes), len(d.Edges))
		}
		for i, s := range neg {
			e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "neg-" + itoa(i), "gist": "g", "notes": []string{s.Text}})
		}
	})

	t.Run("redact", func(t *testing.T) {
		e := newEnv(t, withSecrets(secretscreen.Redact))
		sid := e.session(t, t.TempDir())
		for i, s := range pos {
			r := e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "p-" + itoa(i), "gist": "g", "notes": []string{s.Text}})
			mustContain(t, r.text, "Redacted: notes[0] looked like ", "stored as [REDACTED:"+s.Kind+"]")
			mustNotContain(t, r.text, s.Secret)
			r = e.ok(t, "kg_read", map[string]any{"session_id": sid, "id": "p-" + itoa(i)})
			mustContain(t, r.text, "[REDACTED:"+s.Kind+"]")
			mustNotContain(t, r.text, s.Secret)
		}
		stored := e.storedText(t)
		for _, s := range pos {
			if strings.Contains(stored, s.Secret) {
				t.Errorf("corpus.txt:%d: the store holds the secret in redact mode", s.Line)
			}
		}
	})

	t.Run("allow", func(t *testing.T) {
		e := newEnv(t, withSecrets(secretscreen.Allow))
		sid := e.session(t, t.TempDir())
		for i, s := range pos[:10] {
			r := e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "user", "id": "p-" + itoa(i), "gist": "g", "notes": []string{s.Text}})
			mustNotContain(t, r.text, "Redacted")
		}
		stored := e.storedText(t)
		for _, s := range pos[:10] {
			if !strings.Contains(stored, s.Secret) {
				t.Errorf("corpus.txt:%d: allow mode did not store the text as given", s.Line)
			}
		}
	})
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
