package team

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/go-chi/chi/v5"
)

// The authorization matrix (docs/security.md#team-servers,
// docs/decisions/0061-authorization-matrix.md): every route of the router —
// taken from the router itself with chi.Walk, so that a route added later
// fails the test until it has a row — and every MCP tool the server lists,
// × five callers × three graphs, on two servers of one database, each cell
// with the status it must get. The table below is the expectation; the
// table in docs/security.md is generated from it (-update-security-doc)
// and checked against it.

var updateSecurityDoc = flag.Bool("update-security-doc", false, "rewrite the authorization matrix in docs/security.md from the test's table")

// caller is who sends a request.
type caller int

const (
	owner   caller = iota // olive, with a token of scope write: the owner of the user graph and the private project
	another               // otto, with a token of scope write
	reader                // olive, with a token of scope read
	revoked               // olive, with a token revoked before it was first used
	noToken               // no credential at all
)

var callerNames = [...]string{"owner", "another", "read scope", "revoked", "no token"}

// graph is the graph a request names.
type graph int

const (
	userGraph      graph = iota // the caller's user graph (level user): olive's for the owner and the read token
	privateProject              // olive's private project, private/olive/…
	sharedProject               // a project everyone shares
)

var graphNames = [...]string{"user graph", "private project", "shared project"}

// row is what a route or tool must answer: for each graph the statuses of
// the owner, another person and the read token ("200 404 200"); "" where
// the route cannot name that graph. A route that names no graph has every
// column alike. The revoked token and no token get 401, unless anon says
// otherwise ("401 401").
type row struct {
	by   [3]string
	anon string
}

// alike is the row of a route that names no graph.
func alike(statuses string) row { return row{by: [3]string{statuses, statuses, statuses}} }

