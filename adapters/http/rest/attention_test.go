package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain/secrets/secretcorpus"
	"github.com/kg-memory/kg/domain/secretscreen"
)

// GET /api/attention lists what of one graph needs a person
// (docs/design/trust.md#needs-attention): the clusters of possible
// duplicates, the credentials stored (named, never shown) and the plan's
// moves; and changes nothing.
func TestAttentionListsDuplicatesSecretsAndTheEdge(t *testing.T) {
	e := newEnv(t, withSecrets(secretscreen.Allow))
	var secret secretcorpus.Sample
	for _, s := range secretcorpus.Positives() {
		if s.Source == "corpus.txt" && s.Kind == "aws-access-key" {
			secret = s
			break
		}
	}
	if secret.Text == "" {
		t.Fatal("no aws-access-key sample in the corpus")
	}
	e.put("user", "", "build-proto-step", "The build breaks when make runs with -j4 on the proto step").ok(t)
	e.put("user", "", "proto-parallel", "The build breaks when make runs with -j8 on the proto step").ok(t)
	e.put("user", "", "deploy-key", "where the deploy key lives", "notes", []string{secret.Text}).ok(t)
	before := e.userText()

	r := e.do("GET", "/api/attention?level=user", nil).ok(t)
	if get(r.body, "duplicates", 0, "ids", 0) != "build-proto-step" || get(r.body, "duplicates", 0, "ids", 1) != "proto-parallel" ||
		get(r.body, "duplicates", 0, "pairs", 0, "by") != "gist" {
		t.Errorf("duplicates: %s", r.raw)
	}
	if get(r.body, "secrets", 0, "node") != "deploy-key" || get(r.body, "secrets", 0, "field") != "notes[0]" ||
		get(r.body, "secrets", 0, "kind") != "aws-access-key" {
		t.Errorf("secrets: %s", r.raw)
	}
	if msg, _ := get(r.body, "secrets", 0, "message").(string); !strings.HasPrefix(msg, "notes[0]: looks like an AWS access key (chars ") {
		t.Errorf("message %q", msg)
	}
	if strings.Contains(r.raw, secret.Text) {
		t.Errorf("the answer shows the secret: %s", r.raw)
	}
	if _, ok := get(r.body, "edge", "moves").([]any); !ok {
		t.Errorf("edge: the plan's moves, a list: %s", r.raw)
	}
	if s, _ := get(r.body, "stale").([]any); s == nil || len(s) != 0 {
		t.Errorf("stale: an empty list when none is marked: %s", r.raw)
	}
	if e.userText() != before {
		t.Error("a read changed the graph")
	}
	e.do("GET", "/api/attention", nil).fails(t, http.StatusBadRequest, "invalid", "level", "")
}
