package rest

import (
	"net/http"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/merge"
)

// mergeBody is the body of POST /api/nodes/merge: node from is merged into
// node into (docs/design/trust.md#merging-two-nodes).
type mergeBody struct {
	Level       string  `json:"level"`
	SessionID   string  `json:"session_id"`
	ProjectPath string  `json:"project_path"`
	ProjectKey  string  `json:"project_key"`
	Into        string  `json:"into"`
	From        string  `json:"from"`
	Gist        string  `json:"gist"`         // "": into's gist
	IntoVersion *uint64 `json:"into_version"` // as expected_version: the version looked at
	FromVersion *uint64 `json:"from_version"`
	DryRun      bool    `json:"dry_run"`
}

// edgeKeyJSON names an edge.
type edgeKeyJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
	Rel  string `json:"rel"`
}

// seqRangeJSON is the seqs a merge took, as POST /api/undo's seq_range names them.
type seqRangeJSON struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
}

// mergeEdgeJSON is one edge of the node merged and what becomes of it.
type mergeEdgeJSON struct {
	Was    edgeKeyJSON  `json:"was"`
	Now    *edgeKeyJSON `json:"now"` // null: dropped
	Action string       `json:"action"`
	Notes  []string     `json:"notes"`
}

// mergeNodes serves POST /api/nodes/merge: the plan (dry_run) or the merge,
// one write; 409 when into_version or from_version does not hold.
func (a *API) mergeNodes(w http.ResponseWriter, r *http.Request) {
	var in mergeBody
	if err := decodeBody(r, &in, true); err != nil {
		a.fail(w, r, err)
		return
	}
	sc := app.Scope{SessionID: in.SessionID, ProjectPath: in.ProjectPath, ProjectKey: in.ProjectKey, Level: domain.Level(in.Level)}
	res, err := a.svc.MergeNodes(r.Context(), sc, merge.MergeInput{Into: in.Into, From: in.From, Gist: in.Gist,
		IntoVersion: in.IntoVersion, FromVersion: in.FromVersion}, in.DryRun)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	p := res.Plan
	edges := make([]mergeEdgeJSON, len(p.Edges))
	for i, me := range p.Edges {
		j := mergeEdgeJSON{Was: edgeKeyJSON(me.Was), Action: string(me.Action), Notes: nonNil(me.Notes)}
		if me.Action != merge.MergeDropped {
			now := edgeKeyJSON(me.Now)
			j.Now = &now
		}
		edges[i] = j
	}
	out := struct {
		DryRun      bool    `json:"dry_run"`
		Level       string  `json:"level"`
		Project     *string `json:"project"`
		Into        string  `json:"into"`
		From        string  `json:"from"`
		IntoVersion uint64  `json:"into_version"`
		FromVersion uint64  `json:"from_version"`
		Merged      struct {
			Gist    string   `json:"gist"`
			Notes   []string `json:"notes"`
			Touches []string `json:"touches"`
		} `json:"merged"`
		Edges        []mergeEdgeJSON     `json:"edges"`
		Node         *apijson.Node       `json:"node"`
		Written      []apijson.Edge      `json:"written"`
		Deleted      *string             `json:"deleted"`
		EdgesDeleted int                 `json:"edges_deleted"`
		Compaction   *apijson.Moves      `json:"compaction"`
		Redacted     []apijson.Redaction `json:"redacted,omitempty"`
		Seqs         *seqRangeJSON       `json:"seqs"`
	}{DryRun: res.DryRun, Level: string(res.Level), Project: optional(res.Project), Into: p.Into, From: p.From,
		IntoVersion: p.IntoVersion, FromVersion: p.FromVersion, Edges: edges, Written: []apijson.Edge{},
		EdgesDeleted: res.EdgesDeleted, Compaction: apijson.MovesOrNil(res.Compaction), Redacted: apijson.RedactionsOf(p.Redacted)}
	out.Merged.Gist, out.Merged.Notes, out.Merged.Touches = p.Gist, nonNil(p.Notes), nonNil(p.Touches)
	if res.Node != nil {
		n := apijson.NodeOf(res.Node)
		out.Node, out.Deleted = &n, &p.From
		out.Seqs = &seqRangeJSON{From: res.FirstSeq, To: res.LastSeq}
	}
	for _, e := range res.Written {
		out.Written = append(out.Written, apijson.EdgeOf(e))
	}
	apijson.Write(w, http.StatusOK, out)
}