// matrix is the expectation: "METHOD pattern" for a route, "tool NAME" for
// an MCP tool (whose answer is counted as the status its error kind has on
// REST: 200 a result, 400 invalid, 403 the read scope, 404 unknown).
var matrix = map[string]row{
	"GET /health":               {by: [3]string{"200 200 200", "200 200 200", "200 200 200"}, anon: "401 200"}, // no token: the status alone
	"GET /api/health":           {by: [3]string{"200 200 200", "200 200 200", "200 200 200"}, anon: "401 200"},
	"GET /metrics":              alike("403 403 403"),
	"GET /ui":                   alike("301 301 301"),
	"HEAD /ui":                  alike("301 301 301"),
	"GET /ui/*":                 alike("200 200 200"),
	"HEAD /ui/*":                alike("200 200 200"),
	"* /ui/*":                   alike("405 405 403"),
	"POST /ui/login":            alike("303 303 303"),
	"POST /ui/logout":           {by: [3]string{"303 303 303", "303 303 303", "303 303 303"}, anon: "303 303"},
	"POST /":                    alike("200 200 200"),
	"GET /ws":                   {by: [3]string{"101 101 101", "101 404 101", "101 101 101"}},
	"GET /api/projects":         alike("200 200 200"),
	"GET /api/maintenance_debt": alike("200 200 200"),

	"GET /api/graph/read":                         {by: [3]string{"200 200 200", "200 404 200", "200 200 200"}},
	"GET /api/export":                             {by: [3]string{"200 200 200", "200 404 200", "200 200 200"}},
	"GET /api/search":                             {by: [3]string{"200 200 200", "200 404 200", "200 200 200"}},
	"GET /api/history":                            {by: [3]string{"200 200 200", "200 404 200", "200 200 200"}},
	"GET /api/attention":                          {by: [3]string{"200 200 200", "200 404 200", "200 200 200"}},
	"GET /api/compaction/plan":                    {by: [3]string{"200 200 200", "200 404 200", "200 200 200"}},
	"GET /api/nodes/{level}/{id}":                 {by: [3]string{"200 404 200", "200 404 200", "200 200 200"}},
	"GET /api/progress/{task_id}":                 {by: [3]string{"200 200 200", "200 404 200", "200 200 200"}},
	"GET /api/session_bootstrap":                  {by: [3]string{"", "200 404 200", "200 200 200"}},
	"GET /api/session_state":                      {by: [3]string{"", "200 404 200", "200 200 200"}},
	"GET /api/sessions/{id}/stats":                {by: [3]string{"200 404 200", "200 404 200", "200 404 200"}},
	"POST /api/sessions/register":                 {by: [3]string{"200 200 200", "200 404 200", "200 200 200"}},
	"POST /api/sync":                              {by: [3]string{"200 404 200", "200 404 200", "200 404 200"}},
	"POST /api/nodes":                             {by: [3]string{"200 200 403", "200 404 403", "200 200 403"}},
	"POST /api/nodes/merge":                       {by: [3]string{"200 404 403", "200 404 403", "200 200 403"}},
	"POST /api/nodes/archive":                     {by: [3]string{"200 404 403", "200 404 403", "200 200 403"}},
	"POST /api/nodes/useful":                      {by: [3]string{"200 404 403", "200 404 403", "200 404 403"}},
	"DELETE /api/nodes/{level}/{id}":              {by: [3]string{"200 404 403", "200 404 403", "200 200 403"}},
	"POST /api/edges":                             {by: [3]string{"200 200 403", "200 404 403", "200 200 403"}},
	"DELETE /api/edges":                           {by: [3]string{"200 200 403", "200 404 403", "200 200 403"}},
	"DELETE /api/edges/{level}/{from}/{to}/{rel}": {by: [3]string{"200 200 403", "200 404 403", "200 200 403"}},
	"POST /api/progress":                          {by: [3]string{"200 200 403", "200 404 403", "200 200 403"}},
	"POST /api/compaction/run":                    {by: [3]string{"200 200 403", "200 404 403", "200 200 403"}},
	"POST /api/prompt_context":                    {by: [3]string{"", "200 404 403", "200 200 403"}},
	"POST /api/tool_event":                        {by: [3]string{"", "200 404 403", "200 200 403"}},
	"POST /api/hooks/stop":                        {by: [3]string{"", "200 404 403", "200 200 403"}},
	"POST /api/undo":                              {by: [3]string{"200 200 403", "200 404 403", "200 200 403"}},
	"POST /api/import":                            {by: [3]string{"200 200 403", "200 404 403", "200 200 403"}},
	"DELETE /api/projects":                        {by: [3]string{"", "409 404 403", "409 409 403"}},

	"tool kg_read":        {by: [3]string{"200 404 200", "200 404 200", "200 200 200"}},
	"tool kg_search":      {by: [3]string{"200 404 200", "200 404 200", "200 404 200"}},
	"tool kg_sync":        {by: [3]string{"200 404 200", "200 404 200", "200 404 200"}},
	"tool kg_put_node":    {by: [3]string{"200 404 403", "200 404 403", "200 404 403"}},
	"tool kg_put_edge":    {by: [3]string{"200 404 403", "200 404 403", "200 404 403"}},
	"tool kg_delete_node": {by: [3]string{"200 404 403", "200 404 403", "200 404 403"}},
	"tool kg_delete_edge": {by: [3]string{"200 404 403", "200 404 403", "200 404 403"}},
	"tool kg_progress":    {by: [3]string{"200 404 403", "200 404 403", "200 404 403"}},
	"tool kg_useful":      {by: [3]string{"200 404 200", "200 404 200", "200 404 200"}},
}

// want returns the status a caller must get from a surface on a graph, ""
// when the surface cannot name the graph.
func (r row) want(g graph, c caller) string {
	if r.by[g] == "" {
		return ""
	}
	statuses := strings.Fields(r.by[g])
	anon := "401 401"
	if r.anon != "" {
		anon = r.anon
	}
	statuses = append(statuses, strings.Fields(anon)...)
	return statuses[c]
}

// secret is in the gist of olive's nodes in her user graph and private
// project: no answer to anyone else may hold it.
const secret = "launch date"

// fixture is the team the matrix runs on.
type fixture struct {
	t        *testing.T
	a, b     *instance
	tokens   [5]string  // per caller; "" for none
	sessions [3]string  // olive's session of each graph
	private  string     // olive's private project's key
	shared   string     // the shared project's key
	n        int        // numbers each request's own ids
	survive  []survivor // what a refused request must have left in place
}

// survivor is an item a refused delete must not have deleted.
type survivor struct {
	g    graph
	id   string // a node id, or "from>to>rel" for an edge
	what string
}

