package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
)

// kgDeleteEdge deletes one edge; a missing edge is reported, not an error
// (docs/design/mcp.md#kg_delete_edge).
var kgDeleteEdge = tool[deleteEdgeArgs]{
	name:        "kg_delete_edge",
	description: "Delete the edge from --rel--> to. A missing edge is reported, not an error.",
	hints:       hints{title: "Delete an edge", destructive: true, idempotent: true},
	args: []mcpgo.ToolOption{
		sessionArg(true),
		mcpgo.WithString("from", mcpgo.Required(), mcpgo.Description("Node id or reference the edge starts at.")),
		mcpgo.WithString("to", mcpgo.Required(), mcpgo.Description("Node id or reference the edge points to.")),
		mcpgo.WithString("rel", mcpgo.Required(), mcpgo.Description("The edge's relationship name.")),
		levelArg(false, "The graph to delete from; without it the user graph is tried first, then the project graph."),
	},
	run: deleteEdge,
}

type deleteEdgeArgs struct {
	SessionID requiredStr `arg:"session_id"`
	From      requiredStr `arg:"from"`
	To        requiredStr `arg:"to"`
	Rel       requiredStr `arg:"rel"`
	Level     level       `arg:"level"`
}

func deleteEdge(ctx context.Context, svc Service, a deleteEdgeArgs) (string, error) {
	k := domain.EdgeKey{From: string(a.From), To: string(a.To), Rel: string(a.Rel)}
	res, err := svc.DeleteEdge(ctx, app.Scope{SessionID: string(a.SessionID), Level: domain.Level(a.Level)}, k)
	if err != nil {
		return "", err
	}
	if res.Key == (domain.EdgeKey{}) {
		res.Key = k
	}
	return renderDeleteEdge(res), nil
}

// renderDeleteEdge is the text of kg_delete_edge; a missing edge is "Edge
// not found: a --rel--> b", which is not an error.
func renderDeleteEdge(r app.DeleteEdgeResult) string {
	if !r.Deleted {
		return render.EdgeNotFound(r.Key.String())
	}
	return render.EdgeDeleted(r.Key.String(), string(r.Level))
}
