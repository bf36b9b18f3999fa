package rest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// shape is what a test asks of one key of an answer: its JSON type
// ("string", "number", "integer", "bool", "object", "array", "null",
// "string|null"), or a nested shape.
type shape map[string]any

// hasShape reports how v departs from want: a key missing or of another
// type. Keys want does not name are kg's additions and are let through.
func hasShape(path string, v any, want shape) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s: %v is not an object", path, v)}
	}
	var bad []string
	for k, w := range want {
		got, present := m[k]
		if !present {
			bad = append(bad, path+"."+k+": missing")
			continue
		}
		if sub, ok := w.(shape); ok {
			bad = append(bad, hasShape(path+"."+k, got, sub)...)
			continue
		}
		if !isType(got, w.(string)) {
			bad = append(bad, fmt.Sprintf("%s.%s: %v, want %s", path, k, got, w))
		}
	}
	return bad
}

func isType(v any, want string) bool {
	for _, w := range strings.Split(want, "|") {
		switch x := v.(type) {
		case string:
			if w == "string" {
				return true
			}
		case float64:
			if w == "number" || (w == "integer" && x == float64(int64(x))) {
				return true
			}
		case bool:
			if w == "bool" {
				return true
			}
		case map[string]any:
			if w == "object" {
				return true
			}
		case []any:
			if w == "array" {
				return true
			}
		case nil:
			if w == "null" {
				return true
			}
		}
	}
	return false
}

// The REST answers docs/migrating.md promises are kept: every key of the
// replaced server's answer (kg-memory 0.9.11's store and session manager),
// with its type, is in kg's answer, which may add keys of its own
// (docs/design/http.md#shapes-of-the-replaced-server). The progress state
// comes back bare, and {} when there is none; the stats have the replaced
// server's keys; graph/read always has a project graph.
func TestReplacedServerShapesAreKept(t *testing.T) {
	e := newEnv(t)
	reg := e.do("POST", "/api/sessions/register?project_path="+e.proj, nil).ok(t)
	sid := reg.body["session_id"].(string)
	e.clock.Advance(90 * time.Second)
	put := e.do("POST", "/api/nodes", map[string]any{"level": "project", "session_id": sid, "id": "n", "gist": "g"}).ok(t)
	edge := e.do("POST", "/api/edges", map[string]any{"level": "project", "session_id": sid, "from": "n", "to": "src/n.go", "rel": "touches"}).ok(t)
	read := e.do("GET", "/api/nodes/project/n?session_id="+sid, nil).ok(t)
	saved := e.do("POST", "/api/progress", map[string]any{"task_id": "t", "state": map[string]any{"step": 3}}).ok(t)
	loaded := e.do("GET", "/api/progress/t", nil).ok(t)
	none := e.do("GET", "/api/progress/nothing-stored", nil).ok(t)
	stats := e.do("GET", "/api/sessions/"+sid+"/stats", nil).ok(t)
	graphs := e.do("GET", "/api/graph/read?session_id="+sid, nil).ok(t)
	userOnly := e.do("GET", "/api/graph/read", nil).ok(t)
	health := e.do("GET", "/api/health", nil).ok(t)
	delEdge := e.do("DELETE", "/api/edges/project/n/src%2Fn.go/touches?session_id="+sid, nil).ok(t)
	delNode := e.do("DELETE", "/api/nodes/project/n?session_id="+sid, nil).ok(t)

	graph := shape{"nodes": "array", "edges": "array"}
	for _, c := range []struct {
		name string
		got  reply
		want shape
	}{
		{"POST /api/sessions/register", reg, shape{"session_id": "string", "start_ts": "number"}},
		{"POST /api/nodes", put, shape{"node": "object", "level": "string"}},
		{"POST /api/edges", edge, shape{"edge": "object", "level": "string"}},
		{"GET /api/nodes/{level}/{id}", read, shape{"node": "object", "level": "string", "was_archived": "bool"}},
		{"POST /api/progress", saved, shape{"task_id": "string", "stored": "bool"}},
		{"GET /api/sessions/{id}/stats", stats, shape{"session_id": "string", "duration_seconds": "integer", "op_count": "integer",
			"project_path": "string|null", "started_at": "number",
			"graphs": shape{"user": shape{"nodes": "integer", "edges": "integer"}, "project": shape{"nodes": "integer", "edges": "integer"}}}},
		{"GET /api/graph/read", graphs, shape{"user": graph, "project": graph}},
		{"GET /api/graph/read without a project", userOnly, shape{"user": graph, "project": graph}},
		{"GET /api/health", health, shape{"status": "string", "version": "string", "transport": "string",
			"active_sessions": "integer", "loaded_graphs": "integer"}},
		{"DELETE /api/edges/{level}/{from}/{to}/{rel}", delEdge, shape{"deleted": "bool", "level": "string"}},
		{"DELETE /api/nodes/{level}/{id}", delNode, shape{"deleted": "string", "level": "string", "edges_deleted": "integer"}},
	} {
		for _, p := range hasShape(c.name, c.got.body, c.want) {
			t.Errorf("%s\n%s", p, c.got.raw)
		}
	}

	// The values, where the replaced server's say something.
	if saved.body["stored"] != true || saved.body["task_id"] != "t" {
		t.Errorf("POST /api/progress = %s", saved.raw)
	}
	if strings.TrimSpace(loaded.raw) != `{"step":3}` || strings.TrimSpace(none.raw) != "{}" {
		t.Errorf("GET /api/progress: %s and, for a task with none, %s; want the state itself and {}", loaded.raw, none.raw)
	}
	if stats.body["duration_seconds"] != 90.0 || stats.body["started_at"] != reg.body["start_ts"] || stats.body["op_count"] != 3.0 ||
		get(stats.body, "graphs", "project", "nodes") != 1.0 || get(stats.body, "graphs", "project", "edges") != 1.0 {
		t.Errorf("GET /api/sessions/{id}/stats = %s", stats.raw)
	}
	if get(userOnly.body, "project", "level") != "project" || get(userOnly.body, "project", "project") != nil {
		t.Errorf("GET /api/graph/read without a project: project = %v", userOnly.body["project"])
	}
}
