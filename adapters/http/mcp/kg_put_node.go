package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
)

// kgPutNode creates or updates a node (docs/design/mcp.md#kg_put_node).
var kgPutNode = tool[putNodeArgs]{
	name: "kg_put_node",
	description: "Create or update a node: one distilled insight. Store the why, not the what. " +
		"gist is the one-line headline shown in every full read; notes hold rationale and constraints, " +
		"touches the files it is about. Omitted notes or touches are kept; an empty list clears them.",
	hints: hints{title: "Save a node", destructive: true, idempotent: true},
	args: []mcpgo.ToolOption{
		sessionArg(true),
		levelArg(true, "user for cross-project knowledge, project for this codebase."),
		mcpgo.WithString("id", mcpgo.Required(), mcpgo.Description("Node id, kebab-case: letters, digits, '.', '_' and '-'.")),
		mcpgo.WithString("gist", mcpgo.Required(), mcpgo.Description("One line, at most 1000 characters.")),
		notesArg("Rationale, constraints, the why; shown when the node is read by id."),
		mcpgo.WithArray("touches", mcpgo.WithStringItems(), mcpgo.Description("File paths or artifacts the node is about.")),
		mcpgo.WithInteger("expected_version", mcpgo.Min(0), mcpgo.Description("Write only if the node is at this version (0: only if it does not exist).")),
	},
	run: putNode,
}

type putNodeArgs struct {
	SessionID       requiredStr   `arg:"session_id"`
	Level           requiredLevel `arg:"level"`
	ID              requiredStr   `arg:"id"`
	Gist            requiredStr   `arg:"gist"`
	Notes           strList       `arg:"notes"`
	Touches         strList       `arg:"touches"`
	ExpectedVersion integer       `arg:"expected_version"`
}

func putNode(ctx context.Context, svc Service, a putNodeArgs) (string, error) {
	in := domain.NodeInput{ID: string(a.ID), Gist: string(a.Gist), Notes: a.Notes, Touches: a.Touches}
	if ev := a.ExpectedVersion; ev.given {
		if ev.value < 0 {
			return "", domain.Invalidf("expected_version", "%d is negative; versions start at 0 (the node does not exist)", ev.value)
		}
		v := uint64(ev.value)
		in.ExpectedVersion = &v
	}
	res, err := svc.PutNode(ctx, app.Scope{SessionID: string(a.SessionID), Level: domain.Level(a.Level)}, in)
	if err != nil {
		return "", err
	}
	return renderPutNode(res), nil
}

// renderPutNode is "Node "x" saved to project graph (v3)", plus a line for
// what compaction moved.
func renderPutNode(r app.PutNodeResult) string {
	return render.NodeSaved(r.Node.ID, string(r.Level), r.Node.Version.V) + redactedLine(r.Redacted) +
		duplicatesLine(r.PossibleDuplicates) + movesLine(r.Compaction)
}
