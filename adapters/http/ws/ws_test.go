package ws_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/kg-memory/kg/adapters/http/ws"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

func TestConnectedAndPong(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.p1)
	c, _, err := e.dialRaw("session_id=" + sid)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	s := &socket{t: t, c: c}
	if f := s.next(); f["type"] != "connected" || f["session_id"] != sid {
		t.Errorf("first frame = %v", f)
	}
	if err := c.Write(context.Background(), websocket.MessageText, []byte("ping")); err != nil {
		t.Fatal(err)
	}
	if f := s.next(); len(f) != 1 || f["type"] != "pong" {
		t.Errorf("answer to ping = %v", f)
	}
	if f := e.dial("").c; f == nil {
		t.Fatal("no socket")
	}
	anon, _, err := e.dialRaw("project_path=" + e.p1)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.CloseNow()
	if f := (&socket{t: t, c: anon}).next(); f["type"] != "connected" || f["session_id"] != nil {
		t.Errorf("first frame without a session = %v", f)
	}
}

// Routing (docs/design/sync.md#live-events): user-level events go to every
// socket, project events to the sockets of that project, and no socket hears of
// its own session's writes.
func TestRouting(t *testing.T) {
	e := newEnv(t)
	s1 := e.session(e.p1) // has two sockets
	s2 := e.session(e.p2)
	writer := e.session(e.p1) // no socket
	userOnly := e.dial("")
	byPath := e.dial("project_path=" + e.p1)
	mine1, mine2 := e.dial("session_id="+s1), e.dial("session_id="+s1)
	other := e.dial("session_id=" + s2)

	e.put("project", writer, "", "p1-by-writer")
	e.put("project", s1, "", "p1-by-s1")
	e.put("project", s2, "", "p2-by-s2")
	e.put("project", "", e.p2, "p2-by-rest")
	e.put("user", s1, "", "user-by-s1")
	// A marker last in each graph: within a graph events come in seq
	// order, so a socket has every event of a graph it watches once it has
	// that graph's marker.
	e.put("user", "", "", "marker-user")
	e.put("project", "", e.p1, "marker-p1")
	e.put("project", "", e.p2, "marker-p2")

	tests := []struct {
		name    string
		s       *socket
		markers []string
		want    []string
	}{
		{"user level only", userOnly, []string{"marker-user"}, []string{"node_updated:user-by-s1"}},
		{"project by path", byPath, []string{"marker-user", "marker-p1"},
			[]string{"node_updated:p1-by-writer", "node_updated:p1-by-s1", "node_updated:user-by-s1"}},
		{"session s1, first socket", mine1, []string{"marker-user", "marker-p1"}, []string{"node_updated:p1-by-writer"}},
		{"session s1, second socket", mine2, []string{"marker-user", "marker-p1"}, []string{"node_updated:p1-by-writer"}},
		{"session s2", other, []string{"marker-user", "marker-p2"}, []string{"node_updated:p2-by-rest", "node_updated:user-by-s1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.s.until(tc.markers...)
			// Events of different graphs may interleave.
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("frames besides the markers = %v, want %v", got, want)
			}
		})
	}
}

func TestBadQueriesAreRefusedBeforeTheUpgrade(t *testing.T) {
	e := newEnv(t)
	sid := e.session(e.p1)
	tests := []struct {
		name, q       string
		status        int
		field, detail string
	}{
		{"session and another project", "session_id=" + sid + "&project_path=" + e.p2, 400, "project_path", "is not the project of session"},
		{"unknown session", "session_id=0123456789abcdef", 404, "session_id", "unknown session"},
		{"relative path", "project_path=rel/p", 400, "project_path", "absolute"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, resp, err := e.dialRaw(tc.q)
			if err == nil || resp == nil || resp.StatusCode != tc.status {
				t.Fatalf("dial = %v, %+v; want %d", err, resp, tc.status)
			}
			var body map[string]any
			if err := jsonDecode(resp, &body); err != nil || body["field"] != tc.field || !strings.Contains(body["detail"].(string), tc.detail) {
				t.Errorf("body = %v (%v)", body, err)
			}
		})
	}
}