func TestAuthorizationMatrix(t *testing.T) {
	_, ins := team(t, 2, options{})
	f := &fixture{t: t, a: ins[0], b: ins[1], private: "private/olive/srv/matrix", shared: "github.com/acme/matrix"}
	f.setUp()

	routes := walk(t, f.a)
	tools := f.toolNames()
	surfaces := append(routes, tools...)
	for _, s := range surfaces {
		if _, ok := matrix[s]; !ok {
			t.Errorf("%s has no row in the authorization matrix: add one (e2e/team/matrix_test.go) and regenerate docs/security.md", s)
		}
	}
	for s := range matrix {
		if !slices.Contains(surfaces, s) {
			t.Errorf("the matrix has a row for %s, which the server does not have", s)
		}
	}
	if t.Failed() {
		return
	}

	start := time.Now()
	cells := 0
	for _, in := range []*instance{f.a, f.b} {
		for _, s := range surfaces {
			for g := range graphNames {
				for c := range callerNames {
					want := matrix[s].want(graph(g), caller(c))
					if want == "" {
						continue
					}
					got, body, sent := f.sendEvery(in, s, graph(g), caller(c))
					cells++
					if got != want {
						t.Errorf("%s on %s, %s, %s: %s, want %s\n  sent %s\n  got %s", s, in.name, graphNames[g], callerNames[c], got, want, sent, clip(body))
					}
					if caller(c) != owner && caller(c) != reader && strings.Contains(body, secret) {
						t.Errorf("%s on %s, %s, %s: the answer holds olive's secret: %s", s, in.name, graphNames[g], callerNames[c], clip(body))
					}
					if (caller(c) == another || caller(c) >= revoked) && !strings.Contains(unescaped(sent), f.private) && strings.Contains(body, f.private) {
						t.Errorf("%s on %s, %s, %s: the answer names olive's private project: %s", s, in.name, graphNames[g], callerNames[c], clip(body))
					}
				}
			}
		}
	}
	t.Logf("%d cells on two servers in %v", cells, time.Since(start).Round(time.Millisecond))
	f.checkSurvivors()
	f.checkOnlyOliveWrote()
}

// setUp makes the callers' tokens and olive's memory: in each graph a
// session, a secret node, two nodes to join, a task's progress.
func (f *fixture) setUp() {
	a := f.a
	f.tokens[owner] = a.newToken("olive", "write")
	f.tokens[another] = a.newToken("otto", "write")
	f.tokens[reader] = a.newToken("olive", "read")
	gone, id, err := a.store.CreateToken(context.Background(), "olive", "write")
	if err != nil {
		f.t.Fatal(err)
	}
	if n, err := a.store.RevokeToken(context.Background(), id); err != nil || n != 1 {
		f.t.Fatalf("revoke: %d %v", n, err)
	}
	f.tokens[revoked] = gone
	olive := a.as(f.tokens[owner])
	for g := range graphNames {
		var reg struct {
			SessionID string `json:"session_id"`
		}
		if code := olive.call("POST", "/api/sessions/register", f.scope(graph(g)), &reg); code != 200 {
			f.t.Fatalf("register olive's session of the %s: %d", graphNames[g], code)
		}
		f.sessions[g] = reg.SessionID
		gist := "olive's " + secret + " in her " + graphNames[g]
		if graph(g) == sharedProject {
			gist = "a fact everyone shares"
		}
		for id, gist := range map[string]string{"secret": gist, "keep-a": "one end", "keep-b": "the other end"} {
			body := f.scope(graph(g))
			body["session_id"], body["id"], body["gist"] = f.sessions[g], id, gist
			if code, _ := olive.putNode(body); code != 200 {
				f.t.Fatalf("olive's %s in the %s: %d", id, graphNames[g], code)
			}
		}
		body := f.scope(graph(g))
		body["task_id"], body["state"] = "task", map[string]any{"step": 1}
		if code := olive.call("POST", "/api/progress", body, nil); code != 200 {
			f.t.Fatalf("olive's progress in the %s: %d", graphNames[g], code)
		}
	}
	// The metrics name every graph: a token of scope admin reads them, no
	// other (the matrix's callers get 403).
	if code := a.as(a.newToken("operator", "admin")).call("GET", "/metrics", nil, nil); code != 200 {
		f.t.Errorf("/metrics with a token of scope admin: %d, want 200", code)
	}
	otto := a.as(f.tokens[another])
	if code, _ := otto.putNode(map[string]any{"level": "user", "id": "otto-own", "gist": "otto's own"}); code != 200 {
		f.t.Fatalf("otto's user write: %d", code)
	}
}

