package mcp

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/mark3labs/mcp-go/server"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// tools holds what the tool handlers need.
type tools struct {
	svc Service
	log *slog.Logger
}

// outcome is a successful tool result: its text and its structured twin.
type outcome struct {
	text       string
	structured any
}

// run is the body of one tool: decode and check shape, call the app,
// render.
type run func(ctx context.Context, a args) (outcome, error)

// runs returns the body of each tool by name.
func (t *tools) runs() map[string]run {
	return map[string]run{
		"kg_read":        t.read,
		"kg_search":      t.search,
		"kg_put_node":    t.putNode,
		"kg_put_edge":    t.putEdge,
		"kg_delete_node": t.deleteNode,
		"kg_delete_edge": t.deleteEdge,
		"kg_sync":        t.sync,
		"kg_progress":    t.progress,
	}
}

// handler adapts a tool body to mcp-go.
func (t *tools) handler(name string, body run) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		raw := req.Params.RawArguments
		if len(raw) == 0 && req.Params.Arguments != nil {
			// An in-process call: the arguments were never JSON.
			var err error
			if raw, err = json.Marshal(req.Params.Arguments); err != nil {
				return failure(ctx, t.log, name, domain.Invalidf("arguments", "must be a JSON object of named arguments"))
			}
		}
		a, err := parseArgs(raw)
		var out outcome
		if err == nil {
			out, err = body(ctx, a)
		}
		if err != nil {
			return failure(ctx, t.log, name, err)
		}
		return &mcpgo.CallToolResult{
			Content:           []mcpgo.Content{mcpgo.NewTextContent(out.text)},
			StructuredContent: out.structured,
		}, nil
	}
}

// read is kg_read.
func (t *tools) read(ctx context.Context, a args) (outcome, error) {
	var req app.ReadRequest
	var id string
	var ids []string
	err := firstErr(
		func() (err error) { req.CWD, err = a.str("cwd"); return },
		func() (err error) { req.SessionID, err = a.str("session_id"); return },
		func() (err error) { id, err = a.str("id"); return },
		func() (err error) { ids, err = a.list("ids"); return },
		func() (err error) { req.Level, err = a.level("level"); return },
	)
	if err != nil {
		return outcome{}, err
	}
	if id != "" {
		req.IDs = append(req.IDs, id)
	}
	req.IDs = append(req.IDs, ids...)
	res, err := t.svc.Read(ctx, req)
	if err != nil {
		return outcome{}, err
	}
	if res.Full != nil {
		gs := fitFullRead(*res.Full, res.SessionID, maxReadChars)
		return outcome{renderFullRead(gs, res.SessionID), fullReadOutput(gs, res)}, nil
	}
	return outcome{renderNodeReads(res.Nodes, res.SessionID), nodeReadsOutput(res)}, nil
}

// search is kg_search.
func (t *tools) search(ctx context.Context, a args) (outcome, error) {
	var req app.SearchRequest
	var limit int64
	var limitGiven bool
	err := firstErr(
		func() (err error) { req.Query, err = a.required("query"); return },
		func() (err error) { req.SessionID, err = a.str("session_id"); return },
		func() (err error) { req.Level, err = a.level("level"); return },
		func() (err error) { limit, limitGiven, err = a.integer("limit"); return },
	)
	if err != nil {
		return outcome{}, err
	}
	if limitGiven && (limit < 1 || limit > domain.MaxSearchLimit) {
		return outcome{}, domain.Invalidf("limit", "%d is not between 1 and %d", limit, domain.MaxSearchLimit)
	}
	req.Limit = int(limit)
	hits, err := t.svc.Search(ctx, req)
	if err != nil {
		return outcome{}, err
	}
	return outcome{renderSearch(req.Query, hits), searchOutputOf(req.Query, hits)}, nil
}

// putNode is kg_put_node.
func (t *tools) putNode(ctx context.Context, a args) (outcome, error) {
	var sc app.Scope
	var in domain.NodeInput
	var ev int64
	var evGiven bool
	err := firstErr(
		func() (err error) { sc.SessionID, err = a.required("session_id"); return },
		func() (err error) { sc.Level, err = requiredLevel(a); return },
		func() (err error) { in.ID, err = a.required("id"); return },
		func() (err error) { in.Gist, err = a.required("gist"); return },
		func() (err error) { in.Notes, err = a.list("notes"); return },
		func() (err error) { in.Touches, err = a.list("touches"); return },
		func() (err error) { ev, evGiven, err = a.integer("expected_version"); return },
	)
	if err != nil {
		return outcome{}, err
	}
	if evGiven {
		if ev < 0 {
			return outcome{}, domain.Invalidf("expected_version", "%d is negative; versions start at 0 (the node does not exist)", ev)
		}
		v := uint64(ev)
		in.ExpectedVersion = &v
	}
	res, err := t.svc.PutNode(ctx, sc, in)
	if err != nil {
		return outcome{}, err
	}
	return outcome{renderPutNode(res), putNodeOutput{
		Level: string(res.Level), Project: res.Project, ID: res.Node.ID, Version: res.Node.Version.V,
		Compaction: movesOutput(res.Compaction),
	}}, nil
}

