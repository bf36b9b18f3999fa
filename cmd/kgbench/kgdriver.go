package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// kgDriver drives a kg server through mcp-go's Streamable HTTP client, as
// an agent would: every client starts its own session with kg_read and cwd,
// and writes go to that project's graph, so a run never touches the user
// graph of a real server.
type kgDriver struct {
	url  string
	cwd  string
	http *http.Client // shared by every client, with enough idle connections for all
}

var _ Driver = (*kgDriver)(nil)

func newKGDriver(url, cwd string, clients int) *kgDriver {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 2 * clients
	tr.MaxIdleConnsPerHost = 2 * clients
	return &kgDriver{url: url, cwd: cwd, http: &http.Client{Transport: tr, Timeout: 2 * time.Minute}}
}

func (d *kgDriver) Name() string { return "kg" }

// kgConn is one MCP client with its own kg session.
type kgConn struct {
	c       *client.Client
	session string
}

var _ Conn = (*kgConn)(nil)

// Connect opens a client and starts a session on the driver's project.
func (d *kgDriver) Connect(ctx context.Context) (Conn, error) {
	tr, err := transport.NewStreamableHTTP(d.url, transport.WithHTTPBasicClient(d.http))
	if err != nil {
		return nil, err
	}
	// kg is stateless: no initialize is needed, as with Claude Code.
	c := client.NewClient(tr, client.WithSession())
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	k := &kgConn{c: c}
	text, err := k.call(ctx, "kg_read", map[string]any{"cwd": d.cwd})
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("start a session: %w", err)
	}
	// The full read ends with "Session: <id>" (docs/design/mcp.md#full-read).
	_, session, ok := strings.Cut(text, "\nSession: ")
	if !ok || session == "" || strings.Contains(session, "\n") {
		_ = c.Close()
		return nil, errors.New("start a session: kg_read's text ends with no Session line")
	}
	k.session = session
	return k, nil
}

// call calls a tool and returns its text, which is all a kg result carries
// (decision 0091); a JSON-RPC error and an isError result are errors.
func (k *kgConn) call(ctx context.Context, tool string, args map[string]any) (string, error) {
	req := mcpgo.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := k.c.CallTool(ctx, req)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	var text []string
	for _, ct := range res.Content {
		if tc, ok := ct.(mcpgo.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("%s: %s", tool, strings.Join(text, " "))
	}
	return strings.Join(text, "\n"), nil
}

// callOK is call for a caller that needs only whether it worked.
func (k *kgConn) callOK(ctx context.Context, tool string, args map[string]any) error {
	_, err := k.call(ctx, tool, args)
	return err
}

func (k *kgConn) CreateNode(ctx context.Context, n Node) error {
	return k.callOK(ctx, "kg_put_node", map[string]any{
		"session_id": k.session, "level": "project", "id": n.ID, "gist": n.Gist, "notes": n.Notes,
	})
}

func (k *kgConn) CreateEdge(ctx context.Context, e Edge) error {
	return k.callOK(ctx, "kg_put_edge", map[string]any{
		"session_id": k.session, "level": "project", "from": e.From, "to": e.To, "rel": e.Rel,
	})
}

func (k *kgConn) Search(ctx context.Context, q string) error {
	return k.callOK(ctx, "kg_search", map[string]any{"session_id": k.session, "query": q})
}

func (k *kgConn) FullRead(ctx context.Context) error {
	return k.callOK(ctx, "kg_read", map[string]any{"session_id": k.session})
}

func (k *kgConn) Close() error { return k.c.Close() }

// Floor is kg_progress of a task that was never saved: a call that
// writes nothing and reads next to nothing, the floor of any call.
func (k *kgConn) Floor(ctx context.Context) error {
	return k.callOK(ctx, "kg_progress", map[string]any{"session_id": k.session, "level": "project", "task_id": "kgbench-floor"})
}

// Verify reads the project graph back whole through GET /api/export (every
// node in any tier, every edge) and checks every workload node's gist and
// notes and every chain edge. Unlike reads by id, which promote archived
// nodes one durable write each, the export changes nothing.
func (d *kgDriver) Verify(ctx context.Context, w Workload) (Check, error) {
	chk := Check{Nodes: len(w.Nodes), Edges: len(w.Edges)}
	u, err := url.Parse(d.url)
	if err != nil {
		return chk, err
	}
	u = u.JoinPath("api", "export")
	u.RawQuery = url.Values{"level": {"project"}, "project_path": {d.cwd}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return chk, err
	}
	res, err := d.http.Do(req)
	if err != nil {
		return chk, fmt.Errorf("export: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<10))
		return chk, fmt.Errorf("export: %s: %s", res.Status, body)
	}
	var doc struct {
		Nodes []struct {
			ID    string   `json:"id"`
			Gist  string   `json:"gist"`
			Notes []string `json:"notes"`
		} `json:"nodes"`
		Edges []Edge `json:"edges"`
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil {
		return chk, fmt.Errorf("export: %w", err)
	}
	type content struct {
		gist  string
		notes []string
	}
	nodes := make(map[string]content, len(doc.Nodes))
	for _, n := range doc.Nodes {
		nodes[n.ID] = content{n.Gist, n.Notes}
	}
	edges := make(map[Edge]bool, len(doc.Edges))
	for _, e := range doc.Edges {
		edges[e] = true
	}
	for _, want := range w.Nodes {
		n, ok := nodes[want.ID]
		switch {
		case !ok:
			chk.problem("node " + want.ID + " missing")
		case n.gist != want.Gist || !slices.Equal(n.notes, want.Notes):
			chk.problem(fmt.Sprintf("node %s: gist %q notes %q, want %q %q", want.ID, n.gist, n.notes, want.Gist, want.Notes))
		default:
			chk.NodesFound++
		}
	}
	for _, e := range w.Edges {
		if edges[e] {
			chk.EdgesFound++
		} else {
			chk.problem(fmt.Sprintf("edge %s --%s--> %s missing", e.From, e.Rel, e.To))
		}
	}
	return chk, nil
}