func TestEveryEventType(t *testing.T) {
	old := domain.Micros(t0.UnixMicro()) - domain.Days(30)
	e := newEnv(t, func(s *setup) {
		s.app.Policy.MaxTokens = 200
		s.user = domain.GraphData{Nodes: []domain.Node{
			{ID: "sleeper", Gist: "archived long ago", Tier: domain.Archived, Created: old, Version: domain.Version{V: 1, TS: old, Seq: 1}},
		}, Seq: 1}
	})

	sid := e.session("")
	s := e.dial("")
	e.put("user", sid, "", "a")
	e.call("POST", "/api/edges", map[string]any{"level": "user", "session_id": sid, "from": "a", "to": "src/a b/c.go", "rel": "touches", "notes": []string{"why"}}, 200)
	e.call("DELETE", "/api/edges?level=user&from=a&to=src%2Fa+b%2Fc.go&rel=touches&session_id="+sid, nil, 200)
	e.call("GET", "/api/nodes/user/sleeper?session_id="+sid, nil, 200)
	e.call("DELETE", "/api/nodes/user/a?session_id="+sid, nil, 200)
	// Over the budget of 200 tokens: the write that crosses it archives
	// the one node past its grace.
	for i := range 9 {
		e.put("user", sid, "", fmt.Sprintf("n%d", i))
	}

	f := s.next()
	if f["type"] != "node_updated" || f["level"] != "user" || f["project"] != nil || f["source_session"] != sid ||
		f["seq"] == nil || f["node"].(map[string]any)["id"] != "a" || f["node"].(map[string]any)["tier"] != "active" {
		t.Errorf("node_updated = %v", f)
	}
	f = s.next()
	if ed, _ := f["edge"].(map[string]any); f["type"] != "edge_updated" || ed["to"] != "src/a b/c.go" || fmt.Sprint(ed["notes"]) != "[why]" {
		t.Errorf("edge_updated = %v", f)
	}
	if f = s.next(); f["type"] != "edge_deleted" || f["from"] != "a" || f["to"] != "src/a b/c.go" || f["rel"] != "touches" {
		t.Errorf("edge_deleted = %v", f)
	}
	if f = s.next(); f["type"] != "node_recalled" || f["node"].(map[string]any)["id"] != "sleeper" || f["node"].(map[string]any)["tier"] != "active" ||
		f["rescued"] == nil {
		t.Errorf("node_recalled = %v", f)
	}
	if f = s.next(); f["type"] != "node_deleted" || f["node_id"] != "a" || f["edges_deleted"] != 0.0 {
		t.Errorf("node_deleted = %v", f)
	}
	var compacted map[string]any
	for i := 0; i < 9; {
		f = s.next()
		if f["type"] == "compacted" {
			compacted = f
			continue
		}
		if frameName(f) != fmt.Sprintf("node_updated:n%d", i) {
			t.Errorf("frame %v, want node n%d", f, i)
		}
		i++
	}
	if compacted == nil { // the run of the last write: after its node
		compacted = s.next()
	}
	if compacted["type"] != "compacted" || fmt.Sprint(compacted["archived"]) != "[sleeper]" || fmt.Sprint(compacted["restored"]) != "[]" ||
		compacted["orphaned"] == nil || compacted["deleted"] == nil || compacted["source_session"] != sid || compacted["seq"] == nil {
		t.Errorf("compacted = %v; want sleeper archived by the write that crossed the budget", compacted)
	}
	// Each move says why: the node, its tiers and the reason.
	moves, _ := compacted["moves"].([]any)
	if len(moves) != 1 {
		t.Fatalf("compacted moves = %v, want the one move of sleeper", compacted["moves"])
	}
	if mv := moves[0].(map[string]any); mv["id"] != "sleeper" || mv["from"] != "active" || mv["to"] != "archived" ||
		!strings.Contains(fmt.Sprint(mv["reason"]), "score") {
		t.Errorf("compacted move = %v, want sleeper active → archived with its reason", mv)
	}
}

// Events go out only once their write is durable: each frame's change is
// already in the store, and a write whose save fails sends nothing.
func TestEventsOnlyAfterTheWriteIsDurable(t *testing.T) {
	e := newEnv(t)
	s := e.dial("project_path=" + e.p1)
	for i := range 5 {
		id := fmt.Sprintf("n%d", i)
		e.put("project", "", e.p1, id)
		f := s.next()
		if frameName(f) != "node_updated:"+id {
			t.Fatalf("frame %v, want %s", f, id)
		}
		if !e.storedNode(domain.ProjectGraph(e.p1), id) {
			t.Errorf("the event of %s came before its write was stored", id)
		}
	}
	e.store.InjectFault(func(op string) error {
		if op == "commit" {
			return errors.New("input/output error")
		}
		return nil
	})
	e.call("POST", "/api/nodes", map[string]any{"level": "project", "project_path": e.p1, "id": "lost", "gist": "g"}, http.StatusServiceUnavailable)
	e.store.InjectFault(nil)
	e.put("project", "", e.p1, "after")
	if got := s.until("after"); len(got) != 0 {
		t.Errorf("frames for a write that failed: %v", got)
	}
}

