package mcp

import (
	"context"
	"path/filepath"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
)

// kgSearch finds nodes of every tier below the surface, with no side effects
// (docs/design/mcp.md#kg_search).
var kgSearch = tool[searchArgs, searchOutput]{
	name: "kg_search",
	description: "Search every node, archived and orphaned ones included, by words in its id, gist, " +
		"notes and touches and in the file paths and artifacts its edges point to; rare words count most, " +
		"word forms and identifier parts match, and a misspelt word is corrected. Use it to find knowledge " +
		"the full read no longer shows, or what is known about a file. Has no side effects.",
	hints: hints{title: "Search memory", readOnly: true, idempotent: true},
	args: []mcpgo.ToolOption{
		mcpgo.WithString("query", mcpgo.Required(), mcpgo.Description("Words to look for, separated by spaces.")),
		sessionArg(false),
		levelArg(false, "Search only this graph."),
		mcpgo.WithInteger("limit", mcpgo.Min(1), mcpgo.Max(100), mcpgo.Description("Most results to return (default 20, at most 100).")),
	},
	run: search,
}

type searchArgs struct {
	Query     requiredStr `arg:"query"`
	SessionID str         `arg:"session_id"`
	Level     level       `arg:"level"`
	Limit     integer     `arg:"limit"`
}

func search(ctx context.Context, svc Service, a searchArgs) (string, searchOutput, error) {
	if a.Limit.given && (a.Limit.value < 1 || a.Limit.value > domain.MaxSearchLimit) {
		return "", searchOutput{}, domain.Invalidf("limit", "%d is not between 1 and %d", a.Limit.value, domain.MaxSearchLimit)
	}
	query := string(a.Query)
	res, err := svc.Search(ctx, app.SearchRequest{Query: query, SessionID: string(a.SessionID),
		Level: domain.Level(a.Level), Limit: int(a.Limit.value)})
	if err != nil {
		return "", searchOutput{}, err
	}
	return staleLine(res.Stale) + renderSearch(query, res), searchOutputOf(query, res), nil
}

// searchOutput is the structured result of kg_search.
type searchOutput struct {
	Query string   `json:"query"`
	Hits  []hitOut `json:"hits" jsonschema:"by score, then level (user first), then id"`
	// Corrections and Nearest are left out when empty.
	Corrections []correctionOut `json:"corrections,omitempty" jsonschema:"each term that matched nothing and the word of memory searched for in its place"`
	Nearest     []nearestOut    `json:"nearest,omitempty" jsonschema:"when nothing matched: each term that matched nothing and the nearest spelling in memory"`
	// Unavailable is left out when every graph was searched.
	Unavailable []string `json:"unavailable,omitempty" jsonschema:"each graph that could not be searched because it cannot be loaded: which and why; the others were searched"`
}

// hitOut is one search hit.
type hitOut struct {
	Level   string     `json:"level"`
	Project string     `json:"project,omitempty"`
	ID      string     `json:"id"`
	Tier    string     `json:"tier"`
	Gist    string     `json:"gist"`
	Notes   []string   `json:"notes"`
	Score   float64    `json:"score" jsonschema:"BM25 score, 4 decimals"`
	Matched []string   `json:"matched" jsonschema:"the query terms (a correction's word for a corrected term) that matched this node"`
	Stale   []staleOut `json:"stale,omitempty" jsonschema:"the files this node recorded that changed or vanished since it was written: it is possibly stale; absent when none"`
}

type correctionOut struct {
	Term string `json:"term"`
	Used string `json:"used"`
}

type nearestOut struct {
	Term    string `json:"term"`
	Nearest string `json:"nearest"`
}

