package rest

import (
	"net/http"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// archiveBody is the body of POST /api/nodes/archive: the nodes of one
// graph a person moves to the archived tier (docs/design/trust.md#archiving-by-hand).
type archiveBody struct {
	Level       string   `json:"level"`
	SessionID   string   `json:"session_id"`
	ProjectPath string   `json:"project_path"`
	ProjectKey  string   `json:"project_key"`
	IDs         []string `json:"ids"`
}

// archiveNodes serves POST /api/nodes/archive: one write of the caller's
// session, which POST /api/undo of that session reverses; 404 naming ids
// when the graph lacks one of them, and then nothing is archived.
func (a *API) archiveNodes(w http.ResponseWriter, r *http.Request) {
	var in archiveBody
	if err := decodeBody(r, &in, true); err != nil {
		a.fail(w, r, err)
		return
	}
	sc := app.Scope{SessionID: in.SessionID, ProjectPath: in.ProjectPath, ProjectKey: in.ProjectKey, Level: domain.Level(in.Level)}
	res, err := a.svc.ArchiveNodes(r.Context(), sc, in.IDs)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := struct {
		Level    string        `json:"level"`
		Project  *string       `json:"project"`
		Archived []string      `json:"archived"`
		Unmoved  []string      `json:"unmoved"` // named, but not active: left as they were
		Seqs     *seqRangeJSON `json:"seqs"`    // null when nothing moved
	}{Level: string(res.Level), Project: optional(res.Project), Archived: nonNil(res.Archived), Unmoved: nonNil(res.Unmoved)}
	if res.LastSeq != 0 {
		out.Seqs = &seqRangeJSON{From: res.FirstSeq, To: res.LastSeq}
	}
	apijson.Write(w, http.StatusOK, out)
}
