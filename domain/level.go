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
// canonical absolute path (in team mode, by its project key).
type GraphKey struct {
	Level   Level
	Project string // canonical absolute path; empty for the user graph
	// Owner is the principal a user graph belongs to in team mode
	// (docs/design/team.md#people-and-tokens); empty for the one user
	// graph of a server of one person, and for project graphs.
	Owner string
}

// UserGraph is the key of the user graph.
var UserGraph = GraphKey{Level: LevelUser}

// UserGraphOf is the key of the user graph of principal owner ("": the
// user graph of a server of one person).
func UserGraphOf(owner string) GraphKey { return GraphKey{Level: LevelUser, Owner: owner} }

// ProjectGraph is the key of the graph of the project at path (already
// canonical, see docs/design/model.md#levels-and-graphs).
func ProjectGraph(path string) GraphKey { return GraphKey{Level: LevelProject, Project: path} }

// String renders the key the way sessions.json names watermarks:
// "user" or "project:<path>".
func (k GraphKey) String() string {
	if k.Level == LevelUser {
		if k.Owner != "" {
			return "user:" + k.Owner
		}
		return "user"
	}
	return fmt.Sprintf("project:%s", k.Project)
}
