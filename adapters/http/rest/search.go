package rest

import (
	"math"
	"net/http"
	"strconv"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// hitJSON is one search hit, as kg_search gives it.
type hitJSON struct {
	Level   string   `json:"level"`
	Project *string  `json:"project"`
	ID      string   `json:"id"`
	Tier    string   `json:"tier"`
	Gist    string   `json:"gist"`
	Notes   []string `json:"notes"`
	Score   float64  `json:"score"`   // BM25 score (docs/design/mcp.md#kg_search), 4 decimals
	Matched []string `json:"matched"` // the terms (after correction) that matched the node
	// Stale: the node's recorded files that changed or vanished
	// (docs/design/trust.md#staleness); absent when none.
	Stale []apijson.StaleFile `json:"stale,omitempty"`
}

// correctionJSON is a term that matched nothing and the word searched for
// in its place.
type correctionJSON struct {
	Term string `json:"term"`
	Used string `json:"used"`
}

// nearestJSON is, with no hits, a term that matched nothing and the
// nearest spelling in the graphs searched.
type nearestJSON struct {
	Term    string `json:"term"`
	Nearest string `json:"nearest"`
}

// search serves GET /api/search?q&session_id&project_path&project_key&level&limit&scope:
// the hits of kg_search; scope=all searches the user graph and every project.
// It has no side effects.
func (a *API) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := app.SearchRequest{Query: q.Get("q"), SessionID: q.Get("session_id"), ProjectPath: q.Get("project_path"),
		ProjectKey: q.Get("project_key"), Level: domain.Level(q.Get("level"))}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > domain.MaxSearchLimit {
			a.fail(w, r, domain.Invalidf("limit", "%q is not a whole number between 1 and %d", s, domain.MaxSearchLimit))
			return
		}
		req.Limit = n
	}
	switch sc := q.Get("scope"); sc {
	case "":
	case "all":
		req.All = true
	default:
		a.fail(w, r, domain.Invalidf("scope", "%q is not a scope; the one scope is all (the user graph and every project)", sc))
		return
	}
	// The errors name the parameter this caller sent, q; kg_search's name
	// it query.
	if req.Query == "" {
		a.fail(w, r, domain.Invalidf("q", "required: the words to search for"))
		return
	}
	if err := domain.ValidateQuery("q", req.Query); err != nil {
		a.fail(w, r, err)
		return
	}
	res, err := a.svc.Search(r.Context(), req)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]hitJSON, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = hitJSON{Level: string(h.Level), Project: optional(h.Project), ID: h.Node.ID, Tier: h.Node.Tier.String(),
			Gist: h.Node.Gist, Notes: nonNil(h.Node.Notes), Score: math.Round(h.Score*10_000) / 10_000, Matched: nonNil(h.Matched),
			Stale: apijson.NodeOf(h.Node).Stale}
	}
	var corrections []correctionJSON
	for _, c := range res.Corrections {
		corrections = append(corrections, correctionJSON{c.Term, c.Used})
	}
	var nearest []nearestJSON
	for _, n := range res.Nearest {
		nearest = append(nearest, nearestJSON{n.Term, n.Nearest})
	}
	apijson.Write(w, http.StatusOK, struct {
		Query string    `json:"query"`
		Hits  []hitJSON `json:"hits"`
		// Corrections and Nearest as kg_search gives them, left out
		// when empty.
		Corrections []correctionJSON `json:"corrections,omitempty"`
		Nearest     []nearestJSON    `json:"nearest,omitempty"`
		// Unavailable names each graph that could not be searched
		// because it cannot be loaded, and why.
		Unavailable []string `json:"unavailable,omitempty"`
		// Stale: searched in memory while the database cannot be
		// reached (team mode); left out otherwise.
		Stale bool `json:"stale,omitempty"`
	}{req.Query, out, corrections, nearest, res.Unavailable, res.Stale})
}
