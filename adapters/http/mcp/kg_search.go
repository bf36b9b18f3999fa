package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
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

// renderSearch is the text of kg_search. The hits, most of the answer, are
// written without fmt: this is the hot path of a search
// (docs/performance.md#search-through-the-client).
func renderSearch(query string, res app.SearchResult) string {
	var b strings.Builder
	size := 128
	for _, h := range res.Hits {
		size += 64 + len(h.Node.ID) + len(h.Node.Gist)
		for _, m := range h.Matched {
			size += 1 + len(m)
		}
		for _, s := range h.Node.Notes {
			size += 7 + len(s)
		}
	}
	b.Grow(size)
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
	var num [32]byte
	for _, h := range res.Hits {
		// "  [where] id (tier, score 1.2345, matched a b): gist", then
		// "    - note" a line each.
		b.WriteString("  [")
		if h.Project != "" {
			b.WriteString("project ")
			b.WriteString(filepath.Base(h.Project))
		} else {
			b.WriteString(string(h.Level))
		}
		b.WriteString("] ")
		b.WriteString(h.Node.ID)
		b.WriteString(staleSuffix(h.Node))
		b.WriteString(" (")
		b.WriteString(h.Node.Tier.String())
		b.WriteString(", score ")
		b.Write(strconv.AppendFloat(num[:0], h.Score, 'f', 4, 64))
		for i, m := range h.Matched {
			if i == 0 {
				b.WriteString(", matched ")
			} else {
				b.WriteByte(' ')
			}
			b.WriteString(m)
		}
		b.WriteString("): ")
		b.WriteString(h.Node.Gist)
		b.WriteByte('\n')
		for _, s := range h.Node.Notes {
			b.WriteString("    - ")
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	for _, why := range res.Unavailable {
		fmt.Fprintf(&b, "Not searched: %s\n", why)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
