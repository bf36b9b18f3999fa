package rest

import (
	"encoding/json"
	"net/http"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// levelOrUser is the level of a progress call: the user graph by default.
func levelOrUser(l domain.Level) string {
	if l == "" {
		return string(domain.LevelUser)
	}
	return string(l)
}

// loadProgress serves GET /api/progress/{task_id}?level&session_id&
// project_path: the stored state of the task itself, as the replaced
// server answers, numbers exactly as stored; {} when there is none
// (docs/design/http.md#shapes-of-the-replaced-server).
func (a *API) loadProgress(w http.ResponseWriter, r *http.Request) {
	task, err := param(r, "task_id")
	if err != nil {
		a.fail(w, r, err)
		return
	}
	sc := scopeOf(r, "")
	state, ok, err := a.svc.LoadProgress(r.Context(), sc, task)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !ok {
		state = domain.RawJSON("{}")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(state, '\n'))
}

// saveProgress serves POST /api/progress with body {"task_id", "state",
// "level"?, "session_id"?, "project_path"?, "project_key"?}: it stores the state whole,
// replacing what was there.
func (a *API) saveProgress(w http.ResponseWriter, r *http.Request) {
	var in struct {
		TaskID      string          `json:"task_id"`
		State       json.RawMessage `json:"state"`
		Level       string          `json:"level"`
		SessionID   string          `json:"session_id"`
		ProjectPath string          `json:"project_path"`
		ProjectKey  string          `json:"project_key"`
	}
	if err := decodeBody(r, &in, true); err != nil {
		a.fail(w, r, err)
		return
	}
	if len(in.State) == 0 || string(in.State) == "null" {
		a.fail(w, r, domain.Invalidf("state", "required: a JSON object"))
		return
	}
	sc := app.Scope{SessionID: in.SessionID, ProjectPath: in.ProjectPath, ProjectKey: in.ProjectKey, Level: domain.Level(in.Level)}
	if err := a.svc.SaveProgress(r.Context(), sc, in.TaskID, domain.RawJSON(in.State)); err != nil {
		a.fail(w, r, err)
		return
	}
	apijson.Write(w, http.StatusOK, struct {
		TaskID string `json:"task_id"`
		Stored bool   `json:"stored"`
		Level  string `json:"level"` // beyond the replaced server's answer
	}{in.TaskID, true, levelOrUser(sc.Level)})
}
