package rest

import (
	"math"
	"net/http"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/domain"
)

// registerSession serves POST /api/sessions/register?project_path=P: a new
// session bound to P (or to no project). P may also come as the body's
// project_path, and the project's key as project_key (query or body).
func (a *API) registerSession(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ProjectPath string `json:"project_path"`
		ProjectKey  string `json:"project_key"`
	}
	if err := decodeBody(r, &in, false); err != nil {
		a.fail(w, r, err)
		return
	}
	if p := r.URL.Query().Get("project_path"); p != "" {
		in.ProjectPath = p
	}
	if k := r.URL.Query().Get("project_key"); k != "" {
		in.ProjectKey = k
	}
	s, err := a.svc.RegisterSession(r.Context(), in.ProjectPath, in.ProjectKey)
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
	// The replaced server's keys (docs/design/http.md#shapes-of-the-replaced-server),
	// then kg's: the last activity, and each graph's tiers.
	s := st.Session
	type graphSize struct {
		Nodes int `json:"nodes"` // every tier
		Edges int `json:"edges"`
		statsJSON
	}
	sizeOf := func(g domain.Stats) *graphSize {
		return &graphSize{Nodes: g.Active + g.Archived + g.Orphaned, Edges: g.Edges, statsJSON: statsOf(g)}
	}
	body := struct {
		SessionID       string  `json:"session_id"`
		DurationSeconds int64   `json:"duration_seconds"`
		OpCount         int64   `json:"op_count"`
		ProjectPath     *string `json:"project_path"`
		StartedAt       float64 `json:"started_at"`
		Graphs          struct {
			User    *graphSize `json:"user"`
			Project *graphSize `json:"project,omitempty"`
		} `json:"graphs"`
		LastActivityTS float64 `json:"last_activity_ts"`
		Agent          *string `json:"agent"` // the agent its hooks said it runs in; null: none said
	}{
		SessionID: s.ID, DurationSeconds: int64(math.Round(float64(max(st.Now-s.Start, 0)) / float64(domain.Second))),
		OpCount: s.OpCount, ProjectPath: optional(s.ProjectPath), StartedAt: apijson.Seconds(s.Start),
		LastActivityTS: apijson.Seconds(s.LastActivity), Agent: optional(st.Agent),
	}
	body.Graphs.User = sizeOf(st.UserGraph)
	if st.Project != nil {
		body.Graphs.Project = sizeOf(*st.Project)
	}
	apijson.Write(w, http.StatusOK, body)
}

func statsOf(s domain.Stats) statsJSON {
	return statsJSON{Active: s.Active, Archived: s.Archived, Orphaned: s.Orphaned, Edges: s.Edges, ShownEdges: s.ShownEdges}
}
