// Package filecheck reads the project files a graph's nodes name
// (docs/design/trust.md#staleness): at a write, the files it names, hashed
// to stamp them (Stamper, stamp.go); then the files the nodes recorded,
// judged changed or vanished, the reading behind the maintenance tick's
// staleness round and behind `kg doctor --stale`. It reads through
// ports.FileHasher and changes a graph only as a write's caller asks
// (docs/decisions/0099-app-leaf-packages.md,
// docs/decisions/0107-history-room.md).
package filecheck

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/stale"
	"github.com/kg-memory/kg/ports"
)

// StaleNode is a node whose recorded files changed or vanished.
type StaleNode struct {
	ID    string
	Files []domain.StaleFile
}

// Check is one recorded file to read: its path, the hash recorded
// (with its scheme) and the nodes that recorded it so.
type Check struct {
	Path, Hash string
	Nodes      []string
}

// Stamped lists g's recorded files, one check per (path, hash),
// sorted by path then hash.
func Stamped(g *domain.Graph) []Check {
	byKey := map[[2]string]int{}
	var out []Check
	stale.StampedFiles(g, func(id string, stamps []domain.FileStamp) bool {
		for _, st := range stamps {
			k := [2]string{st.Path, st.Hash}
			i, ok := byKey[k]
			if !ok {
				i = len(out)
				byKey[k] = i
				out = append(out, Check{Path: st.Path, Hash: st.Hash})
			}
			out[i].Nodes = append(out[i].Nodes, id)
		}
		return true
	})
	slices.SortFunc(out, func(a, b Check) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Hash, b.Hash))
	})
	return out
}

// Judged is what reading one recorded file found.
type Judged struct {
	Check  Check
	Change domain.FileChange // "" when fresh or unverifiable
}

// Read reads the files of checks under root, each in the scheme it
// was recorded in. An error means root cannot be read.
func Read(ctx context.Context, h ports.FileHasher, root string, checks []Check) ([]Judged, error) {
	qs := make([]ports.FileQuery, len(checks))
	for i, c := range checks {
		qs[i] = ports.FileQuery{Path: c.Path, Scheme: domain.FileStamp{Hash: c.Hash}.Scheme()}
	}
	hs, err := h.HashFiles(ctx, root, qs)
	if err != nil {
		return nil, err
	}
	out := make([]Judged, len(checks))
	for i, c := range checks {
		out[i].Check = c
		out[i].Change, _ = stale.JudgeFile(domain.FileStamp{Path: c.Path, Hash: c.Hash}, hs[i])
	}
	return out, nil
}

// Stale reads every file recorded in g under root and returns the
// nodes whose files changed or vanished, by id: what `kg doctor --stale`
// reports. It changes nothing. An error means root cannot be read (every
// file is then unverifiable).
func Stale(ctx context.Context, h ports.FileHasher, root string, g *domain.Graph) ([]StaleNode, error) {
	checks := Stamped(g)
	if len(checks) == 0 {
		return nil, nil
	}
	js, err := Read(ctx, h, root, checks)
	if err != nil {
		return nil, err
	}
	byNode := map[string][]domain.StaleFile{}
	for _, j := range js {
		if j.Change == "" {
			continue
		}
		for _, id := range j.Check.Nodes {
			byNode[id] = append(byNode[id], domain.StaleFile{Path: j.Check.Path, Change: j.Change, Recorded: j.Check.Hash})
		}
	}
	out := make([]StaleNode, 0, len(byNode))
	for id, fs := range byNode {
		out = append(out, StaleNode{ID: id, Files: fs})
	}
	slices.SortFunc(out, func(a, b StaleNode) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}
