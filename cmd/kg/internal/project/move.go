package project

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// mover is what a backend offers `kg project mv`.
type mover interface {
	MoveProject(ctx context.Context, from, to string) error
}

// MovePaths checks the OLD_PATH and NEW_PATH of kg project mv: two
// project paths, not one.
func MovePaths(oldArg, newArg string) (from, to string, err error) {
	if from, err = Path("OLD_PATH", oldArg); err != nil {
		return "", "", err
	}
	if to, err = Path("NEW_PATH", newArg); err != nil {
		return "", "", err
	}
	if from == to {
		return "", "", config.Usagef("OLD_PATH and NEW_PATH are both %s", from)
	}
	return from, to, nil
}

// MoveGraph moves the graph of from to to, in st of the backend named. already reports that it
// was moved before (perhaps by a run cut short before the sessions
// followed): then only the sessions are left to do.
func MoveGraph(ctx context.Context, st store.Storage, backend, from, to string) (already bool, err error) {
	mover, ok := st.Graphs.(mover)
	if !ok {
		return false, fmt.Errorf("the %s backend cannot move a project", backend)
	}
	err = mover.MoveProject(ctx, from, to)
	if domain.KindOf(err) != domain.KindNotFound {
		return false, err
	}
	if stored, lerr := st.Graphs.List(ctx); lerr == nil {
		for _, sg := range stored {
			if sg.Key.Project == to {
				already, err = true, nil
			}
		}
	}
	if err != nil {
		return false, fmt.Errorf("%w (`kg project list` shows the projects that have memory)", err)
	}
	return already, nil
}

// LogMove records a project move in the moved graph's change log as
// one entry of the whole graph (docs/design/trust.md#history-and-undo).
func LogMove(ctx context.Context, st store.Storage, from, to string) error {
	hr, ok := st.Graphs.(ports.HistoryRepository)
	if !ok {
		return nil
	}
	key := domain.ProjectGraph(to)
	d, err := st.Graphs.Load(ctx, key)
	if err != nil {
		return err
	}
	g, _ := domain.Restore(key, d, domain.RestoreOptions{})
	cs := domain.NewChangeSet()
	cs.Meta = true
	entry := domain.HistoryEntry{Seq: g.Seq(), Time: clock.System{}.Now(), Op: domain.HistoryProjectMv, Graph: true,
		Detail: "moved from " + from + " to " + to}
	if err := hr.CommitLogged(ctx, key, g, cs, domain.HistoryBatch{SeqBefore: g.DurableSeq(), SeqAfter: g.Seq(), Entries: []domain.HistoryEntry{entry}}); err != nil {
		return err
	}
	if cp, ok := st.Graphs.(ports.GraphCheckpointer); ok {
		return cp.Checkpoint(ctx, key, g)
	}
	return nil
}

// Path reads a project path argument as the server names projects:
// absolute, cleaned, symbolic links resolved when it exists.
func Path(name, arg string) (string, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", config.Usagef("invalid %s %q: %v", name, arg, err)
	}
	p, err := paths.OS{}.Canonical(abs)
	if err != nil {
		return "", config.Usagef("invalid %s %q: %v", name, arg, err)
	}
	return p, nil
}

// MoveSessions makes the sessions of project from sessions of project to,
// watermarks included, and returns how many it changed.
func MoveSessions(ctx context.Context, repo ports.SessionRepository, from, to string) (int, error) {
	sessions, err := repo.LoadSessions(ctx)
	if err != nil {
		return 0, err
	}
	oldKey, newKey := domain.ProjectGraph(from), domain.ProjectGraph(to)
	moved := map[string]ports.Session{}
	for id, s := range sessions {
		changed := false
		if s.ProjectPath == from {
			s.ProjectPath, changed = to, true
		}
		if seq, ok := s.Synced[oldKey]; ok {
			s.Synced = maps.Clone(s.Synced)
			delete(s.Synced, oldKey)
			s.Synced[newKey], changed = seq, true
		}
		if changed {
			moved[id] = s
		}
	}
	if len(moved) == 0 {
		return 0, nil
	}
	return len(moved), repo.UpdateSessions(ctx, ports.PutSessions(moved))
}
