package rest

import (
	"net/http"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// putEdgeBody is the body of POST /api/edges. Omitted notes keep what is
// stored; an empty list clears them.
type putEdgeBody struct {
	Level       string   `json:"level"`
	From        string   `json:"from"`
	To          string   `json:"to"`
	Rel         string   `json:"rel"`
	Notes       []string `json:"notes"`
	SessionID   string   `json:"session_id"`
	ProjectPath string   `json:"project_path"`
	ProjectKey  string   `json:"project_key"`
}

// putEdge serves POST /api/edges: create or update the edge (from, to, rel).
func (a *API) putEdge(w http.ResponseWriter, r *http.Request) {
	var in putEdgeBody
	if err := decodeBody(r, &in, true); err != nil {
		a.fail(w, r, err)
		return
	}
	sc := app.Scope{SessionID: in.SessionID, ProjectPath: in.ProjectPath, ProjectKey: in.ProjectKey, Level: domain.Level(in.Level)}
	res, err := a.svc.PutEdge(r.Context(), sc, domain.EdgeInput{From: in.From, To: in.To, Rel: in.Rel, Notes: in.Notes})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	apijson.Write(w, http.StatusOK, struct {
		Edge       apijson.Edge   `json:"edge"`
		Level      string         `json:"level"`
		Project    *string        `json:"project"`
		Compaction *apijson.Moves `json:"compaction"`
	}{apijson.EdgeOf(res.Edge), string(res.Level), optional(res.Project), apijson.MovesOrNil(res.Compaction)})
}

// deleteEdgeByQuery serves DELETE /api/edges?level&from&to&rel&session_id&
// project_path. Without level the user graph is tried, then the project's.
func (a *API) deleteEdgeByQuery(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.deleteEdge(w, r, scopeOf(r, ""), domain.EdgeKey{From: q.Get("from"), To: q.Get("to"), Rel: q.Get("rel")})
}

// deleteEdgeByPath serves DELETE /api/edges/{level}/{from}/{to}/{rel}, with
// the slashes of an end escaped as %2F.
func (a *API) deleteEdgeByPath(w http.ResponseWriter, r *http.Request) {
	var parts [4]string
	for i, name := range []string{"level", "from", "to", "rel"} {
		v, err := param(r, name)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		parts[i] = v
	}
	a.deleteEdge(w, r, scopeOf(r, parts[0]), domain.EdgeKey{From: parts[1], To: parts[2], Rel: parts[3]})
}

// deleteEdge deletes one edge; a missing edge is not an error, and answers
// deleted: false.
func (a *API) deleteEdge(w http.ResponseWriter, r *http.Request, sc app.Scope, k domain.EdgeKey) {
	for _, f := range []struct{ name, v string }{{"from", k.From}, {"to", k.To}, {"rel", k.Rel}} {
		if f.v == "" {
			a.fail(w, r, domain.Invalidf(f.name, "required"))
			return
		}
	}
	res, err := a.svc.DeleteEdge(r.Context(), sc, k)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	apijson.Write(w, http.StatusOK, struct {
		Deleted bool    `json:"deleted"`
		Level   *string `json:"level"` // null when no graph held the edge and no level was given
		Project *string `json:"project"`
		From    string  `json:"from"`
		To      string  `json:"to"`
		Rel     string  `json:"rel"`
	}{res.Deleted, optional(string(res.Level)), optional(res.Project), k.From, k.To, k.Rel})
}