// scope is the body fields that name graph g.
func (f *fixture) scope(g graph) map[string]any {
	switch g {
	case userGraph:
		return map[string]any{"level": "user"}
	case privateProject:
		return map[string]any{"level": "project", "project_key": f.private}
	}
	return map[string]any{"level": "project", "project_key": f.shared}
}

// query is the query that names graph g, with level.
func (f *fixture) query(g graph) url.Values {
	q := url.Values{}
	for k, v := range f.scope(g) {
		q.Set(k, v.(string))
	}
	return q
}

// key is the project key of graph g, "" for the user graph.
func (f *fixture) key(g graph) string {
	k, _ := f.scope(g)["project_key"].(string)
	return k
}

// level is the level of graph g.
func level(g graph) string {
	if g == userGraph {
		return "user"
	}
	return "project"
}

// request is one request of a cell.
type request struct {
	method, path string
	body         any    // JSON, or a string sent as a form
	tool         string // an MCP tool call: its name; body holds the arguments
}

// refused reports whether a delete by c in graph g must change nothing:
// everyone's but the owner's, and another person's in the shared project.
func refused(g graph, c caller) bool {
	return c != owner && (g != sharedProject || c != another)
}

// victimNode makes a node of olive's in graph g for a delete to aim at,
// through the first server: a cell on the second finds it at once.
func (f *fixture) victimNode(g graph, c caller) string {
	f.n++
	id := fmt.Sprintf("victim-%d", f.n)
	body := f.scope(g)
	body["id"], body["gist"] = id, "to be deleted"
	if code, _ := f.a.as(f.tokens[owner]).putNode(body); code != 200 {
		f.t.Fatalf("victim node: %d", code)
	}
	if refused(g, c) {
		f.survive = append(f.survive, survivor{g, id, "node"})
	}
	return id
}

// victimEdge makes an edge of olive's in graph g for a delete to aim at.
func (f *fixture) victimEdge(g graph, c caller) string {
	f.n++
	rel := fmt.Sprintf("victim-%d", f.n)
	body := f.scope(g)
	body["from"], body["to"], body["rel"] = "keep-a", "keep-b", rel
	if code := f.a.as(f.tokens[owner]).call("POST", "/api/edges", body, nil); code != 200 {
		f.t.Fatalf("victim edge: %d", code)
	}
	if refused(g, c) {
		f.survive = append(f.survive, survivor{g, "keep-a>keep-b>" + rel, "edge"})
	}
	return rel
}

