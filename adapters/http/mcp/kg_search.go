package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
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
	return renderSearch(query, res), searchOutputOf(query, res), nil
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

// renderSearch is the text of kg_search.
func renderSearch(query string, res app.SearchResult) string {
	var b strings.Builder
	for _, c := range res.Corrections {
		fmt.Fprintf(&b, "No exact match for %q; showing %q\n", c.Term, c.Used)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintf(&b, "No nodes match %q\n", query)
		for _, s := range res.Nearest {
			fmt.Fprintf(&b, "Nearest spelling of %q in memory: %q\n", s.Term, s.Nearest)
		}
	} else {
		fmt.Fprintf(&b, "%s for %q (kg_read with id shows one in full and restores it):\n", plural(len(res.Hits), "node found", "nodes found"), query)
	}
	for _, h := range res.Hits {
		where := string(h.Level)
		if h.Project != "" {
			where = "project " + filepath.Base(h.Project)
		}
		fmt.Fprintf(&b, "  [%s] %s%s (%s, score %.4f", where, h.Node.ID, staleSuffix(h.Node), h.Node.Tier, h.Score)
		if len(h.Matched) > 0 {
			fmt.Fprintf(&b, ", matched %s", strings.Join(h.Matched, " "))
		}
		fmt.Fprintf(&b, "): %s\n", h.Node.Gist)
		for _, s := range h.Node.Notes {
			fmt.Fprintf(&b, "    - %s\n", s)
		}
	}
	for _, why := range res.Unavailable {
		fmt.Fprintf(&b, "Not searched: %s\n", why)
	}
	return strings.TrimSuffix(b.String(), "\n")
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
