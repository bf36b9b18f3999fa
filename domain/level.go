package domain

import "fmt"

// Level says which graph an item lives in.
type Level string

// The two levels.
const (
	// LevelUser is the single graph of cross-project knowledge.
	LevelUser Level = "user"
	// LevelProject is the graph of one codebase.
	LevelProject Level = "project"
)

// ParseLevel checks a level named by a client. field names the argument in
// the error message.
func ParseLevel(field, s string) (Level, error) {
	switch Level(s) {
	case LevelUser, LevelProject:
		return Level(s), nil
	}
	return "", Invalidf(field, "%q is not one of user, project", s)
}

// GraphKey names one graph: the user graph, or a project graph by its
// canonical absolute path.
type GraphKey struct {
	Level   Level
	Project string // canonical absolute path; empty for the user graph
}

// UserGraph is the key of the user graph.
var UserGraph = GraphKey{Level: LevelUser}

// ProjectGraph is the key of the graph of the project at path (already
// canonical, see docs/design/model.md#levels-and-graphs).
func ProjectGraph(path string) GraphKey { return GraphKey{Level: LevelProject, Project: path} }

// String renders the key the way sessions.json names watermarks:
// "user" or "project:<path>".
func (k GraphKey) String() string {
	if k.Level == LevelUser {
		return "user"
	}
	return fmt.Sprintf("project:%s", k.Project)
}
