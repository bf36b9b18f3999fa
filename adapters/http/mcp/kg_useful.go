package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
)

// kgUseful marks nodes that changed the session's outcome
// (docs/design/hooks.md#kg_useful).
var kgUseful = tool[usefulArgs]{
	name: "kg_useful",
	description: "Mark 1 to 5 nodes as useful: memory that changed what you did in this session. Each node " +
		"counts once per session, at most 20 per session; marks help compaction keep what sessions need. " +
		"Unknown ids are an error and then nothing is marked.",
	hints: hints{title: "Mark memory useful", idempotent: true},
	args: []mcpgo.ToolOption{
		sessionArg(true),
		mcpgo.WithArray("ids", mcpgo.Required(), mcpgo.WithStringItems(), mcpgo.MinItems(1), mcpgo.MaxItems(app.MaxUsefulIDs),
			mcpgo.Description("The ids of the nodes that were useful, 1 to 5.")),
	},
	run: useful,
}

type usefulArgs struct {
	SessionID requiredStr  `arg:"session_id"`
	IDs       requiredList `arg:"ids"`
}

func useful(ctx context.Context, svc Service, a usefulArgs) (string, error) {
	res, err := svc.MarkUseful(ctx, string(a.SessionID), a.IDs)
	if err != nil {
		return "", err
	}
	return res.Summary(), nil
}
