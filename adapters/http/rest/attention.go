package rest

import (
	"net/http"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain/secretscreen"
)

// attentionJSON is the body of GET /api/attention (docs/api.md): what of one
// graph needs a person, each kind a list, none left out.
type attentionJSON struct {
	Level       string         `json:"level"`
	ProjectPath *string        `json:"project_path"`
	Stale       []staleJSON    `json:"stale"`
	Duplicates  []clusterJSON  `json:"duplicates"`
	Secrets     []storedSecret `json:"secrets"`
	Edge        apijson.Moves  `json:"edge"`
}

type staleJSON struct {
	ID    string              `json:"id"`
	Files []apijson.StaleFile `json:"files"`
}

type clusterJSON struct {
	IDs   []string   `json:"ids"`
	Pairs []pairJSON `json:"pairs"`
}

type pairJSON struct {
	A     string  `json:"a"`
	B     string  `json:"b"`
	By    string  `json:"by"` // "id" (the same id in another spelling) or "gist" (near-identical gists)
	Score float64 `json:"score"`
}

// storedSecret names where a credential is, never the credential: the node
// or the edge, the field, the kind and the code points it spans (from 1,
// both ends included, as the refusals count them).
type storedSecret struct {
	Node    string           `json:"node,omitempty"`
	Edge    *apijson.EdgeRef `json:"edge,omitempty"`
	Field   string           `json:"field"`
	Kind    string           `json:"kind"`
	Start   int              `json:"start"`
	End     int              `json:"end"`
	Message string           `json:"message"`
}

// attention serves GET /api/attention.
func (a *API) attention(w http.ResponseWriter, r *http.Request) {
	at, err := a.svc.Attention(r.Context(), scopeOf(r, ""))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	apijson.Write(w, http.StatusOK, attentionOf(at))
}

func attentionOf(at app.Attention) attentionJSON {
	out := attentionJSON{
		Level: string(at.Key.Level), ProjectPath: optional(at.Key.Project),
		Stale: make([]staleJSON, 0, len(at.Stale)), Duplicates: make([]clusterJSON, 0, len(at.Duplicates)),
		Secrets: make([]storedSecret, 0, len(at.Secrets)), Edge: apijson.MovesOf(at.Edge),
	}
	for _, s := range at.Stale {
		files := make([]apijson.StaleFile, len(s.Files))
		for i, f := range s.Files {
			files[i] = apijson.StaleFile{Path: f.Path, Change: string(f.Change)}
		}
		out.Stale = append(out.Stale, staleJSON{ID: s.ID, Files: files})
	}
	for _, c := range at.Duplicates {
		pairs := make([]pairJSON, len(c.Pairs))
		for i, p := range c.Pairs {
			pairs[i] = pairJSON{A: p.A, B: p.B, By: "gist", Score: p.Score}
			if p.ByID {
				pairs[i].By = "id"
			}
		}
		out.Duplicates = append(out.Duplicates, clusterJSON{IDs: c.IDs, Pairs: pairs})
	}
	for _, s := range at.Secrets {
		out.Secrets = append(out.Secrets, secretOf(s))
	}
	return out
}

func secretOf(s secretscreen.Stored) storedSecret {
	j := storedSecret{Node: s.Node, Field: s.Field, Kind: s.Kind.ID, Start: s.Start + 1, End: s.End, Message: s.Message()}
	if s.Edge != nil {
		j.Edge = &apijson.EdgeRef{From: s.Edge.From, To: s.Edge.To, Rel: s.Edge.Rel}
	}
	return j
}
