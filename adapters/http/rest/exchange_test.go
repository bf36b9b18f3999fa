package rest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestExportThenImportElsewhere(t *testing.T) {
	e := newEnv(t, seedTiers())
	sid := e.session(e.proj)
	e.put("project", sid, "p", "project node", "notes", []string{"why p"})
	e.do("POST", "/api/edges", map[string]any{"level": "project", "session_id": sid, "from": "p", "to": "src/p.go", "rel": "touches", "notes": []string{"n"}}).ok(t)
	e.do("POST", "/api/progress", map[string]any{"session_id": sid, "task_id": "t", "level": "project", "state": map[string]any{"step": 1}}).ok(t)

	doc := e.do("GET", "/api/export?level=user", nil).ok(t)
	if doc.body["format"] != "kg-graph" || doc.body["version"] != 1.0 || doc.body["level"] != "user" ||
		len(doc.body["nodes"].([]any)) != 3 || get(doc.body, "nodes", 1, "tier") != "orphaned" || get(doc.body, "edges", 0, "notes", 0) != "edge note" {
		t.Errorf("user export = %s", doc.raw)
	}
	pdoc := e.do("GET", "/api/export?level=project&session_id="+sid, nil).ok(t)
	if pdoc.body["project_path"] != e.proj || get(pdoc.body, "progress", "t", "step") != 1.0 {
		t.Errorf("project export = %s", pdoc.raw)
	}

	// Into another project: the query names it.
	other := t.TempDir()
	r := e.do("POST", "/api/import?mode=merge&level=project&project_path="+other, pdoc.raw).ok(t)
	if r.body["nodes_written"] != 1.0 || r.body["edges_written"] != 1.0 || r.body["progress_written"] != 1.0 || r.body["mode"] != "merge" {
		t.Errorf("import = %s", r.raw)
	}
	got := e.do("GET", "/api/export?level=project&project_path="+other, nil).ok(t)
	if get(got.body, "nodes", 0, "created_ts") != get(pdoc.body, "nodes", 0, "created_ts") || get(got.body, "nodes", 0, "notes", 0) != "why p" ||
		get(got.body, "edges", 0, "notes", 0) != "n" {
		t.Errorf("re-exported = %s\nsource = %s", got.raw, pdoc.raw)
	}
	// The same document again: nothing written.
	if r := e.do("POST", "/api/import?level=project&project_path="+other, pdoc.raw).ok(t); r.body["unchanged"] != 3.0 || r.body["nodes_written"] != 0.0 {
		t.Errorf("second import = %s", r.raw)
	}

	// Without a target in the query, the document's own graph; replace
	// deletes what it lacks.
	e.put("user", sid, "extra", "not in the export")
	r = e.do("POST", "/api/import?mode=replace", doc.raw).ok(t)
	if r.body["level"] != "user" || r.body["nodes_deleted"] != 1.0 || r.body["unchanged"] != 5.0 {
		t.Errorf("replace = %s", r.raw)
	}
	if _, ok := e.stored(domain.UserGraph, "extra"); ok {
		t.Error("replace kept a node the document lacks")
	}
}

func TestImportRejectsWholeDocuments(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put("user", sid, "keep", "stays")
	head := `{"format":"kg-graph","version":1,"level":"user",`
	tests := []struct {
		name, query, body   string
		status              int
		kind, field, detail string
	}{
		{"one bad node", "mode=replace", head + `"nodes":[{"id":"ok","gist":"fine"},{"id":"x","gist":"` + strings.Repeat("g", 1001) + `"}]}`,
			400, "invalid", "nodes[1].gist", "1001 chars, limit 1000"},
		{"bad edge", "", head + `"edges":[{"from":"a","to":"b","rel":"no space"}]}`, 400, "invalid", "edges[0].rel", "must start with"},
		{"not a document", "", `{"nodes":[]}`, 400, "invalid", "format", "missing"},
		{"newer version", "", `{"format":"kg-graph","version":9}`, 400, "invalid", "version", "newer kg"},
		{"bad mode", "mode=overwrite", head + `"nodes":[]}`, 400, "invalid", "mode", "not one of merge, replace"},
		{"no graph named", "", `{"format":"kg-graph","version":1}`, 400, "invalid", "level", "required"},
		{"not JSON", "", `{"format":`, 400, "invalid", "body", "not valid JSON"},
		{"no body", "", "", 400, "invalid", "body", "required"},
		{"bad moves", "moves=some", head + `"nodes":[]}`, 400, "invalid", "moves", "not a whole number"},
		{"negative moves", "moves=-1", head + `"nodes":[]}`, 400, "invalid", "moves", "not a whole number"},
		{"unknown session", "level=user&session_id=0123456789abcdef", head + `"nodes":[]}`, 404, "not_found", "session_id", "unknown session"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.do("POST", "/api/import?"+tc.query, tc.body).fails(t, tc.status, tc.kind, tc.field, tc.detail)
		})
	}
	e.do("POST", "/api/import", head+`"nodes":[]}`, "Content-Type", "text/plain").
		fails(t, http.StatusUnsupportedMediaType, "invalid", "Content-Type", "must be JSON")
	r := e.do("GET", "/api/export?level=user", nil).ok(t)
	if nodes := r.body["nodes"].([]any); len(nodes) != 1 || get(nodes, 0, "id") != "keep" {
		t.Errorf("rejected imports changed the graph: %s", r.raw)
	}
	e.do("GET", "/api/export", nil).fails(t, http.StatusBadRequest, "invalid", "level", "required")
}