// requestOf builds the request of surface s naming graph g for caller c.
func (f *fixture) requestOf(s string, g graph, c caller) request {
	f.n++
	n := f.n
	q := f.query(g)
	withQ := func(method, path string, extra map[string]string) request {
		for k, v := range extra {
			q.Set(k, v)
		}
		return request{method: method, path: path + "?" + q.Encode()}
	}
	body := func(extra map[string]any) map[string]any {
		b := f.scope(g)
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	project := url.Values{"project_key": {f.key(g)}}
	switch s {
	case "GET /health", "GET /api/health", "GET /metrics", "GET /api/projects", "GET /api/maintenance_debt", "GET /ui", "HEAD /ui":
		method, path, _ := strings.Cut(s, " ")
		return request{method: method, path: path}
	case "GET /ui/*", "HEAD /ui/*":
		method, _, _ := strings.Cut(s, " ")
		return request{method: method, path: "/ui/"}
	case "POST /ui/login":
		return request{method: "POST", path: "/ui/login", body: url.Values{"token": {f.tokens[c]}}.Encode()}
	case "POST /ui/logout":
		return request{method: "POST", path: "/ui/logout", body: ""}
	case "POST /":
		return request{method: "POST", path: "/", body: map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}
	case "GET /ws":
		if g == userGraph {
			return request{method: "GET", path: "/ws"}
		}
		return request{method: "GET", path: "/ws?" + project.Encode()}
	case "GET /api/graph/read":
		q.Del("level")
		return withQ("GET", "/api/graph/read", nil)
	case "GET /api/export", "GET /api/history", "GET /api/compaction/plan", "GET /api/attention":
		_, path, _ := strings.Cut(s, " ")
		return withQ("GET", path, nil)
	case "GET /api/search":
		return withQ("GET", "/api/search", map[string]string{"q": "launch shares"})
	case "GET /api/nodes/{level}/{id}":
		q.Del("level")
		return withQ("GET", "/api/nodes/"+level(g)+"/secret", nil)
	case "GET /api/progress/{task_id}":
		return withQ("GET", "/api/progress/task", nil)
	case "GET /api/session_bootstrap", "GET /api/session_state":
		_, path, _ := strings.Cut(s, " ")
		return request{method: "GET", path: path + "?" + project.Encode()}
	case "GET /api/sessions/{id}/stats":
		return request{method: "GET", path: "/api/sessions/" + f.sessions[g] + "/stats"}
	case "POST /api/sessions/register":
		b := body(nil)
		delete(b, "level")
		return request{method: "POST", path: "/api/sessions/register", body: b}
	case "POST /api/sync":
		return request{method: "POST", path: "/api/sync", body: map[string]any{"session_id": f.sessions[g]}}
	case "POST /api/nodes":
		return request{method: "POST", path: "/api/nodes", body: body(map[string]any{"id": fmt.Sprintf("put-%d", n), "gist": "x"})}
	case "POST /api/nodes/merge":
		return request{method: "POST", path: "/api/nodes/merge", body: body(map[string]any{"into": "keep-a", "from": "keep-b", "dry_run": true})}
	case "POST /api/nodes/archive":
		return request{method: "POST", path: "/api/nodes/archive", body: body(map[string]any{"ids": []string{f.victimNode(g, c)}})}
	case "POST /api/nodes/useful":
		return request{method: "POST", path: "/api/nodes/useful", body: map[string]any{"session_id": f.sessions[g], "ids": []string{"secret"}}}
	case "DELETE /api/nodes/{level}/{id}":
		q.Del("level")
		return withQ("DELETE", "/api/nodes/"+level(g)+"/"+f.victimNode(g, c), nil)
	case "POST /api/edges":
		return request{method: "POST", path: "/api/edges", body: body(map[string]any{"from": "keep-a", "to": "keep-b", "rel": fmt.Sprintf("put-%d", n)})}
	case "DELETE /api/edges":
		return withQ("DELETE", "/api/edges", map[string]string{"from": "keep-a", "to": "keep-b", "rel": f.victimEdge(g, c)})
	case "DELETE /api/edges/{level}/{from}/{to}/{rel}":
		q.Del("level")
		return withQ("DELETE", "/api/edges/"+level(g)+"/keep-a/keep-b/"+f.victimEdge(g, c), nil)
	case "POST /api/progress":
		return request{method: "POST", path: "/api/progress", body: body(map[string]any{"task_id": fmt.Sprintf("task-%d", n), "state": map[string]any{"step": 2}})}
	case "POST /api/compaction/run":
		return withQ("POST", "/api/compaction/run", nil)
	case "POST /api/prompt_context":
		return request{method: "POST", path: "/api/prompt_context", body: map[string]any{"project_key": f.key(g), "prompt": "when is the launch date?"}}
	case "POST /api/tool_event":
		return request{method: "POST", path: "/api/tool_event", body: map[string]any{"project_key": f.key(g), "tool_name": "WebSearch",
			"tool_input": map[string]any{"query": "launch"}}}
	case "POST /api/hooks/stop":
		return request{method: "POST", path: "/api/hooks/stop", body: map[string]any{"project_key": f.key(g), "session_id": "conv-stop"}}
	case "POST /api/undo":
		return request{method: "POST", path: "/api/undo", body: body(map[string]any{"seq_range": map[string]any{"from": 1, "to": 1_000_000}, "dry_run": true})}
	case "POST /api/import":
		doc := map[string]any{"format": "kg-graph", "version": 1, "level": level(g),
			"nodes": []map[string]any{{"id": "imported", "gist": "brought in"}}}
		return withQ("POST", "/api/import", map[string]string{"mode": "merge"}).withBody(doc)
	case "DELETE /api/projects":
		return request{method: "DELETE", path: "/api/projects?" + project.Encode()}

	case "tool kg_read":
		if g == userGraph { // kg_read names no user graph: a session, olive's, does
			return request{tool: "kg_read", body: map[string]any{"session_id": f.sessions[g]}}
		}
		return request{tool: "kg_read", body: map[string]any{"cwd": f.key(g)}}
	case "tool kg_search":
		return request{tool: "kg_search", body: map[string]any{"session_id": f.sessions[g], "query": "launch shares"}}
	case "tool kg_sync":
		return request{tool: "kg_sync", body: map[string]any{"session_id": f.sessions[g]}}
	case "tool kg_put_node":
		return request{tool: "kg_put_node", body: map[string]any{"session_id": f.sessions[g], "level": level(g), "id": fmt.Sprintf("tool-%d", n), "gist": "x"}}
	case "tool kg_put_edge":
		return request{tool: "kg_put_edge", body: map[string]any{"session_id": f.sessions[g], "level": level(g), "from": "keep-a", "to": "keep-b", "rel": fmt.Sprintf("tool-%d", n)}}
	case "tool kg_delete_node":
		return request{tool: "kg_delete_node", body: map[string]any{"session_id": f.sessions[g], "level": level(g), "id": f.victimNode(g, c)}}
	case "tool kg_delete_edge":
		return request{tool: "kg_delete_edge", body: map[string]any{"session_id": f.sessions[g], "level": level(g), "from": "keep-a", "to": "keep-b", "rel": f.victimEdge(g, c)}}
	case "tool kg_progress":
		return request{tool: "kg_progress", body: map[string]any{"session_id": f.sessions[g], "level": level(g), "task_id": fmt.Sprintf("tool-%d", n), "state": map[string]any{"step": 3}}}
	case "tool kg_useful":
		return request{tool: "kg_useful", body: map[string]any{"session_id": f.sessions[g], "ids": []string{"secret"}}}
	}
	if method, pattern, _ := strings.Cut(s, " "); slices.Contains(otherMethods, method) && pattern == "/ui/*" {
		return request{method: method, path: "/ui/", body: ""}
	}
	f.t.Fatalf("the matrix has no request for %s: add one to requestOf", s)
	return request{}
}

// withBody gives r a JSON body.
func (r request) withBody(b any) request {
	r.body = b
	return r
}

// sendEvery is send, for "* pattern" once per method: the statuses, when
// they differ, are all shown.
func (f *fixture) sendEvery(in *instance, s string, g graph, c caller) (string, string, string) {
	pattern, ok := strings.CutPrefix(s, "* ")
	if !ok {
		return f.send(in, s, g, c)
	}
	var got, bodies, sent []string
	for _, m := range otherMethods {
		status, body, what := f.send(in, m+" "+pattern, g, c)
		got, bodies, sent = append(got, status), append(bodies, body), append(sent, what)
	}
	if slices.Equal(got, slices.Repeat(got[:1], len(got))) {
		return got[0], strings.Join(bodies, "\n"), strings.Join(sent, "; ")
	}
	return strings.Join(got, ","), strings.Join(bodies, "\n"), strings.Join(sent, "; ")
}

// send sends surface s's request for graph g as caller c to in, and
// returns the status (as text), the answer, and what was sent.
func (f *fixture) send(in *instance, s string, g graph, c caller) (string, string, string) {
	r := f.requestOf(s, g, c)
	token := f.tokens[c]
	if r.tool != "" {
		return f.callTool(in, r, token)
	}
	if r.method == "GET" && strings.HasPrefix(r.path, "/ws") {
		return f.dialWS(in, r.path, token)
	}
	var body io.Reader
	contentType := ""
	switch b := r.body.(type) {
	case nil:
	case string:
		body, contentType = strings.NewReader(b), "application/x-www-form-urlencoded"
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			f.t.Fatal(err)
		}
		body, contentType = bytes.NewReader(raw), "application/json"
	}
	req, err := http.NewRequest(r.method, in.url+r.path, body)
	if err != nil {
		f.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if r.path == "/" {
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := noRedirects.Do(req)
	if err != nil {
		f.t.Fatalf("%s %s on %s: %v", r.method, r.path, in.name, err)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	sent, _ := json.Marshal(r.body)
	return fmt.Sprint(res.StatusCode), string(got), r.method + " " + r.path + " " + string(sent)
}

// noRedirects is a client that shows a redirect as it is.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// dialWS opens /ws and closes it at once: 101 when it opened, else the
// handshake's status.
func (f *fixture) dialWS(in *instance, path, token string) (string, string, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	opts := &websocket.DialOptions{}
	if token != "" {
		opts.HTTPHeader = http.Header{"Authorization": {"Bearer " + token}}
	}
	c, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(in.url, "http")+path, opts)
	if err == nil {
		c.CloseNow()
		return "101", "", "GET " + path
	}
	if res == nil {
		f.t.Fatalf("dial %s on %s: %v", path, in.name, err)
	}
	return fmt.Sprint(res.StatusCode), err.Error(), "GET " + path
}

// callTool calls an MCP tool with one stateless tools/call, as a client
// behind a load balancer does, and counts its answer as a status.
func (f *fixture) callTool(in *instance, r request, token string) (string, string, string) {
	msg := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": r.tool, "arguments": r.body}}
	raw, _ := json.Marshal(msg)
	req, err := http.NewRequest("POST", in.url+"/", bytes.NewReader(raw))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatalf("%s on %s: %v", r.tool, in.name, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	sent := "tools/call " + string(raw)
	if res.StatusCode != 200 {
		return fmt.Sprint(res.StatusCode), string(body), sent
	}
	var answer struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(jsonRPCBody(body), &answer); err != nil {
		f.t.Fatalf("%s on %s: %v in %s", r.tool, in.name, err, body)
	}
	if answer.Error != nil {
		return "500", answer.Error.Message, sent
	}
	text := ""
	for _, c := range answer.Result.Content {
		text += c.Text
	}
	if !answer.Result.IsError {
		return "200", text, sent
	}
	switch {
	case strings.Contains(text, "has scope read"):
		return "403", text, sent
	case strings.Contains(text, "unknown") || strings.Contains(text, "not found"):
		return "404", text, sent
	}
	return "400", text, sent
}

// jsonRPCBody is the JSON-RPC message of an answer sent as JSON or as one
// server-sent event.
func jsonRPCBody(b []byte) []byte {
	for _, line := range strings.Split(string(b), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			return []byte(data)
		}
	}
	return b
}

// toolNames lists the MCP tools the server offers, as "tool NAME".
func (f *fixture) toolNames() []string {
	_, body, _ := f.send(f.a, "POST /", userGraph, owner)
	var list struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(jsonRPCBody([]byte(body)), &list); err != nil || len(list.Result.Tools) == 0 {
		f.t.Fatalf("tools/list: %v in %s", err, body)
	}
	var out []string
	for _, tl := range list.Result.Tools {
		out = append(out, "tool "+tl.Name)
	}
	sort.Strings(out)
	return out
}

// walk lists the routes of in's router, as "METHOD pattern".
func walk(t *testing.T, in *instance) []string {
	t.Helper()
	mux, ok := in.srv.Config.Handler.(chi.Routes)
	if !ok {
		t.Fatalf("the server's handler is %T, not a chi router", in.srv.Config.Handler)
	}
	var out []string
	err := chi.Walk(mux, func(method, pattern string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		out = append(out, method+" "+pattern)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return collapseAnyMethod(out)
}

// collapseAnyMethod turns the routes of a pattern that takes every method
// (chi's Handle: the web page's files) into its GET, its HEAD and "*
// pattern", the other methods, which the matrix sends one by one.
func collapseAnyMethod(routes []string) []string {
	methods := map[string][]string{}
	for _, r := range routes {
		m, p, _ := strings.Cut(r, " ")
		methods[p] = append(methods[p], m)
	}
	var out []string
	for p, ms := range methods {
		if len(ms) < len(otherMethods)+2 {
			for _, m := range ms {
				out = append(out, m+" "+p)
			}
			continue
		}
		out = append(out, "GET "+p, "HEAD "+p, "* "+p)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// otherMethods are the methods besides GET and HEAD that chi routes.
var otherMethods = []string{"CONNECT", "DELETE", "OPTIONS", "PATCH", "POST", "PUT", "QUERY", "TRACE"}

// checkSurvivors checks that every item a refused delete aimed at is still
// in olive's graphs.
func (f *fixture) checkSurvivors() {
	olive := f.a.as(f.tokens[owner])
	for g := range graphNames {
		var doc struct {
			Nodes []struct {
				ID string `json:"id"`
			} `json:"nodes"`
			Edges []struct {
				From, To, Rel string
			} `json:"edges"`
		}
		if code := olive.call("GET", "/api/export?"+f.query(graph(g)).Encode(), nil, &doc); code != 200 {
			f.t.Fatalf("olive's export of the %s: %d", graphNames[g], code)
		}
		have := map[string]bool{}
		for _, n := range doc.Nodes {
			have[n.ID] = true
		}
		for _, e := range doc.Edges {
			have[e.From+">"+e.To+">"+e.Rel] = true
		}
		for _, s := range f.survive {
			if s.g == graph(g) && !have[s.id] {
				f.t.Errorf("the %s %s in olive's %s was deleted by a request that was refused", s.what, s.id, graphNames[g])
			}
		}
	}
}

// checkOnlyOliveWrote checks that nothing in olive's user graph and private
// project was written by anyone but her.
func (f *fixture) checkOnlyOliveWrote() {
	olive := f.a.as(f.tokens[owner])
	for _, g := range []graph{userGraph, privateProject} {
		var doc struct {
			Nodes []map[string]any `json:"nodes"`
			Edges []map[string]any `json:"edges"`
		}
		if code := olive.call("GET", "/api/export?"+f.query(g).Encode(), nil, &doc); code != 200 {
			f.t.Fatalf("olive's export of the %s: %d", graphNames[g], code)
		}
		for _, item := range append(doc.Nodes, doc.Edges...) {
			if by := item["written_by"]; by != "olive" {
				f.t.Errorf("olive's %s holds %v, written by %v", graphNames[g], item, by)
			}
		}
	}
}

// unescaped is what was sent, its query unescaped.
func unescaped(sent string) string {
	if u, err := url.QueryUnescape(sent); err == nil {
		return u
	}
	return sent
}

// clip shortens an answer for a failure message.
func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// securityDoc is where the generated table lives.
const securityDoc = "../../docs/security.md"

const (
	matrixBegin = "<!-- authorization matrix: generated by TestAuthorizationMatrix (e2e/team/matrix_test.go) with -update-security-doc; do not edit by hand -->"
	matrixEnd   = "<!-- end of the authorization matrix -->"
)

// matrixTable renders the expectation as docs/security.md shows it.
func matrixTable() string {
	var keys []string
	for k := range matrix {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ti, tj := strings.HasPrefix(keys[i], "tool "), strings.HasPrefix(keys[j], "tool ")
		if ti != tj {
			return !ti
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	b.WriteString("| route or tool | " + strings.Join(graphNames[:], " | ") + " |\n| --- | --- | --- | --- |\n")
	for _, k := range keys {
		name := "`" + k + "`"
		if tool, ok := strings.CutPrefix(k, "tool "); ok {
			name = "MCP `" + tool + "`"
		}
		b.WriteString("| " + name)
		for g := range graphNames {
			var cells []string
			for c := range callerNames {
				if w := matrix[k].want(graph(g), caller(c)); w != "" {
					cells = append(cells, w)
				}
			}
			if len(cells) == 0 {
				b.WriteString(" | —")
				continue
			}
			b.WriteString(" | " + strings.Join(cells, " · "))
		}
		b.WriteString(" |\n")
	}
	return b.String()
}

// TestSecurityDocCarriesTheMatrix: the table in docs/security.md is the
// matrix the test holds the servers to.
func TestSecurityDocCarriesTheMatrix(t *testing.T) {
	raw, err := os.ReadFile(securityDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	before, rest, ok1 := strings.Cut(doc, matrixBegin+"\n")
	_, after, ok2 := strings.Cut(rest, matrixEnd)
	if !ok1 || !ok2 {
		t.Fatalf("docs/security.md has no generated matrix between %q and %q", matrixBegin, matrixEnd)
	}
	want := before + matrixBegin + "\n" + matrixTable() + matrixEnd + after
	if *updateSecurityDoc {
		if err := os.WriteFile(securityDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if doc != want {
		t.Errorf("docs/security.md's authorization matrix is not the test's; run go test ./e2e/team -run TestSecurityDocCarriesTheMatrix -update-security-doc")
	}
}
