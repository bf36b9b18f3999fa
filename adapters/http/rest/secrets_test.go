package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/secrets/secretcorpus"
	"github.com/kg-memory/kg/domain/secretscreen"
)

func withSecrets(m secretscreen.Mode) option {
	return func(_ *testing.T, s *setup) { s.app.Secrets = m }
}

// userText is every string the store holds of the user graph's nodes and
// edges.
func (e *env) userText() string {
	e.t.Helper()
	d, err := e.store.Load(context.Background(), domain.UserGraph)
	if err != nil {
		e.t.Fatal(err)
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

// importDoc is an export document of the user graph holding one node per
// text, each in its notes, and one edge carrying the first in its notes.
func importDoc(texts []string) string {
	type node struct {
		ID    string   `json:"id"`
		Gist  string   `json:"gist"`
		Notes []string `json:"notes"`
	}
	doc := map[string]any{"format": "kg-graph", "version": 1, "level": "user"}
	var nodes []node
	for i, s := range texts {
		nodes = append(nodes, node{ID: "imp-" + strconv.Itoa(i), Gist: "imported", Notes: []string{s}})
	}
	doc["nodes"] = nodes
	doc["edges"] = []map[string]any{{"from": "imp-0", "to": "imp-1", "rel": "r", "notes": []string{texts[0]}}}
	b, _ := json.Marshal(doc)
	return string(b)
}

// The corpus through POST /api/nodes, POST /api/edges and POST /api/import in
// each KG_SECRETS mode (docs/design/trust.md#secrets).
func TestSecretsThroughREST(t *testing.T) {
	pos := secretcorpus.Positives()
	var texts []string
	for _, s := range pos {
		texts = append(texts, s.Text)
	}

	t.Run("block", func(t *testing.T) {
		e := newEnv(t)
		for _, s := range pos {
			r := e.do("POST", "/api/nodes", map[string]any{"level": "user", "id": "n", "gist": "g", "notes": []string{s.Text}})
			r.fails(t, http.StatusBadRequest, "invalid", "notes[0]", "looks like ")
			if strings.Contains(r.raw, s.Secret) {
				t.Errorf("corpus.txt:%d: the error echoes the secret", s.Line)
			}
			r = e.do("POST", "/api/edges", map[string]any{"level": "user", "from": "a", "to": "b", "rel": "r", "notes": []string{s.Text}})
			r.fails(t, http.StatusBadRequest, "invalid", "notes[0]", "looks like ")
			r = e.do("POST", "/api/nodes", map[string]any{"level": "user", "id": "n", "gist": "fine", "touches": []string{s.Text[:min(len(s.Text), 512)]}})
			if r.status != http.StatusBadRequest {
				t.Errorf("corpus.txt:%d: a secret in touches: %d %s", s.Line, r.status, r.raw)
			}
		}
		r := e.do("POST", "/api/import?mode=merge", importDoc(texts))
		r.fails(t, http.StatusBadRequest, "invalid", "nodes[0].notes[0]", "looks like ")
		for _, s := range pos {
			if strings.Contains(r.raw, s.Secret) {
				t.Errorf("corpus.txt:%d: the import's error echoes the secret", s.Line)
			}
		}
		if got := e.userText(); got != "" {
			t.Fatalf("block mode stored: %q", got)
		}
	})

	t.Run("redact", func(t *testing.T) {
		e := newEnv(t, withSecrets(secretscreen.Redact))
		for i, s := range pos {
			r := e.do("POST", "/api/nodes", map[string]any{"level": "user", "id": "n" + strconv.Itoa(i), "gist": "g", "notes": []string{s.Text}}).ok(t)
			if get(r.body, "redacted", 0, "kind") != s.Kind || get(r.body, "redacted", 0, "field") != "notes[0]" ||
				get(r.body, "redacted", 0, "stored_as") != "[REDACTED:"+s.Kind+"]" || strings.Contains(r.raw, s.Secret) {
				t.Errorf("corpus.txt:%d: %s", s.Line, r.raw)
			}
		}
		r := e.do("POST", "/api/import?mode=merge", importDoc(texts)).ok(t)
		if red, _ := r.body["redacted"].([]any); len(red) != len(pos)+1 || get(r.body, "redacted", 0, "field") != "nodes[0].notes[0]" {
			t.Errorf("import redacted = %v", r.body["redacted"])
		}
		stored := e.userText()
		for _, s := range pos {
			if strings.Contains(stored, s.Secret) {
				t.Errorf("corpus.txt:%d: the store holds the secret in redact mode", s.Line)
			}
		}
	})

	t.Run("allow", func(t *testing.T) {
		e := newEnv(t, withSecrets(secretscreen.Allow))
		e.do("POST", "/api/import?mode=merge", importDoc(texts)).ok(t)
		stored := e.userText()
		for _, s := range pos {
			if !strings.Contains(stored, s.Secret) {
				t.Errorf("corpus.txt:%d: allow mode did not store the text as given", s.Line)
			}
		}
	})
}