// pad is a reader of n bytes of a JSON document whose filler is a string
// field the decoder ignores.
func pad(n int) io.Reader {
	head := `{"format":"kg-graph","version":1,"level":"user","nodes":[{"id":"big","gist":"g"}],"pad":"`
	tail := `"}`
	return io.MultiReader(strings.NewReader(head), io.LimitReader(repeat('x'), int64(n-len(head)-len(tail))), strings.NewReader(tail))
}

type repeat byte

// Read fills p by doubling copies rather than byte by byte: a byte loop
// over 64 MiB costs seconds under the race detector.
func (r repeat) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = byte(r)
	for n := 1; n < len(p); n *= 2 {
		copy(p[n:], p[:n])
	}
	return len(p), nil
}

func TestImportHasItsOwnBodyLimit(t *testing.T) {
	t.Parallel() // three bodies of up to 64 MiB: the longest test of the package
	e := newEnv(t)
	send := func(n int, known bool) *http.Response {
		req, err := http.NewRequest("POST", e.url+"/api/import", pad(n))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if known {
			req.ContentLength = int64(n)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode == http.StatusRequestEntityTooLarge && !strings.Contains(body["detail"].(string), "67108864 bytes") {
			t.Errorf("413 without the limit: %v", body)
		}
		return resp
	}
	// Over the 1 MiB of the other routes, within the 64 MiB of import.
	if resp := send(2<<20, true); resp.StatusCode != http.StatusOK {
		t.Errorf("a 2 MiB import: %d", resp.StatusCode)
	}
	if resp := send(domain.MaxImportBodySize+1, true); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("an import over 64 MiB (length known): %d", resp.StatusCode)
	}
	if resp := send(domain.MaxImportBodySize+1, false); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("an import over 64 MiB (chunked): %d", resp.StatusCode)
	}
}

// TestImportListsTheMovesAsked checks the moves query of an import: its
// compaction run lists that many moves with their reasons and counts the
// others, whose ids are in the lists all the same.
func TestImportListsTheMovesAsked(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"format":"kg-graph","version":1,"level":"project","nodes":[`)
	for i := range 400 { // 400 nodes of about 30 tokens: far over the default budget
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"n%03d","gist":"%s %03d"}`, i, strings.Repeat("a gist of a node ", 6), i)
	}
	b.WriteString(`]}`)
	doc := b.String()
	e := newEnv(t)
	moved := func(r reply) (listed, unlisted, ids int) {
		c := r.body["compaction"].(map[string]any)
		for _, k := range []string{"archived", "restored", "orphaned", "pruned"} {
			ids += len(c[k].([]any))
		}
		u, _ := c["moves_unlisted"].(float64)
		return len(c["moves"].([]any)), int(u), ids
	}
	all := e.do("POST", "/api/import?moves=all&level=project&project_path="+t.TempDir(), doc).ok(t)
	total, unlisted, ids := moved(all)
	if total < 100 || unlisted != 0 || ids < total {
		t.Fatalf("moves=all listed %d, left %d unlisted, %d ids; want every move of a large run listed", total, unlisted, ids)
	}
	if _, ok := all.body["compaction"].(map[string]any)["moves_unlisted"]; ok {
		t.Errorf("moves_unlisted is in an answer that lists every move: %.300s", all.raw)
	}
	for _, tc := range []struct {
		query string
		want  int
	}{{"moves=3", 3}, {"moves=0", 0}, {"", min(total, 1000)}} {
		r := e.do("POST", "/api/import?"+tc.query+"&level=project&project_path="+t.TempDir(), doc).ok(t)
		listed, unlisted, got := moved(r)
		if listed != tc.want || unlisted != total-tc.want || got != ids {
			t.Errorf("%q: listed %d, unlisted %d, %d ids; want %d, %d, %d", tc.query, listed, unlisted, got, tc.want, total-tc.want, ids)
		}
	}
}
