package mcp

// The structuredContent of every tool result: the same facts as the text of
// render.go, from the same inputs, in the types of output.go.

import (
	"bytes"
	"encoding/json"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

func graphOutput(g shownGraph) *graphOut {
	v := g.view
	out := &graphOut{
		Level: string(g.level), Project: g.project, Name: g.name,
		Active:          make([]activeOut, 0, len(v.Active)),
		Archived:        append([]string{}, v.Archived...),
		Edges:           make([]edgeOut, 0, len(v.Edges)),
		ArchivedOmitted: g.archivedOmitted,
		EdgesOmitted:    g.edgesOmitted,
		Unavailable:     g.unavailable,
		Health: healthOut{
			Active: v.Health.Active, Archived: v.Health.Archived, Orphaned: v.Health.Orphaned,
			Edges: v.Health.Edges, Unconnected: v.Health.Unconnected,
			AvgEdgesPerNode: v.Health.AvgEdgesPerNode,
			Tokens:          v.Health.Estimate, MaxTokens: v.Health.MaxTokens, OverBudget: v.Health.OverBudget,
		},
	}
	for _, n := range v.Active {
		out.Active = append(out.Active, activeOut{ID: n.ID, Gist: n.Gist})
	}
	for _, e := range v.Edges {
		out.Edges = append(out.Edges, edgeOut{From: e.From, Rel: e.Rel, To: e.To})
	}
	return out
}

func fullReadOutput(gs []shownGraph, res app.ReadResult) readOutput {
	out := readOutput{SessionID: res.SessionID, NewSession: res.NewSession}
	for _, g := range gs {
		if g.level == domain.LevelUser {
			out.User = graphOutput(g)
		} else {
			out.Project = graphOutput(g)
		}
	}
	return out
}

func nodeReadsOutput(res app.ReadResult) readOutput {
	out := readOutput{SessionID: res.SessionID, NewSession: res.NewSession, Nodes: make([]nodeOut, 0, len(res.Nodes))}
	for _, r := range res.Nodes {
		n := r.Node
		out.Nodes = append(out.Nodes, nodeOut{
			Level: string(r.Level), Project: r.Project, ID: n.ID,
			Tier: n.Tier.String(), WasTier: r.WasTier.String(),
			Gist: n.Gist, Notes: nonNil(n.Notes), Touches: nonNil(n.Touches),
			Version: n.Version.V, Created: formatTime(n.Created), LastWritten: formatTime(n.LastWrite()),
			Out: endsOutput(r.Out), In: endsOutput(r.In),
			Rescued: r.Rescued, RecallNotSaved: r.RecallNotSaved,
		})
	}
	return out
}

func endsOutput(ends []app.EdgeEnd) []edgeEndOut {
	out := make([]edgeEndOut, 0, len(ends))
	for _, e := range ends {
		o := edgeEndOut{From: e.Edge.From, Rel: e.Edge.Rel, To: e.Edge.To, Notes: e.Edge.Notes}
		if e.OtherTier != nil {
			o.OtherTier = e.OtherTier.String()
			o.OtherLevel = string(e.OtherLevel)
		}
		out = append(out, o)
	}
	return out
}

func searchOutputOf(query string, hits []app.Hit) searchOutput {
	out := searchOutput{Query: query, Hits: make([]hitOut, 0, len(hits))}
	for _, h := range hits {
		out.Hits = append(out.Hits, hitOut{
			Level: string(h.Level), Project: h.Project, ID: h.Node.ID, Tier: h.Node.Tier.String(),
			Gist: h.Node.Gist, Notes: nonNil(h.Node.Notes), Score: round4(h.Score),
		})
	}
	return out
}

func movesOutput(m domain.Moves) *movesOut {
	if m.Empty() {
		return nil
	}
	return &movesOut{Archived: m.Archived, Restored: m.Restored, Orphaned: m.Orphaned, Pruned: m.Pruned}
}

func syncGraphOutput(level domain.Level, project string, rep domain.SyncReport) syncGraphOut {
	c := countSync(rep)
	out := syncGraphOut{
		Level: string(level), Project: project, Changes: make([]syncItemOut, 0, len(rep.Items)),
		NodesUpdated: c.nodes, EdgesUpdated: c.edges, NodesDeleted: c.deletedNodes, EdgesDeleted: c.deletedEdges,
		Archived: rep.Archived, Restored: rep.Restored, Orphaned: rep.Orphaned, Pruned: rep.Pruned,
	}
	for _, it := range rep.Items {
		var o syncItemOut
		switch {
		case it.Node != nil:
			o = syncItemOut{Kind: "node", ID: it.Node.ID, Tier: it.Node.Tier.String()}
			if it.Node.Tier != domain.Orphaned {
				o.Gist = it.Node.Gist
			}
		case it.Edge != nil:
			o = syncItemOut{Kind: "edge", From: it.Edge.From, Rel: it.Edge.Rel, To: it.Edge.To}
		case it.Deleted && it.EdgeKey != nil:
			o = syncItemOut{Kind: "deleted_edge", From: it.EdgeKey.From, Rel: it.EdgeKey.Rel, To: it.EdgeKey.To}
		default:
			o = syncItemOut{Kind: "deleted_node", ID: it.NodeID}
		}
		out.Changes = append(out.Changes, o)
	}
	return out
}

func syncOutputOf(r app.SyncResult) syncOutput {
	out := syncOutput{Empty: r.Empty(), User: syncGraphOutput(domain.LevelUser, "", r.User)}
	if r.Project != nil {
		p := syncGraphOutput(domain.LevelProject, r.ProjectPath, *r.Project)
		out.Project = &p
	}
	return out
}

// stateObject decodes a stored progress state for structuredContent,
// keeping numbers exact.
func stateObject(state domain.RawJSON) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(state))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil
	}
	return m
}

func round4(x float64) float64 {
	const k = 10_000
	if x < 0 {
		return -float64(int64(-x*k+0.5)) / k
	}
	return float64(int64(x*k+0.5)) / k
}

// nonNil returns s, or an empty list for nil: the output lists are always
// arrays, so a client never has to tell null from empty.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
