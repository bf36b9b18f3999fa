package rest

import (
	"net/http"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/domain"
)

// registerSession serves POST /api/sessions/register?project_path=P: a new
// session bound to P (or to no project). P may also come as the body's
// project_path.
func (a *API) registerSession(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ProjectPath string `json:"project_path"`
	}
	if err := decodeBody(r, &in, false); err != nil {
		a.fail(w, r, err)
		return
	}
	if p := r.URL.Query().Get("project_path"); p != "" {
		in.ProjectPath = p
	}
	s, err := a.svc.RegisterSession(r.Context(), in.ProjectPath)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	apijson.Write(w, http.StatusOK, struct {
		SessionID   string  `json:"session_id"`
		StartTS     float64 `json:"start_ts"`
		ProjectPath *string `json:"project_path"`
	}{s.ID, apijson.Seconds(s.Start), optional(s.ProjectPath)})
}

// sessionStats serves GET /api/sessions/{id}/stats: the session's record and
// the sizes of its graphs; 404 for an unknown session.
func (a *API) sessionStats(w http.ResponseWriter, r *http.Request) {
	id, err := param(r, "id")
	if err != nil {
		a.fail(w, r, err)
		return
	}
	st, err := a.svc.SessionStats(r.Context(), id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	s := st.Session
	body := struct {
		SessionID      string     `json:"session_id"`
		ProjectPath    *string    `json:"project_path"`
		StartTS        float64    `json:"start_ts"`
		LastActivityTS float64    `json:"last_activity_ts"`
		OpCount        int64      `json:"op_count"`
		User           statsJSON  `json:"user"`
		Project        *statsJSON `json:"project"`
	}{
		SessionID: s.ID, ProjectPath: optional(s.ProjectPath), StartTS: apijson.Seconds(s.Start),
		LastActivityTS: apijson.Seconds(s.LastActivity), OpCount: s.OpCount, User: statsOf(st.UserGraph),
	}
	if st.Project != nil {
		p := statsOf(*st.Project)
		body.Project = &p
	}
	apijson.Write(w, http.StatusOK, body)
}

func statsOf(s domain.Stats) statsJSON {
	return statsJSON{Active: s.Active, Archived: s.Archived, Orphaned: s.Orphaned, Edges: s.Edges, ShownEdges: s.ShownEdges}
}
