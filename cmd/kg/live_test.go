package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
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

		// The clients read while the server stops, as a browser does, so
		// that each socket's close handshake completes.
		ends := map[string]chan error{}
		for name, c := range map[string]*websocket.Conn{"writer's": own, "watcher's": other} {
			end := make(chan error, 1)
			ends[name] = end
			go func() {
				for {
					f, err := read(c)
					if err != nil {
						end <- err
						return
					}
					// The writer's socket must not have heard of its own write.
					t.Errorf("%s socket got %v", name, f)
				}
			}()
		}
		s.stop()
		for name, end := range ends {
			err := <-end
			if code := websocket.CloseStatus(err); code != websocket.StatusGoingAway {
				t.Errorf("%s socket ended with %v (code %d), want 1001", name, err, code)
			}
		}
		// The server waited for the sockets to say goodbye before it
		// stopped, so that a process exiting first cannot cut them (1006).
		logs := s.logs.String()
		closed, stopped := strings.Index(logs, "msg=\"WebSockets closed\""), strings.Index(logs, "msg=stopped")
		if closed < 0 || stopped < closed {
			t.Errorf("the log does not say the sockets closed before the server stopped:\n%s", logs)
		}
	})
}
