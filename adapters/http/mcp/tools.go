package mcp

// The declarations of the eight tools: names, argument names and
// descriptions, output schemas and annotations. Names and argument names
// are those of the server kg replaces (mcp.md); the snapshot test compares
// every declaration with testdata/tools/<name>.json.

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// declarations returns the tools in the order tools/list shows them.
func declarations() []mcpgo.Tool {
	return []mcpgo.Tool{
		readTool(), searchTool(), putNodeTool(), putEdgeTool(),
		deleteNodeTool(), deleteEdgeTool(), syncTool(), progressTool(),
	}
}

// hints builds the annotations; every kg tool works on the local graph only,
// so none is open-world.
func hints(title string, readOnly, destructive, idempotent bool) mcpgo.ToolOption {
	return mcpgo.WithToolAnnotation(mcpgo.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    mcpgo.ToBoolPtr(readOnly),
		DestructiveHint: mcpgo.ToBoolPtr(destructive),
		IdempotentHint:  mcpgo.ToBoolPtr(idempotent),
		OpenWorldHint:   mcpgo.ToBoolPtr(false),
	})
}

// Argument declarations shared by several tools.
func sessionArg(required bool) mcpgo.ToolOption {
	opts := []mcpgo.PropertyOption{mcpgo.Description("The session id returned by kg_read.")}
	if required {
		opts = append(opts, mcpgo.Required())
	}
	return mcpgo.WithString("session_id", opts...)
}

func levelArg(required bool, what string) mcpgo.ToolOption {
	opts := []mcpgo.PropertyOption{mcpgo.Enum("user", "project"), mcpgo.Description(what)}
	if required {
		opts = append(opts, mcpgo.Required())
	}
	return mcpgo.WithString("level", opts...)
}

func notesArg(what string) mcpgo.ToolOption {
	return mcpgo.WithArray("notes", mcpgo.WithStringItems(), mcpgo.Description(what))
}

func readTool() mcpgo.Tool {
	return mcpgo.NewTool("kg_read",
		mcpgo.WithDescription("Start or continue a session and read your memory. Call it first in every "+
			"conversation with cwd (the absolute project root) to get a session_id and the full read: the user "+
			"graph (cross-project knowledge) and this project's graph, as active nodes with their gists, archived "+
			"ids, edges and a health line. With id or ids, returns those nodes in full (notes, touches, edges in "+
			"and out) and restores an archived or orphaned node to active."),
		mcpgo.WithString("cwd", mcpgo.Description("Absolute path of the project root; starts a session bound to that project when no session_id is given.")),
		sessionArg(false),
		mcpgo.WithString("id", mcpgo.Description("Read this node in full instead of the full read.")),
		mcpgo.WithArray("ids", mcpgo.WithStringItems(), mcpgo.Description("Read these nodes in full.")),
		levelArg(false, "Look the id up only in this graph; without it both graphs are searched."),
		mcpgo.WithOutputSchema[readOutput](),
		hints("Read memory", false, false, false),
	)
}

func searchTool() mcpgo.Tool {
	return mcpgo.NewTool("kg_search",
		mcpgo.WithDescription("Search every node, archived and orphaned ones included, by words in its id, gist, "+
			"notes and touches. Use it to find knowledge the full read no longer shows. Has no side effects."),
		mcpgo.WithString("query", mcpgo.Required(), mcpgo.Description("Words to look for, separated by spaces.")),
		sessionArg(false),
		levelArg(false, "Search only this graph."),
		mcpgo.WithInteger("limit", mcpgo.Min(1), mcpgo.Max(100), mcpgo.Description("Most results to return (default 20, at most 100).")),
		mcpgo.WithOutputSchema[searchOutput](),
		hints("Search memory", true, false, true),
	)
}