// A socket that falls more than events.Backlog events behind is closed
// with 1008, and the others go on.
func TestSlowSocketIsClosedWith1008(t *testing.T) {
	e := newEnv(t, func(s *setup) { s.http.WebSocket = ws.Options{WriteTimeout: time.Minute} })
	slow := e.dial("")
	fast := e.dial("")
	slow.c.SetReadLimit(1 << 20) // the frames below are 20 KB
	fast.c.SetReadLimit(1 << 20)
	read := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		for {
			if _, _, err := fast.c.Read(context.Background()); err != nil {
				done <- err
				return
			}
			read <- struct{}{}
		}
	}()
	subs := e.hub.Len()

	// Frames fill the slow socket's buffers, then its queue in the hub,
	// while its client reads nothing; each is published once the fast
	// client has read the one before, so only the slow one falls behind.
	notes := make([]string, 5)
	for i := range notes {
		notes[i] = strings.Repeat("n", domain.MaxNoteLen)
	}
	big := &domain.Node{ID: "big", Gist: "g", Notes: notes}
	for i := 1; e.hub.Len() == subs; i++ {
		if i > 100_000 {
			t.Fatal("the slow socket was never dropped")
		}
		e.hub.Publish(ports.One(ports.Event{Type: ports.EventNodeUpdated, Level: domain.LevelUser, Seq: uint64(i), Node: big}))
		select {
		case <-read:
		case err := <-done:
			t.Fatalf("the fast socket ended: %v", err)
		case <-time.After(patience):
			t.Fatal("the fast socket did not get its frame")
		}
	}
	var err error
	for err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		_, _, err = slow.c.Read(ctx)
		cancel()
	}
	if code := websocket.CloseStatus(err); code != websocket.StatusPolicyViolation {
		t.Errorf("slow socket ended with %v (code %d), want 1008", err, code)
	}
	e.put("user", "", "", "still-live")
	select {
	case <-read:
	case err := <-done:
		t.Errorf("the fast socket was closed too: %v", err)
	case <-time.After(patience):
		t.Error("the fast socket did not hear of a later write")
	}
}

// The cap of docs/design/http.md#websocket: 256 sockets; the 257th is refused
// with 503 before the upgrade, and a slot freed is usable again.
func TestConnectionCap(t *testing.T) {
	e := newEnv(t)
	conns := make([]*websocket.Conn, 0, ws.DefaultMaxClients)
	for range ws.DefaultMaxClients {
		c, _, err := e.dialRaw("")
		if err != nil {
			t.Fatalf("socket %d: %v", len(conns)+1, err)
		}
		conns = append(conns, c)
		t.Cleanup(func() { _ = c.CloseNow() })
	}
	_, resp, err := e.dialRaw("")
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("socket 257: %v, %+v; want 503", err, resp)
	}
	var body map[string]any
	if err := jsonDecode(resp, &body); err != nil || body["kind"] != "unavailable" || !strings.Contains(body["detail"].(string), "too many WebSocket clients (256 open)") {
		t.Errorf("refusal = %v (%v)", body, err)
	}
	if resp.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After on the refusal")
	}
	// A socket subscribes just after its upgrade: once all have, a drop in
	// the count is the closed one's.
	waitFor(t, "every socket subscribes", func() bool { return e.hub.Len() == ws.DefaultMaxClients })
	_ = conns[0].Close(websocket.StatusNormalClosure, "")
	waitFor(t, "a slot is freed", func() bool { return e.hub.Len() < ws.DefaultMaxClients })
	c, _, err := e.dialRaw("")
	if err != nil {
		t.Fatalf("after one closed: %v", err)
	}
	_ = c.CloseNow()
}

// The server pings; a client that does not answer is dropped, one that
// answers stays.
func TestSilentClientIsDroppedByPing(t *testing.T) {
	e := newEnv(t, func(s *setup) {
		s.http.WebSocket = ws.Options{PingInterval: 20 * time.Millisecond, PingTimeout: 50 * time.Millisecond}
	})
	silent := e.dial("") // reads nothing more, so answers no ping
	alive := e.dial("")
	ctx := alive.c.CloseRead(context.Background()) // reads control frames: answers pings
	waitFor(t, "the silent socket is dropped", func() bool { return e.hub.Len() == 1 })
	if ctx.Err() != nil {
		t.Error("the socket that answers pings was closed too")
	}
	_ = silent
}

