package rest

import (
	"net/http"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// graphJSON is one graph of GET /api/graph/read: every node of every tier
// and every edge, with its notes and whether the full read shows it.
type graphJSON struct {
	Level      string          `json:"level"`
	Project    *string         `json:"project"`
	Nodes      []apijson.Node  `json:"nodes"`
	Edges      []graphEdgeJSON `json:"edges"`
	Stats      statsJSON       `json:"stats"`
	Tokens     int             `json:"tokens"`
	MaxTokens  int             `json:"max_tokens"`
	Target     int             `json:"target_tokens"`
	Seq        uint64          `json:"seq"`
	DurableSeq uint64          `json:"durable_seq"`
	// Unavailable says which graph cannot be loaded and why; the graph is
	// then shown empty and the other one is served.
	Unavailable string `json:"unavailable,omitempty"`
}

type graphEdgeJSON struct {
	apijson.Edge
	Shown bool `json:"shown"` // listed by the full read; false when both ends are archived or one is orphaned
}

// statsJSON counts a graph's nodes per tier and its edges.
type statsJSON struct {
	Active     int `json:"active"`
	Archived   int `json:"archived"`
	Orphaned   int `json:"orphaned"`
	Edges      int `json:"edges"`
	ShownEdges int `json:"shown_edges"`
}

func graphOf(gc app.GraphContents) graphJSON {
	out := graphJSON{
		Level: string(gc.Key.Level), Project: optional(gc.Key.Project),
		Nodes: make([]apijson.Node, len(gc.Nodes)), Edges: make([]graphEdgeJSON, len(gc.Edges)),
		Stats:  statsJSON{Active: gc.Stats.Active, Archived: gc.Stats.Archived, Orphaned: gc.Stats.Orphaned, Edges: gc.Stats.Edges, ShownEdges: gc.Stats.ShownEdges},
		Tokens: gc.Estimate, MaxTokens: gc.MaxTokens, Target: gc.Target, Seq: gc.Seq, DurableSeq: gc.DurableSeq,
		Unavailable: gc.Unavailable,
	}
	for i, n := range gc.Nodes {
		out.Nodes[i] = apijson.NodeOf(n)
	}
	for i, e := range gc.Edges {
		out.Edges[i] = graphEdgeJSON{Edge: apijson.EdgeOf(e.Edge), Shown: e.Shown}
	}
	return out
}

// readGraphs serves GET /api/graph/read?session_id&project_path: the user
// graph and the named project's graph, whole. It promotes nothing.
func (a *API) readGraphs(w http.ResponseWriter, r *http.Request) {
	res, err := a.svc.ReadGraphs(r.Context(), scopeOf(r, ""))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	// project is always a graph, as the replaced server answers: without a
	// project named, an empty one (docs/design/http.md#shapes-of-the-replaced-server).
	body := struct {
		User    graphJSON `json:"user"`
		Project graphJSON `json:"project"`
		// Stale: served from memory while the database cannot be
		// reached (team mode); left out otherwise.
		Stale bool `json:"stale,omitempty"`
	}{User: graphOf(res.User), Stale: res.Stale}
	if res.Project != nil {
		body.Project = graphOf(*res.Project)
	} else {
		body.Project = graphOf(app.GraphContents{Key: domain.GraphKey{Level: domain.LevelProject}, MaxTokens: res.User.MaxTokens})
	}
	apijson.Write(w, http.StatusOK, body)
}

// projects serves GET /api/projects: every known project graph.
func (a *API) projects(w http.ResponseWriter, r *http.Request) {
	ps, err := a.svc.Projects(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]apijson.Project, len(ps))
	for i, p := range ps {
		out[i] = apijson.ProjectOf(p)
	}
	apijson.Write(w, http.StatusOK, struct {
		Projects []apijson.Project `json:"projects"`
	}{out})
}

// optional renders "" as JSON null.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