// putEdge is kg_put_edge.
func (t *tools) putEdge(ctx context.Context, a args) (outcome, error) {
	var sc app.Scope
	var in domain.EdgeInput
	err := firstErr(
		func() (err error) { sc.SessionID, err = a.required("session_id"); return },
		func() (err error) { sc.Level, err = requiredLevel(a); return },
		func() (err error) { in.From, err = a.required("from"); return },
		func() (err error) { in.To, err = a.required("to"); return },
		func() (err error) { in.Rel, err = a.required("rel"); return },
		func() (err error) { in.Notes, err = a.list("notes"); return },
	)
	if err != nil {
		return outcome{}, err
	}
	res, err := t.svc.PutEdge(ctx, sc, in)
	if err != nil {
		return outcome{}, err
	}
	e := res.Edge
	return outcome{renderPutEdge(res), putEdgeOutput{
		Level: string(res.Level), Project: res.Project, From: e.From, Rel: e.Rel, To: e.To,
		Version: e.Version.V, Compaction: movesOutput(res.Compaction),
	}}, nil
}

// deleteNode is kg_delete_node.
func (t *tools) deleteNode(ctx context.Context, a args) (outcome, error) {
	var sc app.Scope
	var id string
	err := firstErr(
		func() (err error) { sc.SessionID, err = a.required("session_id"); return },
		func() (err error) { id, err = a.required("id"); return },
		func() (err error) { sc.Level, err = a.level("level"); return },
	)
	if err != nil {
		return outcome{}, err
	}
	res, err := t.svc.DeleteNode(ctx, sc, id)
	if err != nil {
		return outcome{}, err
	}
	return outcome{renderDeleteNode(res), deleteNodeOutput{
		Level: string(res.Level), Project: res.Project, ID: res.ID, EdgesDeleted: res.EdgesDeleted,
	}}, nil
}

// deleteEdge is kg_delete_edge.
func (t *tools) deleteEdge(ctx context.Context, a args) (outcome, error) {
	var sc app.Scope
	var k domain.EdgeKey
	err := firstErr(
		func() (err error) { sc.SessionID, err = a.required("session_id"); return },
		func() (err error) { k.From, err = a.required("from"); return },
		func() (err error) { k.To, err = a.required("to"); return },
		func() (err error) { k.Rel, err = a.required("rel"); return },
		func() (err error) { sc.Level, err = a.level("level"); return },
	)
	if err != nil {
		return outcome{}, err
	}
	res, err := t.svc.DeleteEdge(ctx, sc, k)
	if err != nil {
		return outcome{}, err
	}
	if res.Key == (domain.EdgeKey{}) {
		res.Key = k
	}
	return outcome{renderDeleteEdge(res), deleteEdgeOutput{
		Level: string(res.Level), Project: res.Project, From: k.From, Rel: k.Rel, To: k.To, Deleted: res.Deleted,
	}}, nil
}

// sync is kg_sync.
func (t *tools) sync(ctx context.Context, a args) (outcome, error) {
	sid, err := a.required("session_id")
	if err != nil {
		return outcome{}, err
	}
	res, err := t.svc.Sync(ctx, sid)
	if err != nil {
		return outcome{}, err
	}
	return outcome{renderSync(res), syncOutputOf(res)}, nil
}

// progress is kg_progress.
func (t *tools) progress(ctx context.Context, a args) (outcome, error) {
	var sc app.Scope
	var task string
	var state domain.RawJSON
	var save bool
	err := firstErr(
		func() (err error) { sc.SessionID, err = a.required("session_id"); return },
		func() (err error) { task, err = a.required("task_id"); return },
		func() (err error) { state, save, err = a.object("state"); return },
		func() (err error) { sc.Level, err = a.level("level"); return },
	)
	if err != nil {
		return outcome{}, err
	}
	if sc.Level == "" {
		sc.Level = domain.LevelUser // mcp.md: level defaults to user
	}
	out := progressOutput{TaskID: task, Level: string(sc.Level), Saved: save}
	if save {
		if err := t.svc.SaveProgress(ctx, sc, task, state); err != nil {
			return outcome{}, err
		}
		out.Found, out.State = true, stateObject(state)
		return outcome{renderProgressSaved(task, sc.Level), out}, nil
	}
	state, found, err := t.svc.LoadProgress(ctx, sc, task)
	if err != nil {
		return outcome{}, err
	}
	out.Found = found
	if found {
		out.State = stateObject(state)
	}
	return outcome{renderProgress(task, sc.Level, state, found), out}, nil
}

// requiredLevel returns the level argument, which must be given.
func requiredLevel(a args) (domain.Level, error) {
	l, err := a.level("level")
	if err == nil && l == "" {
		err = domain.Invalidf("level", "is required: user or project")
	}
	return l, err
}

// firstErr runs the decoding steps in order and returns the first error, so
// a call with several bad arguments is told of the first, in argument order.
func firstErr(steps ...func() error) error {
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}
