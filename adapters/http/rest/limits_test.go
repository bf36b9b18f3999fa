package rest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Every limit of model.md, breached through REST, is a 400 that names the
// field and the limit, and changes nothing.
func TestEveryLimitThroughREST(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.proj)
	e.put("user", sid, "n", "stored")
	before := e.do("GET", "/api/export?level=user", nil).ok(t).raw

	node := func(kv ...any) map[string]any {
		b := map[string]any{"level": "user", "session_id": sid, "id": "x", "gist": "g"}
		for i := 0; i+1 < len(kv); i += 2 {
			b[kv[i].(string)] = kv[i+1]
		}
		return b
	}
	edge := func(kv ...any) map[string]any {
		b := map[string]any{"level": "user", "session_id": sid, "from": "a", "to": "b", "rel": "r"}
		for i := 0; i+1 < len(kv); i += 2 {
			b[kv[i].(string)] = kv[i+1]
		}
		return b
	}
	many := func(n int, s string) []string {
		l := make([]string, n)
		for i := range l {
			l[i] = s
		}
		return l
	}
	tests := []struct {
		name, method, path string
		body               any
		field, detail      string
	}{
		{"id over 128", "POST", "/api/nodes", node("id", strings.Repeat("i", 129)), "id", "129 chars, limit 128"},
		{"id with a slash", "POST", "/api/nodes", node("id", "a/b"), "id", "must start with a letter or digit"},
		{"id starting with a dot", "POST", "/api/nodes", node("id", ".x"), "id", "must start with a letter or digit"},
		{"empty id", "POST", "/api/nodes", node("id", ""), "id", "must not be empty"},
		{"gist over 1000", "POST", "/api/nodes", node("gist", strings.Repeat("é", 1001)), "gist", "1001 chars, limit 1000"},
		{"blank gist", "POST", "/api/nodes", node("gist", "   "), "gist", "must not be empty"},
		{"gist on two lines", "POST", "/api/nodes", node("gist", "one\ntwo"), "gist", "one line; put details in notes"},
		{"gist with NUL", "POST", "/api/nodes", node("gist", "a\x00b"), "gist", "NUL"},
		{"51 notes", "POST", "/api/nodes", node("notes", many(51, "n")), "notes", "51 items, limit 50"},
		{"note over 4000", "POST", "/api/nodes", node("notes", []string{"ok", strings.Repeat("n", 4001)}), "notes[1]", "4001 chars, limit 4000"},
		{"empty note", "POST", "/api/nodes", node("notes", []string{""}), "notes[0]", "must not be empty"},
		{"51 touches", "POST", "/api/nodes", node("touches", many(51, "t")), "touches", "51 items, limit 50"},
		{"touch over 512", "POST", "/api/nodes", node("touches", []string{strings.Repeat("t", 513)}), "touches[0]", "513 chars, limit 512"},
		{"touch with a tab", "POST", "/api/nodes", node("touches", []string{"a\tb"}), "touches[0]", "control characters"},
		{"rel over 64", "POST", "/api/edges", edge("rel", strings.Repeat("r", 65)), "rel", "65 chars, limit 64"},
		{"rel with a space", "POST", "/api/edges", edge("rel", "a b"), "rel", "must start with"},
		{"end over 512", "POST", "/api/edges", edge("to", "src/"+strings.Repeat("e", 509)), "to", "513 chars, limit 512"},
		{"end with a leading space", "POST", "/api/edges", edge("from", " src/a.go"), "from", "white space"},
		{"end with an escape", "POST", "/api/edges", edge("to", "src/\x1b[31m.go"), "to", "control characters"},
		{"edge note over 4000", "POST", "/api/edges", edge("notes", []string{strings.Repeat("n", 4001)}), "notes[0]", "4001 chars, limit 4000"},
		{"progress over 64 KiB", "POST", "/api/progress", map[string]any{"task_id": "t", "state": map[string]any{"s": strings.Repeat("s", 65536)}}, "state", "limit 65536"},
		{"progress not an object", "POST", "/api/progress", map[string]any{"task_id": "t", "state": "text"}, "state", "JSON object"},
		{"task id over 128", "POST", "/api/progress", map[string]any{"task_id": strings.Repeat("t", 129), "state": map[string]any{}}, "task_id", "129 chars, limit 128"},
		{"query over 1000", "GET", "/api/search?q=" + strings.Repeat("q", 1001), nil, "query", "1001 chars, limit 1000"},
		{"query not UTF-8", "GET", "/api/search?q=%FF", nil, "query", "valid UTF-8"},
		{"body not UTF-8", "POST", "/api/nodes", []byte(`{"level":"user","id":"x","gist":"` + "\xff" + `"}`), "body", "valid UTF-8"},
		{"relative project path", "POST", "/api/nodes", map[string]any{"level": "project", "project_path": "src", "id": "x", "gist": "g"}, "project_path", "absolute"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.do(tc.method, tc.path, tc.body).fails(t, http.StatusBadRequest, "invalid", tc.field, tc.detail)
		})
	}
	// A lookup accepts any id (model.md): one no write would take is not
	// found, not a crash.
	e.do("GET", "/api/nodes/user/"+url.PathEscape("a\x00/..")+"?session_id="+sid, nil).
		fails(t, http.StatusNotFound, "not_found", "id", "not found")
	if after := e.do("GET", "/api/export?level=user", nil).ok(t).raw; after[strings.Index(after, `"nodes"`):] != before[strings.Index(before, `"nodes"`):] {
		t.Errorf("rejected writes changed the graph:\nbefore %s\nafter  %s", before, after)
	}
	if r := e.do("GET", "/api/progress/t", nil); r.status != http.StatusNotFound {
		t.Errorf("a rejected progress was stored: %s", r.raw)
	}
}