func TestOrigin(t *testing.T) {
	e := newEnv(t, func(s *setup) { s.http.AllowedOrigins = []string{"http://localhost:5173", "http://[::1]:5173"} })
	_, resp, err := e.dialRaw("", "Origin", "https://evil.example")
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: %v, %+v; want 403", err, resp)
	}
	_, resp, err = e.dialRaw("", "Sec-Fetch-Site", "cross-site")
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site: %v, %+v; want 403", err, resp)
	}
	// The router's allow-list and the WebSocket library agree: an allowed
	// origin, even an IPv6 literal, gets through both, and so does the
	// server's own.
	for _, o := range []string{"http://localhost:5173", "http://[::1]:5173", e.url} {
		e.dial("", "Origin", o)
	}
}

func TestTokenInTheQuery(t *testing.T) {
	e := newEnv(t, func(s *setup) { s.http.AuthToken = "s3cret" })
	for _, q := range []string{"", "token=wrong"} {
		_, resp, err := e.dialRaw(q)
		if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("?%s: %v, %+v; want 401", q, err, resp)
		}
	}
	e.dial("token=s3cret")
	e.dial("", "Authorization", "Bearer s3cret")
}

func TestServerStopClosesWith1001(t *testing.T) {
	e := newEnv(t)
	s := e.dial("")
	e.hub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	_, _, err := s.c.Read(ctx)
	if code := websocket.CloseStatus(err); code != websocket.StatusGoingAway {
		t.Errorf("read after the hub closed: %v (code %d), want 1001", err, code)
	}
}

// A client sends only "ping": a message over the 1 KiB a socket reads is
// refused by closing the socket with 1009 (message too big), and its slot
// is freed.
func TestClientMessageOverTheLimitClosesWith1009(t *testing.T) {
	e := newEnv(t)
	c, _, err := e.dialRaw("")
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	s := &socket{t: t, c: c}
	if f := s.next(); f["type"] != "connected" {
		t.Fatalf("first frame = %v", f)
	}
	waitFor(t, "the socket subscribes", func() bool { return e.hub.Len() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	// The server may close before the whole frame is written: the
	// write's error is not what this test checks.
	_ = c.Write(ctx, websocket.MessageText, bytes.Repeat([]byte("p"), 1<<10+1))
	_, _, err = c.Read(ctx)
	if code := websocket.CloseStatus(err); code != websocket.StatusMessageTooBig {
		t.Fatalf("after a 1025-byte message: %v (close code %d), want 1009", err, code)
	}
	waitFor(t, "its slot is freed", func() bool { return e.hub.Len() == 0 })
}

// ?scope=all hears every graph's events (but its own session's), for a page
// that lists what changed anywhere; it names no project of its own.
func TestScopeAll(t *testing.T) {
	e := newEnv(t)
	s1 := e.session(e.p1)
	all := e.dial("scope=all")
	allButS1 := e.dial("scope=all&session_id=" + s1)
	e.put("project", s1, "", "p1-by-s1")
	e.put("project", "", e.p2, "p2-by-rest")
	e.put("user", s1, "", "user-by-s1")
	e.put("user", "", "", "marker-user")
	e.put("project", "", e.p1, "marker-p1")
	e.put("project", "", e.p2, "marker-p2")
	for name, tc := range map[string]struct {
		s    *socket
		want []string
	}{
		"every graph":               {all, []string{"node_updated:p1-by-s1", "node_updated:p2-by-rest", "node_updated:user-by-s1"}},
		"every graph but its own's": {allButS1, []string{"node_updated:p2-by-rest"}},
	} {
		t.Run(name, func(t *testing.T) {
			got := tc.s.until("marker-user", "marker-p1", "marker-p2")
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("frames besides the markers = %v, want %v", got, tc.want)
			}
		})
	}

	for q, detail := range map[string]string{
		"scope=all&project_path=" + e.p1: "drop project_path",
		"scope=every":                    `"every" is not a scope`,
	} {
		_, resp, err := e.dialRaw(q)
		if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("dial %s = %v, %+v; want 400", q, err, resp)
		}
		var body map[string]any
		if err := jsonDecode(resp, &body); err != nil || body["field"] != "scope" || !strings.Contains(body["detail"].(string), detail) {
			t.Errorf("dial %s: body = %v (%v)", q, body, err)
		}
	}
}

