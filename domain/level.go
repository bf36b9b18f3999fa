package domain

import (
	"fmt"
	"strings"
)

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

// PrivateProjectPrefix starts the key of a private project in team mode,
// "private/<principal><path>": a folder with no project key of its own,
// which only its principal may name (docs/design/team.md#project-keys).
const PrivateProjectPrefix = "private/"

// PrivateOwner returns the principal whose private project the project
// key names, and whether it names one: the part between "private/" and the
// next "/" (a principal's name holds no "/").
func PrivateOwner(project string) (string, bool) {
	rest, ok := strings.CutPrefix(project, PrivateProjectPrefix)
	if !ok {
		return "", false
	}
	owner, _, _ := strings.Cut(rest, "/")
	return owner, true
}

// NamableBy reports whether principal may name graph k at all (team mode,
// docs/design/team.md#people-and-tokens): their own user graph, a shared
// project, or a private project of their own. On a server of one person
// the principal is "" and so is every user graph's owner, and no project
// path starts with "private/" (it is absolute), so every graph is.
func (k GraphKey) NamableBy(principal string) bool {
	if k.Level == LevelUser {
		return k.Owner == principal
	}
	owner, private := PrivateOwner(k.Project)
	return !private || owner == principal
}

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
