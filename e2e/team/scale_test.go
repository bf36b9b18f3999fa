package team

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// TestProjectListReadsNoGraph: GET /api/projects on a server that has
// loaded none of the projects lists each with its counts from the summary
// rows the commits keep, reading no graph from the database — what a team
// server with a thousand projects must do on every call of the web page
// (docs/design/team.md#scale).
func TestProjectListReadsNoGraph(t *testing.T) {
	url, ins := team(t, 1, options{})
	a := ins[0]
	const projects, nodes = 6, 4
	for p := range projects {
		for n := range nodes {
			body := map[string]any{"project_path": fmt.Sprintf("github.com/acme/p%d", p), "level": "project",
				"id": fmt.Sprintf("n%d", n), "gist": fmt.Sprintf("node %d of project %d", n, p)}
			if code, _ := a.putNode(body); code != 200 {
				t.Fatalf("put node: %d", code)
			}
		}
	}
	var loads atomic.Int64
	b := start(t, url, "b", options{loads: &loads})
	b.token = a.token
	loads.Store(0) // what opening read (the user graph) is not the listing's

	for round := range 2 {
		var out struct {
			Projects []struct {
				ProjectPath string `json:"project_path"`
				Active      int    `json:"active"`
			} `json:"projects"`
		}
		if code := b.call("GET", "/api/projects", nil, &out); code != 200 {
			t.Fatalf("GET /api/projects: %d", code)
		}
		if len(out.Projects) != projects {
			t.Fatalf("round %d: %d projects listed, want %d: %+v", round, len(out.Projects), projects, out.Projects)
		}
		for _, p := range out.Projects {
			if p.Active != nodes {
				t.Errorf("round %d: %s lists %d active nodes, want %d", round, p.ProjectPath, p.Active, nodes)
			}
		}
		if n := loads.Load(); n != 0 {
			t.Errorf("round %d: listing the projects read %d graphs from the database, want none", round, n)
		}
	}
}