func putNodeTool() mcpgo.Tool {
	return mcpgo.NewTool("kg_put_node",
		mcpgo.WithDescription("Create or update a node: one distilled insight. Store the why, not the what. "+
			"gist is the one-line headline shown in every full read; notes hold rationale and constraints, "+
			"touches the files it is about. Omitted notes or touches are kept; an empty list clears them."),
		sessionArg(true),
		levelArg(true, "user for cross-project knowledge, project for this codebase."),
		mcpgo.WithString("id", mcpgo.Required(), mcpgo.Description("Node id, kebab-case: letters, digits, '.', '_' and '-'.")),
		mcpgo.WithString("gist", mcpgo.Required(), mcpgo.Description("One line, at most 1000 characters.")),
		notesArg("Rationale, constraints, the why; shown when the node is read by id."),
		mcpgo.WithArray("touches", mcpgo.WithStringItems(), mcpgo.Description("File paths or artifacts the node is about.")),
		mcpgo.WithInteger("expected_version", mcpgo.Min(0), mcpgo.Description("Write only if the node is at this version (0: only if it does not exist).")),
		mcpgo.WithOutputSchema[putNodeOutput](),
		hints("Save a node", false, true, true),
	)
}

func putEdgeTool() mcpgo.Tool {
	return mcpgo.NewTool("kg_put_edge",
		mcpgo.WithDescription("Create or update a relationship from one node (or file, URL, artifact) to another. "+
			"Its ends need not exist yet. Edges keep connected knowledge active."),
		sessionArg(true),
		levelArg(true, "The graph the edge belongs to."),
		mcpgo.WithString("from", mcpgo.Required(), mcpgo.Description("Node id or reference the edge starts at.")),
		mcpgo.WithString("to", mcpgo.Required(), mcpgo.Description("Node id or reference the edge points to.")),
		mcpgo.WithString("rel", mcpgo.Required(), mcpgo.Description("Relationship name, e.g. requires, touches, supersedes.")),
		notesArg("Notes on the relationship; omitted keeps the stored ones."),
		mcpgo.WithOutputSchema[putEdgeOutput](),
		hints("Save an edge", false, true, true),
	)
}

func deleteNodeTool() mcpgo.Tool {
	return mcpgo.NewTool("kg_delete_node",
		mcpgo.WithDescription("Delete a node and the edges of its graph that touch it. Without level the user "+
			"graph is tried first, then the project graph; a node in both needs level."),
		sessionArg(true),
		mcpgo.WithString("id", mcpgo.Required(), mcpgo.Description("The node to delete.")),
		levelArg(false, "The graph to delete from."),
		mcpgo.WithOutputSchema[deleteNodeOutput](),
		hints("Delete a node", false, true, true),
	)
}

func deleteEdgeTool() mcpgo.Tool {
	return mcpgo.NewTool("kg_delete_edge",
		mcpgo.WithDescription("Delete the edge from --rel--> to. A missing edge is reported, not an error."),
		sessionArg(true),
		mcpgo.WithString("from", mcpgo.Required(), mcpgo.Description("Node id or reference the edge starts at.")),
		mcpgo.WithString("to", mcpgo.Required(), mcpgo.Description("Node id or reference the edge points to.")),
		mcpgo.WithString("rel", mcpgo.Required(), mcpgo.Description("The edge's relationship name.")),
		levelArg(false, "The graph to delete from; without it the user graph is tried first, then the project graph."),
		mcpgo.WithOutputSchema[deleteEdgeOutput](),
		hints("Delete an edge", false, true, true),
	)
}

func syncTool() mcpgo.Tool {
	return mcpgo.NewTool("kg_sync",
		mcpgo.WithDescription("What other sessions changed in your memory since your last kg_sync (or since your "+
			"session started): updated and deleted nodes and edges of the user graph and this project's graph."),
		sessionArg(true),
		mcpgo.WithOutputSchema[syncOutput](),
		hints("Sync with other sessions", false, false, false),
	)
}

func progressTool() mcpgo.Tool {
	return mcpgo.NewTool("kg_progress",
		mcpgo.WithDescription("Durable task state across context resets. With state, stores it whole (replacing "+
			"what was there); without, returns the stored state."),
		sessionArg(true),
		mcpgo.WithString("task_id", mcpgo.Required(), mcpgo.Description("Task id: letters, digits, '.', '_' and '-'.")),
		mcpgo.WithObject("state", mcpgo.Description("The task state, a JSON object of at most 64 KiB.")),
		mcpgo.WithString("level", mcpgo.Enum("user", "project"), mcpgo.DefaultString("user"), mcpgo.Description("The graph to keep the state in.")),
		mcpgo.WithOutputSchema[progressOutput](),
		hints("Task progress", false, true, true),
	)
}
