package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
)

// kgPutEdge creates or updates a relationship (docs/design/mcp.md#kg_put_edge).
var kgPutEdge = tool[putEdgeArgs]{
	name: "kg_put_edge",
	description: "Create or update a relationship from one node (or file, URL, artifact) to another. " +
		"Its ends need not exist yet. Edges keep connected knowledge active.",
	hints: hints{title: "Save an edge", destructive: true, idempotent: true},
	args: []mcpgo.ToolOption{
		sessionArg(true),
		levelArg(true, "The graph the edge belongs to."),
		mcpgo.WithString("from", mcpgo.Required(), mcpgo.Description("Node id or reference the edge starts at.")),
		mcpgo.WithString("to", mcpgo.Required(), mcpgo.Description("Node id or reference the edge points to.")),
		mcpgo.WithString("rel", mcpgo.Required(), mcpgo.Description("Relationship name, e.g. requires, touches, supersedes.")),
		notesArg("Notes on the relationship; omitted keeps the stored ones."),
	},
	run: putEdge,
}

type putEdgeArgs struct {
	SessionID requiredStr   `arg:"session_id"`
	Level     requiredLevel `arg:"level"`
	From      requiredStr   `arg:"from"`
	To        requiredStr   `arg:"to"`
	Rel       requiredStr   `arg:"rel"`
	Notes     strList       `arg:"notes"`
}

func putEdge(ctx context.Context, svc Service, a putEdgeArgs) (string, error) {
	res, err := svc.PutEdge(ctx, app.Scope{SessionID: string(a.SessionID), Level: domain.Level(a.Level)},
		domain.EdgeInput{From: string(a.From), To: string(a.To), Rel: string(a.Rel), Notes: a.Notes})
	if err != nil {
		return "", err
	}
	return renderPutEdge(res), nil
}

// renderPutEdge is "Edge a --rel--> b saved to user graph", plus a line for
// what compaction moved.
func renderPutEdge(r app.PutEdgeResult) string {
	return render.EdgeSaved(r.Edge.Key().String(), string(r.Level)) + redactedLine(r.Redacted) + movesLine(r.Compaction)
}
