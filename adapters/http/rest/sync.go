package rest

import (
	"net/http"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/changes"
)

// syncGraphJSON is what kg_sync reports of one graph.
type syncGraphJSON struct {
	Level    string         `json:"level"`
	Project  *string        `json:"project"`
	Changes  []syncItemJSON `json:"changes"` // by seq
	Archived int            `json:"archived"`
	Restored int            `json:"restored"`
	Orphaned int            `json:"orphaned"`
	Pruned   int            `json:"pruned"`
	// Unavailable says which graph cannot be loaded and why; its changes
	// are then empty, and reported once it loads again.
	Unavailable string `json:"unavailable,omitempty"`
}

// syncItemJSON is one change: kind "node" or "edge" with its current
// content (an orphaned node without its gist), or "deleted_node" /
// "deleted_edge" naming what was deleted.
type syncItemJSON struct {
	Kind string `json:"kind"`
	Seq  uint64 `json:"seq"`
	// TS and SourceSession say when and by whom (null: no session) the
	// change was made, as a live event does.
	TS            float64       `json:"ts,omitempty"`
	SourceSession *string       `json:"source_session"`
	Node          *apijson.Node `json:"node,omitempty"`
	Edge          *apijson.Edge `json:"edge,omitempty"`
	ID            string        `json:"id,omitempty"`
	From          string        `json:"from,omitempty"`
	To            string        `json:"to,omitempty"`
	Rel           string        `json:"rel,omitempty"`
}

func syncGraphOf(level domain.Level, project string, rep changes.Report, unavailable string) syncGraphJSON {
	out := syncGraphJSON{Level: string(level), Project: optional(project), Changes: make([]syncItemJSON, 0, len(rep.Items)),
		Archived: rep.Archived, Restored: rep.Restored, Orphaned: rep.Orphaned, Pruned: rep.Pruned, Unavailable: unavailable}
	for _, it := range rep.Items {
		j := syncItemJSON{Seq: it.Seq, TS: apijson.Seconds(it.TS), SourceSession: optional(it.Session)}
		switch {
		case it.Node != nil:
			n := apijson.NodeOf(it.Node)
			n.Stale = nil // kg_sync says what others changed; a stale mark is no change (docs/design/trust.md#staleness)
			if it.Node.Tier == domain.Orphaned {
				n.Gist, n.Notes = "", []string{} // orphaned: no gist (docs/design/sync.md#kg_sync)
			}
			j.Kind, j.Node = "node", &n
		case it.Edge != nil:
			e := apijson.EdgeOf(it.Edge)
			j.Kind, j.Edge = "edge", &e
		case it.EdgeKey != nil:
			j.Kind, j.From, j.To, j.Rel = "deleted_edge", it.EdgeKey.From, it.EdgeKey.To, it.EdgeKey.Rel
		default:
			j.Kind, j.ID = "deleted_node", it.NodeID
		}
		out.Changes = append(out.Changes, j)
	}
	return out
}

// sync serves POST /api/sync with body {"session_id"}: what other sessions
// changed since the session's last sync, as kg_sync; it advances the
// session's watermark, which is why there is no GET.
func (a *API) sync(w http.ResponseWriter, r *http.Request) {
	var in struct {
		SessionID string `json:"session_id"`
	}
	if err := decodeBody(r, &in, true); err != nil {
		a.fail(w, r, err)
		return
	}
	if in.SessionID == "" {
		a.fail(w, r, domain.Invalidf("session_id", "required; call kg_read with cwd or POST /api/sessions/register to start one"))
		return
	}
	res, err := a.svc.Sync(r.Context(), in.SessionID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	body := struct {
		SessionID string         `json:"session_id"`
		Empty     bool           `json:"empty"`
		User      syncGraphJSON  `json:"user"`
		Project   *syncGraphJSON `json:"project"`
	}{SessionID: in.SessionID, Empty: res.Empty(), User: syncGraphOf(domain.LevelUser, "", res.User, res.UserUnavailable)}
	if res.Project != nil {
		p := syncGraphOf(domain.LevelProject, res.ProjectPath, *res.Project, res.ProjectUnavailable)
		body.Project = &p
	}
	apijson.Write(w, http.StatusOK, body)
}
