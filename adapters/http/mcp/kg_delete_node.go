package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
)

// kgDeleteNode deletes a node and the edges of its graph that touch it
// (docs/design/mcp.md#kg_delete_node).
var kgDeleteNode = tool[deleteNodeArgs]{
	name: "kg_delete_node",
	description: "Delete a node and the edges of its graph that touch it. Without level the user " +
		"graph is tried first, then the project graph; a node in both needs level.",
	hints: hints{title: "Delete a node", destructive: true, idempotent: true},
	args: []mcpgo.ToolOption{
		sessionArg(true),
		mcpgo.WithString("id", mcpgo.Required(), mcpgo.Description("The node to delete.")),
		levelArg(false, "The graph to delete from."),
	},
	run: deleteNode,
}

type deleteNodeArgs struct {
	SessionID requiredStr `arg:"session_id"`
	ID        requiredStr `arg:"id"`
	Level     level       `arg:"level"`
}

func deleteNode(ctx context.Context, svc Service, a deleteNodeArgs) (string, error) {
	res, err := svc.DeleteNode(ctx, app.Scope{SessionID: string(a.SessionID), Level: domain.Level(a.Level)}, string(a.ID))
	if err != nil {
		return "", err
	}
	return renderDeleteNode(res), nil
}

// renderDeleteNode is `Node "x" deleted from user graph, with 2 edges`.
func renderDeleteNode(r app.DeleteNodeResult) string {
	return render.NodeDeleted(r.ID, string(r.Level), r.EdgesDeleted)
}
