package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/secretscreen"
)

// mergeSeed is a project graph with near-duplicates a and b, b with edges
// in, out, to a file path and to a.
func mergeSeed(e *env) string {
	sid := e.session(e.proj)
	e.put("project", sid, "a", "cache the token for five minutes", "notes", []string{"from the auth review"})
	e.put("project", sid, "b", "cache the token for 5 minutes", "notes", []string{"from the auth review", "then refresh"},
		"touches", []string{"src/token.go"})
	e.put("project", sid, "c", "the token client")
	for _, ed := range []map[string]any{
		{"from": "b", "to": "c", "rel": "uses"},
		{"from": "c", "to": "b", "rel": "calls", "notes": []string{"on expiry"}},
		{"from": "b", "to": "src/token.go", "rel": "lives-in"},
		{"from": "a", "to": "b", "rel": "same-as"},
	} {
		ed["level"], ed["session_id"] = "project", sid
		e.do("POST", "/api/edges", ed).ok(e.t)
	}
	return sid
}

func TestMergeNodesOverREST(t *testing.T) {
	e := newEnv(t)
	mergeSeed(e)
	body := func(kv ...any) map[string]any {
		b := map[string]any{"level": "project", "project_path": e.proj, "into": "a", "from": "b"}
		for i := 0; i+1 < len(kv); i += 2 {
			b[kv[i].(string)] = kv[i+1]
		}
		return b
	}

	// The plan: what would happen, and nothing changes.
	p := e.do("POST", "/api/nodes/merge", body("dry_run", true)).ok(t)
	if p.body["dry_run"] != true || p.body["node"] != nil || p.body["deleted"] != nil || p.body["seqs"] != nil || get(p.body, "into_version") != 1.0 ||
		get(p.body, "merged", "gist") != "cache the token for five minutes" || get(p.body, "merged", "notes", 1) != "then refresh" ||
		get(p.body, "merged", "touches", 0) != "src/token.go" {
		t.Fatalf("plan = %s", p.raw)
	}
	actions := map[string]string{}
	for _, x := range get(p.body, "edges").([]any) {
		was := get(x, "was").(map[string]any)
		actions[was["from"].(string)+" "+was["rel"].(string)+" "+was["to"].(string)] = get(x, "action").(string)
	}
	want := map[string]string{"a same-as b": "dropped", "b lives-in src/token.go": "rewired", "b uses c": "rewired", "c calls b": "rewired"}
	if len(actions) != len(want) {
		t.Fatalf("plan edges = %v", actions)
	}
	for k, v := range want {
		if actions[k] != v {
			t.Errorf("plan: %s is %q; want %q", k, actions[k], v)
		}
	}
	if _, ok := e.stored(domain.ProjectGraph(e.proj), "b"); !ok {
		t.Fatal("a dry run deleted b")
	}

	// The merge, with b's gist chosen and the versions looked at.
	r := e.do("POST", "/api/nodes/merge", body("gist", "cache the token for 5 minutes", "into_version", 1, "from_version", 1)).ok(t)
	if r.body["dry_run"] != false || get(r.body, "node", "id") != "a" || get(r.body, "node", "version") != 2.0 ||
		r.body["deleted"] != "b" || r.body["edges_deleted"] != 4.0 || len(get(r.body, "written").([]any)) != 3 ||
		get(r.body, "seqs", "from") != get(r.body, "node", "seq") || get(r.body, "seqs", "to").(float64) <= get(r.body, "seqs", "from").(float64) {
		t.Fatalf("merge = %s", r.raw)
	}
	key := domain.ProjectGraph(e.proj)
	a, _ := e.stored(key, "a")
	if a.Gist != "cache the token for 5 minutes" || strings.Join(a.Notes, "|") != "from the auth review|then refresh" {
		t.Errorf("stored a = %+v", a)
	}
	if _, ok := e.stored(key, "b"); ok {
		t.Error("b is still stored")
	}
	for _, k := range []domain.EdgeKey{{From: "a", To: "c", Rel: "uses"}, {From: "c", To: "a", Rel: "calls"}, {From: "a", To: "src/token.go", Rel: "lives-in"}} {
		if !e.storedEdge(key, k) {
			t.Errorf("edge %s not stored", k)
		}
	}
	for _, k := range []domain.EdgeKey{{From: "a", To: "b", Rel: "same-as"}, {From: "a", To: "a", Rel: "same-as"}, {From: "b", To: "c", Rel: "uses"}} {
		if e.storedEdge(key, k) {
			t.Errorf("edge %s still stored", k)
		}
	}
}

func TestMergeNodesOverRESTRefusals(t *testing.T) {
	e := newEnv(t)
	sid := mergeSeed(e)
	body := func(kv ...any) map[string]any {
		b := map[string]any{"level": "project", "project_path": e.proj, "into": "a", "from": "b"}
		for i := 0; i+1 < len(kv); i += 2 {
			b[kv[i].(string)] = kv[i+1]
		}
		return b
	}
	// An agent changed b after the person looked: 409, nothing merged.
	e.put("project", sid, "b", "cache the token for 5 minutes, per user")
	e.do("POST", "/api/nodes/merge", body("into_version", 1, "from_version", 1)).
		fails(t, http.StatusConflict, "conflict", "from_version", `node "b" is at version 2, not 1`)
	if _, ok := e.stored(domain.ProjectGraph(e.proj), "b"); !ok {
		t.Fatal("a refused merge deleted b")
	}
	e.do("POST", "/api/nodes/merge", body("from", "a")).fails(t, http.StatusBadRequest, "invalid", "from", `"a" is also into`)
	e.do("POST", "/api/nodes/merge", body("into", "")).fails(t, http.StatusBadRequest, "invalid", "into", "")
	e.do("POST", "/api/nodes/merge", body("from", "gone")).fails(t, http.StatusNotFound, "not_found", "from", `node "gone" not found`)
	e.do("POST", "/api/nodes/merge", body("gist", strings.Repeat("g", 1001))).fails(t, http.StatusBadRequest, "invalid", "gist", "1001 chars, limit 1000")
	e.do("POST", "/api/nodes/merge", body("into_version", "one")).fails(t, http.StatusBadRequest, "invalid", "into_version", "")
	key := "AK" + "IA" + "QWERTYUIOPASDFGH"
	r := e.do("POST", "/api/nodes/merge", body("gist", "the key is "+key))
	r.fails(t, http.StatusBadRequest, "invalid", "gist", "looks like an AWS access key")
	if strings.Contains(r.raw, key) {
		t.Error("the refusal echoes the secret")
	}
	e.do("POST", "/api/nodes/merge", body("level", "")).fails(t, http.StatusBadRequest, "invalid", "level", "")
}

func TestMergeNodesOverRESTRedacts(t *testing.T) {
	e := newEnv(t, withSecrets(secretscreen.Redact))
	mergeSeed(e)
	key := "AK" + "IA" + "QWERTYUIOPASDFGH"
	r := e.do("POST", "/api/nodes/merge", map[string]any{"level": "project", "project_path": e.proj, "into": "a", "from": "b",
		"gist": "the key is " + key}).ok(t)
	if get(r.body, "redacted", 0, "field") != "gist" || get(r.body, "redacted", 0, "kind") != "aws-access-key" ||
		get(r.body, "node", "gist") != "the key is [REDACTED:aws-access-key]" || strings.Contains(r.raw, key) {
		t.Errorf("merge in redact mode = %s", r.raw)
	}
}
