package team

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// TestEveryRouteNeedsAToken: in team mode a request without a token, or
// with one nobody was given, is refused on every route — but for /health
// without a token, which answers the status alone, for a load balancer's
// probe (docs/design/team.md#when-the-database-is-away).
func TestEveryRouteNeedsAToken(t *testing.T) {
	_, ins := team(t, 1, options{})
	a := ins[0]
	var probe map[string]any
	if code, err := a.as("").do("GET", "/health", nil, &probe); err != nil || code != 200 || len(probe) != 1 || probe["status"] != "ok" {
		t.Errorf("GET /health without a token: %d %v %v, want 200 with the status alone", code, err, probe)
	}
	for _, token := range []string{"", "kg_not-a-token-anyone-was-given"} {
		anon := a.as(token)
		for _, r := range []struct{ method, path string }{
			{"GET", "/api/health"}, {"GET", "/api/graph/read"}, {"GET", "/api/projects"}, {"POST", "/api/sessions/register"},
			{"POST", "/api/nodes"}, {"GET", "/metrics"}, {"POST", "/"}, {"GET", "/ui/"},
		} {
			code, err := anon.do(r.method, r.path, map[string]any{}, nil)
			if r.path == "/api/health" && token == "" {
				if err != nil || code != http.StatusOK {
					t.Errorf("GET /api/health without a token: %d %v, want 200 (the status alone)", code, err)
				}
				continue
			}
			if err != nil || code != http.StatusUnauthorized {
				t.Errorf("%s %s with token %q: %d %v, want 401", r.method, r.path, token, code, err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(a.url, "http")+"/ws?token="+url.QueryEscape(token), nil)
		cancel()
		if err == nil || res == nil || res.StatusCode != http.StatusUnauthorized {
			t.Errorf("/ws with token %q: %v, want 401", token, err)
		}
	}
}

// TestRevokedTokenStopsOnEveryServer: a token revoked through one server's
// database stops working on every server within 5 s.
func TestRevokedTokenStopsOnEveryServer(t *testing.T) {
	_, ins := team(t, 3, options{})
	alice := ins[0].newToken("alice", "write")
	for _, in := range ins {
		if code := in.as(alice).call("GET", "/api/projects", nil, nil); code != 200 {
			t.Fatalf("alice on %s: %d", in.name, code)
		}
	}
	revokedAt := time.Now()
	if n, err := ins[0].store.RevokeToken(context.Background(), "alice"); err != nil || n != 1 {
		t.Fatalf("revoke: %d, %v", n, err)
	}
	for _, in := range ins {
		for {
			code, _ := in.as(alice).do("GET", "/api/projects", nil, nil)
			if code == http.StatusUnauthorized {
				break
			}
			if time.Since(revokedAt) > 5*time.Second {
				t.Fatalf("%s still accepts the revoked token after 5 s (%d)", in.name, code)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Logf("refused everywhere %v after the revocation", time.Since(revokedAt).Round(time.Millisecond))
	if code := ins[1].call("GET", "/api/projects", nil, nil); code != 200 {
		t.Errorf("another person's token stopped working too: %d", code)
	}
}

// TestUserGraphsArePersonal: each person reads and writes a user graph of
// their own, on every server; nobody else sees it, hears of its changes, or
// can use their session.
func TestUserGraphsArePersonal(t *testing.T) {
	_, ins := team(t, 2, options{})
	a, b := ins[0], ins[1]
	alice, bob := a.as(a.newToken("alice", "write")), b.as(a.newToken("bob", "write"))
	bobSocket := bob.dial("")
	aliceOnB := b.as(alice.token)
	aliceSocket := aliceOnB.dial("")
	if code, _ := alice.putNode(map[string]any{"level": "user", "id": "alice-secret", "gist": "only alice"}); code != 200 {
		t.Fatalf("alice's user write: %d", code)
	}
	if code, _ := bob.putNode(map[string]any{"level": "user", "id": "bob-note", "gist": "only bob"}); code != 200 {
		t.Fatalf("bob's user write: %d", code)
	}
	userIDs := func(in *instance) map[string]bool {
		var out struct {
			User struct {
				Nodes []map[string]any `json:"nodes"`
			} `json:"user"`
		}
		if code := in.call("GET", "/api/graph/read", nil, &out); code != 200 {
			t.Fatalf("graph read: %d", code)
		}
		ids := map[string]bool{}
		for _, n := range out.User.Nodes {
			ids[n["id"].(string)] = true
		}
		return ids
	}
	if got := userIDs(bob); got["alice-secret"] || !got["bob-note"] {
		t.Errorf("bob's user graph on b: %v", got)
	}
	if got := userIDs(aliceOnB); !got["alice-secret"] || got["bob-note"] {
		t.Errorf("alice's user graph on b: %v", got)
	}
	if !aliceSocket.waitFor(5*time.Second, func(fs []map[string]any) bool { return len(eventFrames(fs)) >= 1 }) {
		t.Error("alice's socket on b did not hear of her write on a")
	}
	time.Sleep(300 * time.Millisecond)
	for _, ev := range bobSocket.events() {
		if n, _ := ev["node"].(map[string]any); n["id"] == "alice-secret" {
			t.Error("bob's socket heard of alice's user graph")
		}
	}
	sess := alice.register("example.com/team/personal")
	if code := bob.call("POST", "/api/sync", map[string]any{"session_id": sess}, nil); code != http.StatusNotFound {
		t.Errorf("bob syncing alice's session: %d, want 404", code)
	}
	if code := aliceOnB.call("POST", "/api/sync", map[string]any{"session_id": sess}, nil); code != 200 {
		t.Errorf("alice syncing her session on b: %d", code)
	}
}

// TestReadScope: a token of scope read reads and syncs, and cannot change
// memory.
func TestReadScope(t *testing.T) {
	_, ins := team(t, 1, options{})
	a := ins[0]
	reader := a.as(a.newToken("auditor", "read"))
	if code := reader.call("GET", "/api/graph/read?project_path=/team/scope", nil, nil); code != 200 {
		t.Errorf("read with a read token: %d", code)
	}
	sess := reader.register("example.com/team/scope")
	if code := reader.call("POST", "/api/sync", map[string]any{"session_id": sess}, nil); code != 200 {
		t.Errorf("sync with a read token: %d", code)
	}
	if code, _ := reader.putNode(map[string]any{"level": "project", "project_path": "example.com/team/scope", "id": "x", "gist": "x"}); code != http.StatusForbidden {
		t.Errorf("write with a read token: %d, want 403", code)
	}
	if _, ok := a.graph("example.com/team/scope")["x"]; ok {
		t.Error("the refused write was stored")
	}
}

// TestWhoWroteWhat: the export and the graph read name the person who last
// wrote each node and edge, whichever server they wrote on.
func TestWhoWroteWhat(t *testing.T) {
	_, ins := team(t, 2, options{})
	alice, bob := ins[0].as(ins[0].newToken("alice", "write")), ins[1].as(ins[0].newToken("bob", "write"))
	const project = "example.com/acme/who" // a project key: the same project for everyone
	alice.putNode(map[string]any{"level": "project", "project_path": project, "id": "by-alice", "gist": "a"})
	bob.putNode(map[string]any{"level": "project", "project_path": project, "id": "by-bob", "gist": "b"})
	if code := bob.call("POST", "/api/edges", map[string]any{"level": "project", "project_path": project, "from": "by-alice", "to": "by-bob", "rel": "uses"}, nil); code != 200 {
		t.Fatalf("edge: %d", code)
	}
	var doc struct {
		Nodes []map[string]any `json:"nodes"`
		Edges []map[string]any `json:"edges"`
	}
	if code := alice.call("GET", "/api/export?level=project&project_path="+url.QueryEscape(project), nil, &doc); code != 200 {
		t.Fatalf("export: %d", code)
	}
	got := map[string]any{}
	for _, n := range doc.Nodes {
		got[n["id"].(string)] = n["written_by"]
	}
	if got["by-alice"] != "alice" || got["by-bob"] != "bob" {
		t.Errorf("export names the writers %v", got)
	}
	if len(doc.Edges) != 1 || doc.Edges[0]["written_by"] != "bob" {
		t.Errorf("export's edges %v, want one written by bob", doc.Edges)
	}
	if n := alice.graph(project)["by-bob"]; n["written_by"] != "bob" {
		t.Errorf("graph read on a: by-bob written by %v", n["written_by"])
	}
}

// TestNoEdgeFromAProjectToAUserGraph: in a shared project graph an edge
// that names a node of the writer's own user graph is refused, naming the
// end; the same edge in the user graph, or to a project node, is fine.
func TestNoEdgeFromAProjectToAUserGraph(t *testing.T) {
	_, ins := team(t, 1, options{})
	a := ins[0]
	const project = "example.com/team/private-ends"
	a.putNode(map[string]any{"level": "user", "id": "my-habit", "gist": "private"})
	a.putNode(map[string]any{"level": "project", "project_path": project, "id": "module", "gist": "shared"})
	code, err := a.do("POST", "/api/edges", map[string]any{"level": "project", "project_path": project, "from": "module", "to": "my-habit", "rel": "follows"}, nil)
	if err != nil || code != http.StatusBadRequest {
		t.Fatalf("project edge to a user node: %d %v, want 400", code, err)
	}
	if code := a.call("POST", "/api/edges", map[string]any{"level": "user", "from": "my-habit", "to": "module", "rel": "about"}, nil); code != 200 {
		t.Errorf("user edge naming a project id: %d", code)
	}
	if code := a.call("POST", "/api/edges", map[string]any{"level": "project", "project_path": project, "from": "module", "to": "src/x.go", "rel": "touches"}, nil); code != 200 {
		t.Errorf("project edge to a file: %d", code)
	}
}

// TestProjectKeys: two developers' checkouts of one repository, at
// different paths, are one project on the team servers; a folder that
// names no project is a private project of its person.
func TestProjectKeys(t *testing.T) {
	_, ins := team(t, 2, options{})
	alice, bob := ins[0].as(ins[0].newToken("alice", "write")), ins[1].as(ins[0].newToken("bob", "write"))
	base := t.TempDir()
	aliceDir, bobDir := filepath.Join(base, "home", "alice", "api"), filepath.Join(base, "Users", "bob", "src", "api")
	for dir, origin := range map[string]string{aliceDir: "git@github.com:acme/api.git", bobDir: "https://bob@GitHub.com/acme/api"} {
		if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[remote \"origin\"]\n\turl = "+origin+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	aliceSess, bobSess := alice.register(aliceDir), bob.register(bobDir)
	if code, _ := alice.putNode(map[string]any{"level": "project", "session_id": aliceSess, "id": "shared-fact", "gist": "x"}); code != 200 {
		t.Fatal("alice's write")
	}
	var stats struct {
		Session map[string]any `json:"session"`
	}
	bob.call("GET", "/api/sessions/"+bobSess+"/stats", nil, &stats)
	if got := bob.graph("github.com/acme/api"); got["shared-fact"] == nil {
		t.Errorf("bob's checkout is not alice's project: %v (bob's session: %v)", got, stats.Session)
	}
	if ids := syncIDs(bob.sync(bobSess)); len(ids) != 1 || ids[0] != "shared-fact" {
		t.Errorf("bob's sync reported %v, want alice's write", ids)
	}
	scratch := filepath.Join(base, "scratch")
	os.MkdirAll(scratch, 0o755)
	alice.putNode(map[string]any{"level": "project", "project_path": scratch, "id": "private-fact", "gist": "y"})
	if got := bob.graph(scratch); got["private-fact"] != nil {
		t.Error("a folder with no project key is shared with bob")
	}
	if got := alice.graph(scratch); got["private-fact"] == nil {
		t.Error("alice lost her private project")
	}
}

// TestProjectKeyParameter: project_key names the project on a team server
// wherever a cwd or project_path is taken, before a path this server cannot
// read (a folder on the developer's machine): REST writes and reads,
// session registration, search and MCP's kg_read.
func TestProjectKeyParameter(t *testing.T) {
	_, ins := team(t, 2, options{})
	a, b := ins[0], ins[1]
	const key = "github.com/acme/keyed"
	elsewhere := "/home/someone/on/another/machine/keyed" // no such folder here
	if code, _ := a.putNode(map[string]any{"level": "project", "project_path": elsewhere, "project_key": key, "id": "by-key", "gist": "named by its key"}); code != 200 {
		t.Fatalf("put with project_key: %d", code)
	}
	if got := b.graph(key); got["by-key"] == nil {
		t.Errorf("the write with project_key is not in project %s on b: %v", key, keys(got))
	}
	var read struct {
		Project struct {
			Nodes []map[string]any `json:"nodes"`
		} `json:"project"`
	}
	if code := b.call("GET", "/api/graph/read?project_key="+url.QueryEscape(key), nil, &read); code != 200 || len(read.Project.Nodes) != 1 {
		t.Errorf("graph read by project_key: %d, %d nodes; want 1", code, len(read.Project.Nodes))
	}
	var reg struct {
		SessionID   string `json:"session_id"`
		ProjectPath string `json:"project_path"`
	}
	if code := b.call("POST", "/api/sessions/register", map[string]any{"project_path": elsewhere, "project_key": key}, &reg); code != 200 || reg.ProjectPath != key {
		t.Errorf("register with project_key: %d, bound to %q; want %q", code, reg.ProjectPath, key)
	}
	var hits struct {
		Hits []map[string]any `json:"hits"`
	}
	if code := b.call("GET", "/api/search?q=named&project_key="+url.QueryEscape(key), nil, &hits); code != 200 || len(hits.Hits) != 1 {
		t.Errorf("search by project_key: %d, %d hits; want 1", code, len(hits.Hits))
	}
	if code, _ := a.putNode(map[string]any{"level": "project", "project_key": "bad\nkey", "id": "x", "gist": "x"}); code != 400 {
		t.Errorf("a project_key with a control character: %d, want 400", code)
	}

	// MCP: kg_read with cwd (unreadable here) and project_key starts a
	// session on the keyed project.
	ctx := context.Background()
	c, err := client.NewStreamableHttpClient(b.url+"/", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + b.token}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{ProtocolVersion: mcpgo.LATEST_PROTOCOL_VERSION}}); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "kg_read",
		Arguments: map[string]any{"cwd": elsewhere, "project_key": key}}})
	if err != nil || res.IsError {
		t.Fatalf("kg_read with project_key: %v %+v", err, res)
	}
	if text := res.Content[0].(mcpgo.TextContent).Text; !strings.Contains(text, "\n  by-key: ") {
		t.Errorf("kg_read with project_key does not read the keyed project:\n%s", text)
	}
}

// TestTouchesRelativeToTheCheckout: in a shared graph a touch or an edge end
// that is an absolute path inside the folder the project was named by is
// stored relative to it — so /home/alice/api/src/pay.go and
// /Users/bob/src/api/src/pay.go are one file — for a session started on
// another server too; a path outside the folder, and a relative one, are
// kept as given (docs/design/team.md#repository-relative-paths).
func TestTouchesRelativeToTheCheckout(t *testing.T) {
	_, ins := team(t, 2, options{})
	a, b := ins[0], ins[1]
	const key = "github.com/acme/relative"
	alice, bob := "/home/alice/api", "/Users/bob/src/api" // neither exists here: the key names the project
	var reg struct {
		SessionID string `json:"session_id"`
	}
	if code := a.call("POST", "/api/sessions/register", map[string]any{"project_path": alice, "project_key": key}, &reg); code != 200 {
		t.Fatalf("register: %d", code)
	}
	// The session's write lands on b, which must know the session's folder.
	if code, _ := b.putNode(map[string]any{"level": "project", "session_id": reg.SessionID, "id": "pay",
		"gist": "the payment path", "touches": []string{alice + "/src/pay.go", "/etc/hosts", "docs/pay.md", alice + "/../api-old/x.go"}}); code != 200 {
		t.Fatalf("put with the session on b: %d", code)
	}
	if code := a.call("POST", "/api/edges", map[string]any{"level": "project", "project_path": bob, "project_key": key,
		"from": bob + "/src/pay.go", "to": "pay", "rel": "implements"}, nil); code != 200 {
		t.Fatalf("edge from bob's checkout: %d", code)
	}
	var read struct {
		Project struct {
			Nodes []struct {
				ID      string   `json:"id"`
				Touches []string `json:"touches"`
			} `json:"nodes"`
			Edges []struct {
				From string `json:"from"`
				To   string `json:"to"`
			} `json:"edges"`
		} `json:"project"`
	}
	if code := b.call("GET", "/api/graph/read?project_key="+url.QueryEscape(key), nil, &read); code != 200 || len(read.Project.Nodes) != 1 {
		t.Fatalf("graph read: %d, %d nodes", code, len(read.Project.Nodes))
	}
	want := []string{"src/pay.go", "/etc/hosts", "docs/pay.md", alice + "/../api-old/x.go"}
	if got := read.Project.Nodes[0].Touches; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("touches stored as %q, want %q", got, want)
	}
	if len(read.Project.Edges) != 1 || read.Project.Edges[0].From != "src/pay.go" {
		t.Errorf("edges %+v, want one from src/pay.go", read.Project.Edges)
	}

	// Deleted by the absolute path of alice's checkout, on b, with her
	// session: the end names the stored, relative one, as in a put.
	var del struct {
		Deleted bool `json:"deleted"`
	}
	q := url.Values{"level": {"project"}, "session_id": {reg.SessionID}, "from": {alice + "/src/pay.go"}, "to": {"pay"}, "rel": {"implements"}}
	if code := b.call("DELETE", "/api/edges?"+q.Encode(), nil, &del); code != 200 || !del.Deleted {
		t.Errorf("delete the edge by the absolute path of a checkout: %d, deleted %v; want it deleted", code, del.Deleted)
	}
	read.Project.Edges = nil
	if code := a.call("GET", "/api/graph/read?project_key="+url.QueryEscape(key), nil, &read); code != 200 || len(read.Project.Edges) != 0 {
		t.Errorf("after the deletion a reads %d, edges %+v; want none", code, read.Project.Edges)
	}
}

// TestSearchOfEveryGraphIsPersonal: a search that spans graphs (no project,
// or scope=all) finds the searcher's own user graph and the shared
// projects, never another person's user graph or private project, even
// when this server has them loaded.
func TestSearchOfEveryGraphIsPersonal(t *testing.T) {
	_, ins := team(t, 1, options{})
	alice, bob := ins[0].as(ins[0].newToken("alice", "write")), ins[0].as(ins[0].newToken("bob", "write"))
	scratch := filepath.Join(t.TempDir(), "scratch") // no key: bob's private project
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, w := range []map[string]any{
		{"level": "user", "id": "bob-user", "gist": "zebra in bob's user graph"},
		{"level": "project", "project_path": scratch, "id": "bob-private", "gist": "zebra in bob's private project"},
		{"level": "project", "project_path": "github.com/acme/shared", "id": "shared", "gist": "zebra in a shared project"},
	} {
		if code, _ := bob.putNode(w); code != 200 {
			t.Fatalf("bob's write %v: %d", w["id"], code)
		}
	}
	if code, _ := alice.putNode(map[string]any{"level": "user", "id": "alice-user", "gist": "zebra in alice's user graph"}); code != 200 {
		t.Fatal("alice's write")
	}
	for _, q := range []string{"/api/search?q=zebra", "/api/search?q=zebra&scope=all"} {
		var res struct {
			Hits []struct {
				ID string `json:"id"`
			} `json:"hits"`
		}
		if code := alice.call("GET", q, nil, &res); code != 200 {
			t.Fatalf("%s: %d", q, code)
		}
		var ids []string
		for _, h := range res.Hits {
			ids = append(ids, h.ID)
		}
		got := strings.Join(ids, " ")
		if strings.Contains(got, "bob-") || !strings.Contains(got, "alice-user") {
			t.Errorf("alice's %s found %v; want her own user graph, and nothing of bob's", q, ids)
		}
		if strings.Contains(q, "scope=all") && !strings.Contains(got, "shared") {
			t.Errorf("alice's %s found %v; want the shared project too", q, ids)
		}
	}
}
