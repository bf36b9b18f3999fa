package mcp

import (
	"context"
	"path/filepath"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
	"github.com/kg-memory/kg/domain/stale"
)

// kgSearch finds nodes of every tier below the surface, with no side effects
// (docs/design/mcp.md#kg_search).
var kgSearch = tool[searchArgs]{
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

func search(ctx context.Context, svc Service, a searchArgs) (string, error) {
	if a.Limit.given && (a.Limit.value < 1 || a.Limit.value > domain.MaxSearchLimit) {
		return "", domain.Invalidf("limit", "%d is not between 1 and %d", a.Limit.value, domain.MaxSearchLimit)
	}
	query := string(a.Query)
	res, err := svc.Search(ctx, app.SearchRequest{Query: query, SessionID: string(a.SessionID),
		Level: domain.Level(a.Level), Limit: int(a.Limit.value)})
	if err != nil {
		return "", err
	}
	return staleLine(res.Stale) + renderSearch(query, res), nil
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
			Where: where, ID: h.Node.ID, Mark: stale.Mark(h.Node.Stale), Tier: h.Node.Tier.String(),
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