// An import larger than its client can read in time reaches the socket as
// the events that fit, then one graph_replaced frame standing for the rest
// ("re-read"), and the socket stays open for the writes after it.
func TestLargeImportEndsInOneGraphReplacedFrame(t *testing.T) {
	e := newEnv(t, func(s *setup) {
		s.app.Policy.MaxTokens = 100_000_000
		s.http.WebSocket = ws.Options{WriteTimeout: time.Minute}
	})
	s := e.dial("project_path=" + e.p1)
	s.c.SetReadLimit(1 << 20)
	// More than the socket's buffers hold, so that its queue fills while
	// the client reads nothing.
	notes := []string{strings.Repeat("n", domain.MaxNoteLen)}
	nodes := make([]map[string]any, 1000)
	for i := range nodes {
		nodes[i] = map[string]any{"id": fmt.Sprintf("n%04d", i), "gist": "imported", "notes": notes}
	}
	doc := map[string]any{"format": "kg-graph", "version": 1, "level": "project", "nodes": nodes}
	e.call("POST", "/api/import?mode=merge&level=project&project_path="+url.QueryEscape(e.p1), doc, 200)
	items := 0
	for {
		f := s.next()
		if f["type"] == "node_updated" {
			items++
			continue
		}
		if f["type"] != "graph_replaced" || f["level"] != "project" || f["project"] != e.p1 ||
			f["changes"] != float64(len(nodes)-items) || f["seq"] == 0.0 || f["source_session"] != nil {
			t.Fatalf("after %d items: frame %v, want one graph_replaced standing for the other %d", items, f, len(nodes)-items)
		}
		break
	}
	t.Logf("%d items, then the replacement of %d", items, len(nodes)-items)
	if items >= len(nodes) || items < 1 {
		t.Fatalf("%d items before the replacement", items)
	}
	e.put("project", "", e.p1, "after")
	if got := frameName(s.next()); got != "node_updated:after" {
		t.Errorf("the frame after = %s, want node_updated:after", got)
	}
}

// tokenTable stands in for the team's tokens table: the one token's state,
// changed by the test.
type tokenTable struct {
	mu    sync.Mutex
	state string // "valid", "unreachable" (the database is away) or "revoked"
	asked int
}

func (tt *tokenTable) set(state string) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.state, tt.asked = state, 0
}

func (tt *tokenTable) askedSince() int {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.asked
}

func (tt *tokenTable) Authenticate(_ context.Context, token string) (ports.Principal, error) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.asked++
	switch {
	case token != "kg_dora":
		return ports.Principal{}, domain.Invalidf("Authorization", "unknown or revoked token")
	case tt.state == "unreachable":
		return ports.Principal{}, domain.Unavailable(errors.New("connection refused"), "check the token")
	case tt.state == "revoked":
		return ports.Principal{}, domain.Invalidf("Authorization", "unknown or revoked token")
	}
	return ports.Principal{Name: "dora", Scope: ports.ScopeWrite}, nil
}

// TestRevokedTokenClosesTheSocketWith1008: a socket checks its token again
// while it is open; a database that cannot be asked leaves it open, a
// revocation closes it with 1008 (docs/design/team.md#people-and-tokens).
func TestRevokedTokenClosesTheSocketWith1008(t *testing.T) {
	tokens := &tokenTable{state: "valid"}
	e := newEnv(t, func(s *setup) {
		s.http.Principals = tokens
		s.http.WebSocket.RecheckInterval = 10 * time.Millisecond
	})
	s := e.dial("", "Authorization", "Bearer kg_dora")

	tokens.set("unreachable")
	waitFor(t, "the socket to ask again while the database is away", func() bool { return tokens.askedSince() >= 3 })
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := s.c.Write(ctx, websocket.MessageText, []byte("ping")); err != nil {
		t.Fatalf("the socket closed while the token could not be checked: %v", err)
	}
	if f := s.next(); f["type"] != "pong" {
		t.Fatalf("answer to ping while the database is away = %v", f)
	}

	tokens.set("revoked")
	_, _, err := s.c.Read(ctx)
	if code := websocket.CloseStatus(err); code != websocket.StatusPolicyViolation {
		t.Fatalf("after the revocation the socket read %v, want close code 1008", err)
	}
}
