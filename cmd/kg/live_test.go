package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The served binary's wiring end to end, on both backends: a write made
// through MCP reaches a WebSocket watching its project and shows in the
// REST graph read, the writer's own socket hears nothing of it, and
// stopping the server closes the sockets with 1001.
func TestLiveEventsAndRESTThroughTheServer(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, storage string) {
		s := startKG(t, storage, t.TempDir())
		proj := projectDir(t, "app")
		writer := s.session(proj)
		watcher := s.session(proj)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		dial := func(sid string) *websocket.Conn {
			c, _, err := websocket.Dial(ctx, "ws://"+s.Addr+"/ws?session_id="+sid, nil)
			if err != nil {
				t.Fatalf("dial /ws: %v", err)
			}
			t.Cleanup(func() { _ = c.CloseNow() })
			return c
		}
		read := func(c *websocket.Conn) (map[string]any, error) {
			_, b, err := c.Read(ctx)
			if err != nil {
				return nil, err
			}
			var f map[string]any
			return f, json.Unmarshal(b, &f)
		}
		own, other := dial(writer), dial(watcher)
		for _, c := range []*websocket.Conn{own, other} {
			if f, err := read(c); err != nil || f["type"] != "connected" {
				t.Fatalf("first frame = %v, %v", f, err)
			}
		}

		s.putNode(writer, "project", "live", "written through MCP", nil)
		f, err := read(other)
		if err != nil || f["type"] != "node_updated" || f["project"] != proj || f["source_session"] != writer ||
			field(f, "node", "id") != "live" {
			t.Fatalf("the watcher's frame = %v, %v", f, err)
		}

		resp, err := http.Get("http://" + s.Addr + "/api/graph/read?project_path=" + url.QueryEscape(proj))
		if err != nil {
			t.Fatal(err)
		}
		var graphs map[string]any
		err = json.NewDecoder(resp.Body).Decode(&graphs)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || field(graphs, "project", "nodes", 0, "id") != "live" {
			t.Fatalf("graph read = %d %v, %v", resp.StatusCode, graphs, err)
		}

		s.stop()
		for name, c := range map[string]*websocket.Conn{"writer's": own, "watcher's": other} {
			var err error
			for err == nil { // the writer's socket must not have heard of its own write
				var f map[string]any
				if f, err = read(c); err == nil {
					t.Errorf("%s socket got %v", name, f)
				}
			}
			if code := websocket.CloseStatus(err); code != websocket.StatusGoingAway {
				t.Errorf("%s socket ended with %v (code %d), want 1001", name, err, code)
			}
		}
	})
}
