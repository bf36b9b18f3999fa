package rest

import (
	"net/http"
	"strconv"
	"time"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// The change log routes (docs/design/trust.md#history-and-undo).

// uintParam reads a whole number from the query; "" is 0.
func uintParam(r *http.Request, name string) (uint64, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, domain.Invalidf(name, "%q is not a whole number of 0 or more", s)
	}
	return n, nil
}

// history serves GET /api/history?level&project_path|project_key&id|session_id|since_seq&before_seq&since&limit:
// the graph's change log, newest first. session_id here selects the
// entries of that session; it is not the caller's.
func (a *API) history(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := app.HistoryRequest{Scope: app.Scope{ProjectPath: q.Get("project_path"), ProjectKey: q.Get("project_key"),
		Level: domain.Level(q.Get("level"))}, ID: q.Get("id"), Session: q.Get("session_id")}
	var err error
	if req.SinceSeq, err = uintParam(r, "since_seq"); err != nil {
		a.fail(w, r, err)
		return
	}
	if req.BeforeSeq, err = uintParam(r, "before_seq"); err != nil {
		a.fail(w, r, err)
		return
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > app.MaxHistoryLimit {
			a.fail(w, r, domain.Invalidf("limit", "%q is not a whole number from 1 to %d", s, app.MaxHistoryLimit))
			return
		}
		req.Limit = n
	}
	if s := q.Get("since"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			a.fail(w, r, domain.Invalidf("since", "%q is not a duration above 0 such as 2h or 90m", s))
			return
		}
		req.Since = domain.Micros(d.Microseconds())
	}
	res, err := a.svc.History(r.Context(), req)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := apijson.HistoryOf(res)
	apijson.Write(w, http.StatusOK, out)
}

// undoBody is the body of POST /api/undo: session_id (the session whose
// changes are undone) or seq_range; by_session is the caller's session,
// which the undo's writes carry.
type undoBody struct {
	Level       string `json:"level"`
	ProjectPath string `json:"project_path"`
	ProjectKey  string `json:"project_key"`
	SessionID   string `json:"session_id"`
	SeqRange    *struct {
		From uint64 `json:"from"`
		To   uint64 `json:"to"`
	} `json:"seq_range"`
	DryRun    bool   `json:"dry_run"`
	BySession string `json:"by_session"`
}

// undo serves POST /api/undo: puts back the state before a session's
// changes (or a seq range's) as new writes, skipping and naming the items
// changed since by someone else; dry_run shows the plan and changes
// nothing.
func (a *API) undo(w http.ResponseWriter, r *http.Request) {
	var in undoBody
	if err := decodeBody(r, &in, true); err != nil {
		a.fail(w, r, err)
		return
	}
	req := app.UndoRequest{Scope: app.Scope{SessionID: in.BySession, ProjectPath: in.ProjectPath, ProjectKey: in.ProjectKey,
		Level: domain.Level(in.Level)}, Session: in.SessionID, DryRun: in.DryRun}
	if in.SeqRange != nil {
		req.Range, req.From, req.To = true, in.SeqRange.From, in.SeqRange.To
	}
	res, err := a.svc.Undo(r.Context(), req)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := apijson.UndoResultOf(res)
	apijson.Write(w, http.StatusOK, out)
}
