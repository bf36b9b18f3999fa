package apijson

import (
	"github.com/kg-memory/kg/app"
)

// Project is one entry of GET /api/projects, and of `kg project list`.
type Project struct {
	Slug         string  `json:"slug"`
	ProjectPath  string  `json:"project_path"`
	Active       int     `json:"active"`
	Archived     int     `json:"archived"`
	Orphaned     int     `json:"orphaned"`
	Edges        int     `json:"edges"`
	LastChangeTS float64 `json:"last_change_ts,omitempty"`
	// The token estimate of the full read, its budget and the target a
	// run brings it down to; left out when unknown (a graph that could not
	// be read, or a listing made without the server).
	Tokens       int `json:"tokens,omitempty"`
	MaxTokens    int `json:"max_tokens,omitempty"`
	TargetTokens int `json:"target_tokens,omitempty"`
}

// ProjectOf returns the API shape of p.
func ProjectOf(p app.ProjectInfo) Project {
	return Project{Slug: p.Slug, ProjectPath: p.ProjectPath, Active: p.Stats.Active, Archived: p.Stats.Archived,
		Orphaned: p.Stats.Orphaned, Edges: p.Stats.Edges, LastChangeTS: Seconds(p.LastChange),
		Tokens: p.Estimate, MaxTokens: p.MaxTokens, TargetTokens: p.TargetTokens}
}

// ImportResult counts what an import did: the answer of POST /api/import,
// and what `kg import` prints.
type ImportResult struct {
	Level           string  `json:"level"`
	Project         *string `json:"project"`
	Mode            string  `json:"mode"`
	NodesWritten    int     `json:"nodes_written"`
	EdgesWritten    int     `json:"edges_written"`
	ProgressWritten int     `json:"progress_written"`
	NodesDeleted    int     `json:"nodes_deleted"`
	EdgesDeleted    int     `json:"edges_deleted"` // beyond those of the deleted nodes
	ProgressRemoved int     `json:"progress_removed"`
	Unchanged       int     `json:"unchanged"` // items of the document identical to what was stored
	Compaction      *Moves  `json:"compaction"`
}

// ImportResultOf returns the API shape of r.
func ImportResultOf(r app.ImportResult) ImportResult {
	out := ImportResult{
		Level: string(r.Level), Mode: string(r.Mode),
		NodesWritten: len(r.Nodes), EdgesWritten: len(r.Edges), ProgressWritten: len(r.Progress),
		NodesDeleted: len(r.DeletedNodes), EdgesDeleted: len(r.DeletedEdges), ProgressRemoved: len(r.ProgressRemoved),
		Unchanged: r.Unchanged, Compaction: MovesOrNil(r.Compaction),
	}
	if r.Project != "" {
		out.Project = &r.Project
	}
	return out
}
