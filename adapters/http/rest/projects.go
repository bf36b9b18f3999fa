package rest

import (
	"net/http"
	"strconv"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/domain"
)

// removeProject serves DELETE /api/projects?project_path=P[&force=true]: it
// removes the project's memory (`kg project rm`), refusing with 409 a
// project that holds anything unless force.
func (a *API) removeProject(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	path := q.Get("project_path")
	if path == "" {
		path = q.Get("project_key") // a team server takes a key where it takes a path
	}
	if path == "" {
		a.fail(w, r, domain.Invalidf("project_path", "missing: name the project to remove (an absolute path)"))
		return
	}
	force := false
	if v := q.Get("force"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			a.fail(w, r, domain.Invalidf("force", "%q: want true or false", v))
			return
		}
		force = b
	}
	res, err := a.svc.RemoveProject(r.Context(), path, force)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	apijson.Write(w, http.StatusOK, struct {
		Removed string `json:"removed"`
		Nodes   int    `json:"nodes"`
		Edges   int    `json:"edges"`
		Stored  bool   `json:"stored"`
	}{res.ProjectPath, res.Nodes, res.Edges, res.Stored})
}