// MarshalJSON writes the search's structured output by hand (jsonappend.go):
// the bytes json.Marshal writes for it by reflection, in a fraction of the
// time. A field added to these types must be added here too;
// TestSearchOutputJSONIsEncodingJSONs fails until it is.
func (o searchOutput) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 256+len(o.Hits)*320)
	b = append(b, `{"query":`...)
	b = appendJSONString(b, o.Query)
	b = append(b, `,"hits":`...)
	if o.Hits == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, h := range o.Hits {
			if i > 0 {
				b = append(b, ',')
			}
			b = h.appendJSON(b)
		}
		b = append(b, ']')
	}
	if len(o.Corrections) > 0 {
		b = append(b, `,"corrections":[`...)
		for i, c := range o.Corrections {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"term":`...)
			b = appendJSONString(b, c.Term)
			b = append(b, `,"used":`...)
			b = appendJSONString(b, c.Used)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(o.Nearest) > 0 {
		b = append(b, `,"nearest":[`...)
		for i, n := range o.Nearest {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"term":`...)
			b = appendJSONString(b, n.Term)
			b = append(b, `,"nearest":`...)
			b = appendJSONString(b, n.Nearest)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(o.Unavailable) > 0 {
		b = append(b, `,"unavailable":`...)
		b = appendJSONStrings(b, o.Unavailable)
	}
	return append(b, '}'), nil
}

// appendJSON appends the hit as json.Marshal writes it.
func (h hitOut) appendJSON(b []byte) []byte {
	b = append(b, `{"level":`...)
	b = appendJSONString(b, h.Level)
	if h.Project != "" {
		b = append(b, `,"project":`...)
		b = appendJSONString(b, h.Project)
	}
	b = append(b, `,"id":`...)
	b = appendJSONString(b, h.ID)
	b = append(b, `,"tier":`...)
	b = appendJSONString(b, h.Tier)
	b = append(b, `,"gist":`...)
	b = appendJSONString(b, h.Gist)
	b = append(b, `,"notes":`...)
	b = appendJSONStringsOrNull(b, h.Notes)
	b = append(b, `,"score":`...)
	b = appendJSONFloat(b, h.Score)
	b = append(b, `,"matched":`...)
	b = appendJSONStringsOrNull(b, h.Matched)
	if len(h.Stale) > 0 {
		b = append(b, `,"stale":[`...)
		for i, m := range h.Stale {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"path":`...)
			b = appendJSONString(b, m.Path)
			b = append(b, `,"change":`...)
			b = appendJSONString(b, m.Change)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// renderSearch is the text of kg_search: which graph each hit names and
// what it shows is chosen here, the lines are render's.
func renderSearch(query string, res app.SearchResult) string {
	s := render.Search{Query: query, Hits: make([]render.SearchHit, len(res.Hits)), Unavailable: res.Unavailable}
	for i, h := range res.Hits {
		where := string(h.Level)
		if h.Project != "" {
			where = "project " + filepath.Base(h.Project)
		}
		s.Hits[i] = render.SearchHit{
			Where: where, ID: h.Node.ID, Mark: domain.StaleMark(h.Node.Stale), Tier: h.Node.Tier.String(),
			Gist: h.Node.Gist, Score: h.Score, Matched: h.Matched, Notes: h.Node.Notes,
		}
	}
	for _, c := range res.Corrections {
		s.Corrections = append(s.Corrections, render.Correction{Term: c.Term, Used: c.Used})
	}
	for _, n := range res.Nearest {
		s.Nearest = append(s.Nearest, render.Nearest{Term: n.Term, Nearest: n.Nearest})
	}
	return render.SearchText(s)
}

func searchOutputOf(query string, res app.SearchResult) searchOutput {
	out := searchOutput{Query: query, Hits: make([]hitOut, 0, len(res.Hits)), Unavailable: res.Unavailable}
	for _, h := range res.Hits {
		out.Hits = append(out.Hits, hitOut{
			Level: string(h.Level), Project: h.Project, ID: h.Node.ID, Tier: h.Node.Tier.String(),
			Gist: h.Node.Gist, Notes: nonNil(h.Node.Notes), Score: round4(h.Score), Matched: nonNil(h.Matched),
			Stale: staleOutput(h.Node),
		})
	}
	for _, c := range res.Corrections {
		out.Corrections = append(out.Corrections, correctionOut{Term: c.Term, Used: c.Used})
	}
	for _, s := range res.Nearest {
		out.Nearest = append(out.Nearest, nearestOut{Term: s.Term, Nearest: s.Nearest})
	}
	return out
}

func round4(x float64) float64 {
	const k = 10_000
	if x < 0 {
		return -float64(int64(-x*k+0.5)) / k
	}
	return float64(int64(x*k+0.5)) / k
}
