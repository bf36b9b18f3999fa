package rest_test

import (
	"strings"
	"testing"
)

// POST /api/nodes names the nodes a new one may repeat in
// possible_duplicates, and writes it all the same
// (docs/design/trust.md#duplicates).
func TestPutNodeNamesPossibleDuplicates(t *testing.T) {
	e := newEnv(t)
	r := e.do("POST", "/api/nodes", map[string]any{"level": "user", "id": "build-proto-step", "gist": "The build breaks when make runs with -j4 on the proto step"}).ok(t)
	if strings.Contains(r.raw, "possible_duplicates") {
		t.Fatalf("first write: %s", r.raw)
	}
	r = e.do("POST", "/api/nodes", map[string]any{"level": "user", "id": "proto-parallel", "gist": "The build breaks when make runs with -j8 on the proto step"}).ok(t)
	if get(r.body, "possible_duplicates", 0, "id") != "build-proto-step" || get(r.body, "possible_duplicates", 0, "by") != "gist" {
		t.Fatalf("near-identical gist: %s", r.raw)
	}
	if s, _ := get(r.body, "possible_duplicates", 0, "score").(float64); s < 0.8 || s >= 1 {
		t.Fatalf("score %v; want in [0.8, 1)", s)
	}
	r = e.do("POST", "/api/nodes", map[string]any{"level": "user", "id": "Build_Proto_Steps", "gist": "another matter"}).ok(t)
	if get(r.body, "possible_duplicates", 0, "id") != "build-proto-step" || get(r.body, "possible_duplicates", 0, "by") != "id" {
		t.Fatalf("same id: %s", r.raw)
	}
	if got := e.userText(); !strings.Contains(got, "proto-parallel") || !strings.Contains(got, "Build_Proto_Steps") {
		t.Fatalf("a write was dropped: %q", got)
	}
}
