package migrations

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Backend is one storage backend seen through the ports: the graphs and the
// sessions of one root.
type Backend interface {
	ports.GraphRepository
	ports.SessionRepository
}

// Options tune a step. The zero value logs nothing and reports no
// progress.
type Options struct {
	// Log receives what the step notices; the same lines are in
	// Result.Notes.
	Log *slog.Logger
	// Progress, when set, is told after each graph, and after the
	// sessions, how many of the total the step has done, so that a long
	// run can show a bar.
	Progress func(done, total int)
}

func (o Options) log() *slog.Logger {
	if o.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Log
}

func (o Options) progress(done, total int) {
	if o.Progress != nil {
		o.Progress(done, total)
	}
}

// Result says what a step did, so that a second run can be shown to be a
// no-op and the command can print it.
type Result struct {
	// Changed names every graph (GraphKey.String()) and "sessions" that the
	// step wrote.
	Changed []string
	// Unchanged names what the step looked at and left as it was.
	Unchanged []string
	// Notes are what the step noticed and the user should know (duplicate
	// ids resolved, legacy entries skipped), one line each.
	Notes []string
	// NotCopied names what the source holds but could not be read
	// (damaged), with why, one line each: a salvage copies the rest.
	NotCopied []string
}

func (r *Result) notCopied(log *slog.Logger, what string, err error) {
	log.Warn("migrations: not copied: damaged in the source", "what", what, "err", err)
	r.NotCopied = append(r.NotCopied, what+": "+err.Error())
}

func (r *Result) changed(what string)   { r.Changed = append(r.Changed, what) }
func (r *Result) unchanged(what string) { r.Unchanged = append(r.Unchanged, what) }

func (r *Result) note(log *slog.Logger, what string, notes ...string) {
	for _, n := range notes {
		log.Warn("migrations: "+n, "graph", what)
		r.Notes = append(r.Notes, what+": "+n)
	}
}

// commit commits g's changes cs to b and, when b journals its commits
// (ports.GraphCheckpointer), folds the journal into the graph's file, so that
// an offline step leaves every file complete
// (docs/design/storage.md#checkpoint). A backend that keeps a change log
// records the step as one entry of the whole graph, what (docs/design/trust.md#history-and-undo),
// after carried: the entries a copy brings from its source.
func commit(ctx context.Context, b ports.GraphRepository, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet,
	what string, carried []domain.HistoryEntry) error {
	var err error
	if hr, ok := b.(ports.HistoryRepository); ok {
		entry := domain.HistoryEntry{Seq: g.Seq(), Time: nowMicros(), Op: domain.HistoryMigrate, Graph: true, Detail: what}
		err = hr.CommitLogged(ctx, key, g, cs, domain.HistoryBatch{SeqBefore: g.DurableSeq(), SeqAfter: g.Seq(),
			Entries: append(slices.Clip(carried), entry)})
	} else {
		err = b.Commit(ctx, key, g, cs)
	}
	if err != nil {
		return err
	}
	if cp, ok := b.(ports.GraphCheckpointer); ok {
		return cp.Checkpoint(ctx, key, g)
	}
	return nil
}

// nowMicros is the time a migration entry records. A migration runs as a
// command, outside the app and its clock.
func nowMicros() domain.Micros { return domain.Micros(time.Now().UnixMicro()) }

// saveSessions stores sessions in b, leaving every other stored session as
// it is (a team database holds other people's), and folds a sessions
// journal, as commit does for a graph.
func saveSessions(ctx context.Context, b ports.SessionRepository, sessions map[string]ports.Session) error {
	if err := b.UpdateSessions(ctx, ports.PutSessions(sessions)); err != nil {
		return err
	}
	if cp, ok := b.(ports.SessionCheckpointer); ok {
		return cp.CheckpointSessions(ctx)
	}
	return nil
}

// storedKeys returns the user graph and every listed project graph, then
// the projects named by sessions that List does not know (a graph of the
// replaced server may not record its project path), without duplicates.
func storedKeys(ctx context.Context, graphs ports.GraphRepository, sessions map[string]ports.Session) ([]domain.GraphKey, error) {
	list, err := graphs.List(ctx)
	if err != nil {
		return nil, err
	}
	keys := []domain.GraphKey{domain.UserGraph}
	seen := map[domain.GraphKey]bool{domain.UserGraph: true}
	for _, sg := range list {
		if !seen[sg.Key] {
			seen[sg.Key] = true
			keys = append(keys, sg.Key)
		}
	}
	var extra []domain.GraphKey
	for _, s := range sessions {
		k := domain.ProjectGraph(s.ProjectPath)
		if s.ProjectPath != "" && !seen[k] {
			seen[k] = true
			extra = append(extra, k)
		}
	}
	slices.SortFunc(extra, func(a, b domain.GraphKey) int { return strings.Compare(a.Project, b.Project) })
	return append(keys, extra...), nil
}

// sessionKeys returns the user graph and the projects sessions name, when
// the list of projects cannot be read.
func sessionKeys(sessions map[string]ports.Session) []domain.GraphKey {
	keys := []domain.GraphKey{domain.UserGraph}
	seen := map[string]bool{}
	for _, s := range sessions {
		if s.ProjectPath != "" && !seen[s.ProjectPath] {
			seen[s.ProjectPath] = true
			keys = append(keys, domain.ProjectGraph(s.ProjectPath))
		}
	}
	slices.SortFunc(keys[1:], func(a, b domain.GraphKey) int { return strings.Compare(a.Project, b.Project) })
	return keys
}

// minSeq is the highest watermark any session holds for key: a restored graph
// must not hand out a seq a session has already seen
// (docs/design/sync.md#numbering-at-load).
func minSeq(sessions map[string]ports.Session, key domain.GraphKey) uint64 {
	var m uint64
	for _, s := range sessions {
		m = max(m, s.Synced[key])
	}
	return m
}
