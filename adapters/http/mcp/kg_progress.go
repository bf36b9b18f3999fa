package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
)

// kgProgress keeps a task's state across context resets
// (docs/design/mcp.md#kg_progress).
var kgProgress = tool[progressArgs]{
	name: "kg_progress",
	description: "Durable task state across context resets. With state, stores it whole (replacing " +
		"what was there); without, returns the stored state.",
	hints: hints{title: "Task progress", destructive: true, idempotent: true},
	args: []mcpgo.ToolOption{
		sessionArg(true),
		mcpgo.WithString("task_id", mcpgo.Required(), mcpgo.Description("Task id: letters, digits, '.', '_' and '-'.")),
		mcpgo.WithObject("state", mcpgo.Description("The task state, a JSON object of at most 64 KiB, nested at most 64 levels deep.")),
		mcpgo.WithString("level", mcpgo.Enum("user", "project"), mcpgo.DefaultString("user"), mcpgo.Description("The graph to keep the state in.")),
	},
	run: progress,
}

type progressArgs struct {
	SessionID requiredStr `arg:"session_id"`
	TaskID    requiredStr `arg:"task_id"`
	State     object      `arg:"state"`
	Level     level       `arg:"level"`
}

func progress(ctx context.Context, svc Service, a progressArgs) (string, error) {
	sc := app.Scope{SessionID: string(a.SessionID), Level: domain.Level(a.Level)}
	if sc.Level == "" {
		sc.Level = domain.LevelUser // docs/design/mcp.md#kg_progress: level defaults to user
	}
	task := string(a.TaskID)
	if a.State != nil {
		if err := svc.SaveProgress(ctx, sc, task, domain.RawJSON(a.State)); err != nil {
			return "", err
		}
		return render.ProgressSaved(task, string(sc.Level)), nil
	}
	state, found, err := svc.LoadProgress(ctx, sc, task)
	if err != nil {
		return "", err
	}
	return renderProgress(task, sc.Level, state, found), nil
}

// renderProgress is the text of kg_progress without a state: the stored
// state, indented, or `No progress found for task "t"`.
func renderProgress(task string, level domain.Level, state domain.RawJSON, found bool) string {
	if !found {
		return render.ProgressNotFound(task)
	}
	return render.ProgressState(task, string(level), state)
}
