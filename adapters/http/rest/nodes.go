package rest

import (
	"net/http"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// putNodeBody is the body of POST /api/nodes. Omitted notes or touches keep
// what is stored; an empty list clears them.
type putNodeBody struct {
	Level           string   `json:"level"`
	ID              string   `json:"id"`
	Gist            string   `json:"gist"`
	Notes           []string `json:"notes"`
	Touches         []string `json:"touches"`
	SessionID       string   `json:"session_id"`
	ProjectPath     string   `json:"project_path"`
	ProjectKey      string   `json:"project_key"`
	ExpectedVersion *uint64  `json:"expected_version"`
}

// putNode serves POST /api/nodes: create or update a node; 409 when
// expected_version does not hold.
func (a *API) putNode(w http.ResponseWriter, r *http.Request) {
	var in putNodeBody
	if err := decodeBody(r, &in, true); err != nil {
		a.fail(w, r, err)
		return
	}
	sc := app.Scope{SessionID: in.SessionID, ProjectPath: in.ProjectPath, ProjectKey: in.ProjectKey, Level: domain.Level(in.Level)}
	res, err := a.svc.PutNode(r.Context(), sc, domain.NodeInput{ID: in.ID, Gist: in.Gist, Notes: in.Notes,
		Touches: in.Touches, ExpectedVersion: in.ExpectedVersion})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	apijson.Write(w, http.StatusOK, struct {
		Node       apijson.Node   `json:"node"`
		Level      string         `json:"level"`
		Project    *string        `json:"project"`
		Compaction *apijson.Moves `json:"compaction"`
	}{apijson.NodeOf(res.Node), string(res.Level), optional(res.Project), apijson.MovesOrNil(res.Compaction)})
}

// edgeEndJSON is an edge seen from the node read: its direction and the
// other end's tier when that end is a node.
type edgeEndJSON struct {
	apijson.Edge
	Direction  string  `json:"direction"` // "out" (from the node) or "in" (to it)
	Other      string  `json:"other"`
	OtherTier  *string `json:"other_tier"`  // null: a reference (file, URL, unknown id)
	OtherLevel *string `json:"other_level"` // the graph the other end was found in
}

func endsOf(dir string, ends []app.EdgeEnd) []edgeEndJSON {
	out := make([]edgeEndJSON, 0, len(ends))
	for _, e := range ends {
		j := edgeEndJSON{Edge: apijson.EdgeOf(e.Edge), Direction: dir, Other: e.Other}
		if e.OtherTier != nil {
			j.OtherTier, j.OtherLevel = optional(e.OtherTier.String()), optional(string(e.OtherLevel))
		}
		out = append(out, j)
	}
	return out
}

// nodeRoute reads the node a /api/nodes/{level}/{id} route names: the
// scope (the level from the path, the session and project from the query)
// and the id.
func nodeRoute(r *http.Request) (app.Scope, string, error) {
	id, err := param(r, "id")
	if err != nil {
		return app.Scope{}, "", err
	}
	level, err := param(r, "level")
	if err != nil {
		return app.Scope{}, "", err
	}
	return scopeOf(r, level), id, nil
}

// readNode serves GET /api/nodes/{level}/{id}?session_id&project_path: the
// node in full with its edges. It is a recall, as kg_read with an id: an
// archived or orphaned node becomes active and its orphaned neighbours
// archived. 404 if missing.
func (a *API) readNode(w http.ResponseWriter, r *http.Request) {
	sc, id, err := nodeRoute(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	rd, err := a.svc.ReadNode(r.Context(), sc, id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	apijson.Write(w, http.StatusOK, struct {
		Node           apijson.Node  `json:"node"`
		Level          string        `json:"level"`
		Project        *string       `json:"project"`
		WasArchived    bool          `json:"was_archived"` // the read restored it
		WasTier        string        `json:"was_tier"`
		Rescued        []string      `json:"rescued"`
		Edges          []edgeEndJSON `json:"edges"`
		RecallNotSaved string        `json:"recall_not_saved,omitempty"`
	}{
		Node: apijson.NodeOf(rd.Node), Level: string(rd.Level), Project: optional(rd.Project),
		WasArchived: rd.WasTier != domain.Active, WasTier: rd.WasTier.String(), Rescued: nonNil(rd.Rescued),
		Edges: append(endsOf("out", rd.Out), endsOf("in", rd.In)...), RecallNotSaved: rd.RecallNotSaved,
	})
}

// deleteNode serves DELETE /api/nodes/{level}/{id}?session_id&project_path:
// the node and the edges of its graph that touch it; 404 if missing.
func (a *API) deleteNode(w http.ResponseWriter, r *http.Request) {
	sc, id, err := nodeRoute(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	res, err := a.svc.DeleteNode(r.Context(), sc, id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	apijson.Write(w, http.StatusOK, struct {
		Deleted      string  `json:"deleted"`
		Level        string  `json:"level"`
		Project      *string `json:"project"`
		EdgesDeleted int     `json:"edges_deleted"`
	}{res.ID, string(res.Level), optional(res.Project), res.EdgesDeleted})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
