package mcp

import (
	"bytes"
	"context"
	"encoding/json"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
)

// kgProgress keeps a task's state across context resets
// (docs/design/mcp.md#kg_progress).
var kgProgress = tool[progressArgs, progressOutput]{
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

func progress(ctx context.Context, svc Service, a progressArgs) (string, progressOutput, error) {
	sc := app.Scope{SessionID: string(a.SessionID), Level: domain.Level(a.Level)}
	if sc.Level == "" {
		sc.Level = domain.LevelUser // docs/design/mcp.md#kg_progress: level defaults to user
	}
	task := string(a.TaskID)
	save := a.State != nil
	out := progressOutput{TaskID: task, Level: string(sc.Level), Saved: save}
	if save {
		state := domain.RawJSON(a.State)
		if err := svc.SaveProgress(ctx, sc, task, state); err != nil {
			return "", progressOutput{}, err
		}
		out.Found, out.State = true, stateObject(state)
		return render.ProgressSaved(task, string(sc.Level)), out, nil
	}
	state, found, err := svc.LoadProgress(ctx, sc, task)
	if err != nil {
		return "", progressOutput{}, err
	}
	out.Found = found
	if found {
		out.State = stateObject(state)
	}
	return renderProgress(task, sc.Level, state, found), out, nil
}

// progressOutput is the structured result of kg_progress.
type progressOutput struct {
	TaskID string         `json:"task_id"`
	Level  string         `json:"level"`
	Saved  bool           `json:"saved" jsonschema:"true when this call stored a state"`
	Found  bool           `json:"found" jsonschema:"true when a stored state was found or saved"`
	State  map[string]any `json:"state,omitempty" jsonschema:"the task state"`
}

// renderProgress is the text of kg_progress without a state: the stored
// state, indented, or `No progress found for task "t"`.
func renderProgress(task string, level domain.Level, state domain.RawJSON, found bool) string {
	if !found {
		return render.ProgressNotFound(task)
	}
	return render.ProgressState(task, string(level), state)
}

// stateObject decodes a stored progress state for structuredContent,
// keeping numbers exact.
func stateObject(state domain.RawJSON) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(state))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil
	}
	return m
}
