// Package project is a project's memory as kg's commands see it: which
// projects have memory, and the refusal of a mistyped one naming the
// nearest of them; and moving a project's memory to a new path (kg project
// mv).
package project

// A command that reads a project's graph (kg export, kg compact) is given
// the project as a path, which is easy to mistype; an unknown one would read
// as an empty graph and exit 0. It is refused instead, naming the known
// projects nearest to what was typed.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
	"github.com/kg-memory/kg/domain"
)

// nearestShown is how many known projects an unknown one's refusal names.
const nearestShown = 3

// RequireKnown returns nil for the user graph and for a project in
// known (the paths of the projects that have memory), else an error naming
// the nearest of them.
func RequireKnown(key domain.GraphKey, root string, known []string) error {
	if key.Level != domain.LevelProject || slices.Contains(known, key.Project) {
		return nil
	}
	msg := fmt.Sprintf("no project at %s has memory in %s", key.Project, root)
	if near := nearestPaths(key.Project, known, nearestShown); len(near) > 0 {
		msg += "; the nearest that do: " + strings.Join(near, ", ") + " (kg project list lists them all)"
	} else {
		msg += "; no project has memory there yet"
	}
	return &domain.Error{Kind: domain.KindNotFound, Field: "project", Msg: msg}
}

// OfServer is the paths of the projects the server at srv knows.
func OfServer(ctx context.Context, srv *apiclient.Client) ([]string, error) {
	var out struct {
		Projects []apijson.Project `json:"projects"`
	}
	if err := srv.Call(ctx, "GET", "/api/projects", nil, nil, &out); err != nil {
		return nil, err
	}
	paths := make([]string, len(out.Projects))
	for i, p := range out.Projects {
		paths[i] = p.ProjectPath
	}
	return paths, nil
}

// RequireStored is RequireKnown on the files: the projects
// st has stored are the known ones.
func RequireStored(ctx context.Context, st store.Storage, key domain.GraphKey, root string) error {
	if key.Level != domain.LevelProject {
		return nil
	}
	known, err := Stored(ctx, st)
	if err != nil {
		return err
	}
	return RequireKnown(key, root, known)
}

// Stored is the paths of the projects st has stored.
func Stored(ctx context.Context, st store.Storage) ([]string, error) {
	stored, err := st.Graphs.List(ctx)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(stored))
	for i, sg := range stored {
		paths[i] = sg.Key.Project
	}
	return paths, nil
}

// nearestPaths returns up to n of known, nearest to p first (by edit
// distance, then by path).
func nearestPaths(p string, known []string, n int) []string {
	type scored struct {
		path string
		d    int
	}
	all := make([]scored, len(known))
	for i, k := range known {
		all[i] = scored{k, editDistance(p, k)}
	}
	slices.SortFunc(all, func(a, b scored) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.path, b.path)) })
	var out []string
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.path)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
