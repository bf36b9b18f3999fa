package app

import (
	"context"
	"log/slog"

	"github.com/kg-memory/kg/app/capture"
	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/app/sessiontable"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/recall"
	"github.com/kg-memory/kg/ports"
)

// HookSupport is what the hook routes (package app/hooks) need of the
// service beyond its use cases: the session table's hook state, the graphs
// read-locked as a hook builds its answer, each graph's kept preload order,
// and the few helpers a request's resolution shares with the tools. It is
// the one seam between app and app/hooks
// (docs/decisions/0103-hooks-room.md): the hooks call it and the public
// Service, nothing else of app, so that app's internals can move without
// the hooks knowing. It works on the service's store and sessions, and is
// safe for concurrent use.
type HookSupport struct {
	svc *Service
}

// NewHookSupport returns the hook support of svc. Building it is free (one
// pointer).
func NewHookSupport(svc *Service) *HookSupport { return &HookSupport{svc: svc} }

// Now is the service's clock.
func (hs *HookSupport) Now() domain.Micros { return hs.svc.clock.Now() }

// Log is the service's logger.
func (hs *HookSupport) Log() *slog.Logger { return hs.svc.log }

// Policy is the compaction policy: the preload ranks and the maintenance
// debt weighs by it.
func (hs *HookSupport) Policy() compaction.Policy { return hs.svc.cfg.Policy }

// PreloadChars is the budget of a session start's whole text
// (Config.PreloadChars).
func (hs *HookSupport) PreloadChars() int { return hs.svc.cfg.PreloadChars }

// TeamMode reports whether graphs and sessions are shared with other
// servers (docs/design/team.md): a project may then be named by its key.
func (hs *HookSupport) TeamMode() bool { return hs.svc.store.Shared != nil }

// Owner is the principal whose user graph and sessions a request reaches
// (team mode); "" on a server of one person.
func (hs *HookSupport) Owner(ctx context.Context) string { return hs.svc.scope.owner(ctx) }

// ProjectOf resolves a project path, or in team mode the key the client
// resolved, as every use case does; an error names field.
func (hs *HookSupport) ProjectOf(ctx context.Context, field, path, key string) (string, error) {
	return hs.svc.scope.projectOf(ctx, field, path, key)
}

// RootOf is the folder project was named by in team mode, the root the
// repository-relative paths of path are taken from; "" on a server of one
// person.
func (hs *HookSupport) RootOf(project, path string) string { return hs.svc.scope.rootOf(project, path) }

// Canonical resolves path as the service's path resolver does.
func (hs *HookSupport) Canonical(path string) (string, error) {
	return hs.svc.scope.paths.Canonical(path)
}

// NewSession starts a session of project, bound to the Claude session
// claude when it is not empty (docs/design/hooks.md#session-binding); root
// as RootOf.
func (hs *HookSupport) NewSession(ctx context.Context, project, root, claude string) (ports.Session, error) {
	return hs.svc.newSession(ctx, project, root, claude)
}

// CountOp counts an operation of session once the hook that named it has
// succeeded: call it deferred, with the hook's named error.
func (hs *HookSupport) CountOp(session string, err *error) { hs.svc.countOp(session, err) }

// Hooks across servers (docs/design/team.md#hooks-across-servers): the hook
// calls of one conversation may each land on a different server. Before a
// hook route looks for the conversation's session, the server asks the
// database for it (bound to the Claude session id, else the person's most
// recent session of the project) and merges what is stored into its own
// copy — the binding, the seen set, whether memory was read, the nudge
// counts — and a hook that changed the session stores it at once
// (sessiontable.Table.HookStore), so the next hook, wherever it runs, knows what this one
// showed. With the json and bolt backends none of this runs.

// SyncConversation brings in, in team mode, the stored session the hook of
// conversation claude (or, without one bound, of project) belongs to
// (docs/design/team.md#hooks-across-servers). A database that cannot be
// reached leaves the server with what it holds, logged.
func (hs *HookSupport) SyncConversation(ctx context.Context, claude, project string) {
	t := hs.svc.sessions
	if t.Shared() == nil || claude == "" && project == "" {
		return
	}
	stored, found, err := t.Shared().FindSession(ctx, principalName(ctx), claude, project)
	if err != nil {
		hs.svc.log.Warn("hook: could not look up the conversation's session in the database; serving what this server holds", "err", err)
		return
	}
	if found {
		t.Adopt(stored)
	}
}

// Sessions is the session table: the hooks find, revive and bind a
// session there, and read and change its hook state (State, its seen set)
// under the table's lock; HookStore stores a session at once in team mode
// after a hook changed it.
func (hs *HookSupport) Sessions() *sessiontable.Table { return hs.svc.sessions }

// Lookup returns the live session id, first brought in from the database
// when another server stored it (team mode; a failure to reach it is
// logged, and the lookup says what this server holds).
func (hs *HookSupport) Lookup(ctx context.Context, id string, now domain.Micros) (ports.Session, error) {
	if err := hs.svc.sessions.Ensure(ctx, id); err != nil {
		hs.svc.log.Warn("a session the transcript names could not be looked up in the database", "session", id, "err", err)
	}
	return hs.svc.sessions.Lookup(id, now)
}

// Transcripts reads Claude Code transcripts; nil when none is read.
func (hs *HookSupport) Transcripts() ports.Transcripts { return hs.svc.transcripts }

// Capture is the state the stop hook's rule reads: what each conversation
// did, which sessions wrote (docs/design/hooks.md#capture-before-forgetting).
func (hs *HookSupport) Capture() *capture.Book { return hs.svc.capture }

// CaptureMode is KG_CAPTURE: whether a stop may ask at all.
func (hs *HookSupport) CaptureMode() capture.Mode { return hs.svc.cfg.Capture }

// ToolEvents are the tool-event counts per project, saved with the
// maintenance tick.
func (hs *HookSupport) ToolEvents() *hookstate.ToolEvents { return hs.svc.tools }

// LockedGraphs are the user graph and a project graph, read-locked in the
// store's order (user first) for as long as a hook builds its answer.
type LockedGraphs struct {
	entries []*graphstore.Entry
	graphs  []*domain.Graph
	at      []*graphstore.Entry // the entry of each of graphs; nil for a nil graph
}

// LockGraphs loads and read-locks the user graph and project's graph,
// caught up first with what other servers committed (team mode). A graph
// that cannot be loaded is left out (nil in Graphs): a hook serves what it
// can. Release with Unlock.
func (hs *HookSupport) LockGraphs(ctx context.Context, project string) (*LockedGraphs, error) {
	t := target{project: project, owner: hs.svc.scope.owner(ctx)}
	lg := &LockedGraphs{}
	hs.svc.store.Fresh(ctx, t.keys()...) // team mode: what other servers committed
	for _, k := range t.keys() {
		e, down, err := hs.svc.reader.spanned(ctx, k)
		if err != nil {
			lg.Unlock()
			return nil, err
		}
		if down != nil {
			hs.svc.log.Warn("hook served without a graph", "graph", k.String(), "err", down)
			lg.graphs = append(lg.graphs, nil)
			lg.at = append(lg.at, nil)
			continue
		}
		e.RLock()
		lg.entries = append(lg.entries, e)
		lg.graphs = append(lg.graphs, e.Graph())
		lg.at = append(lg.at, e)
	}
	return lg, nil
}

// Graphs are the user graph and the project graph, each nil when it could
// not be loaded; valid until Unlock.
func (lg *LockedGraphs) Graphs() []*domain.Graph { return lg.graphs }

// Unlock releases the read locks.
func (lg *LockedGraphs) Unlock() {
	for _, e := range lg.entries {
		e.RUnlock()
	}
	lg.entries = nil
}

// NodeCount is the number of nodes the graphs hold, every tier.
func (lg *LockedGraphs) NodeCount() int {
	n := 0
	for _, g := range lg.graphs {
		if g != nil {
			n += g.NodeCount()
		}
	}
	return n
}

// Preload builds the preload of the user graph and project's graph within
// budget characters (docs/design/hooks.md#the-preload).
func (hs *HookSupport) Preload(ctx context.Context, project string, now domain.Micros, budget int) (recall.Preload, error) {
	lg, err := hs.LockGraphs(ctx, project)
	if err != nil {
		return recall.Preload{}, err
	}
	defer lg.Unlock()
	parts := []recall.PreloadGraph{{Graph: lg.graphs[0]}}
	if len(lg.graphs) > 1 {
		parts = append(parts, recall.PreloadGraph{Graph: lg.graphs[1], Name: projectName(project)})
	}
	// Ranking is most of a preload's cost: each graph's order is kept on
	// its entry and used again while the graph is unchanged.
	for i := range parts {
		if e := lg.at[i]; e != nil {
			parts[i].Ranking = e.Preload.Load()
		}
	}
	pre, rankings := recall.BuildPreload(parts, now, hs.svc.cfg.Policy, budget)
	for i, r := range rankings {
		if e := lg.at[i]; e != nil && r != nil && r != parts[i].Ranking {
			e.Preload.Store(r)
		}
	}
	return pre, nil
}

// LastMaintained is when a maintenance pass (kg_progress task "maintain")
// was last saved on g; 0 for never (docs/design/hooks.md#maintenance-debt).
func (hs *HookSupport) LastMaintained(g *domain.Graph) domain.Micros { return lastMaintained(g) }

// ReadUserGraph runs fn on the owner's user graph under its read lock,
// caught up first with what other servers committed (team mode); false
// when it cannot be loaded.
func (hs *HookSupport) ReadUserGraph(ctx context.Context, fn func(g *domain.Graph)) bool {
	k := domain.UserGraphOf(hs.svc.scope.owner(ctx))
	hs.svc.store.Fresh(ctx, k)
	e, err := hs.svc.store.Get(ctx, k)
	if err != nil {
		return false
	}
	e.RLock()
	defer e.RUnlock()
	fn(e.Graph())
	return true
}

// ReadGraph runs fn on graph k: the loaded graph under its read lock, or
// one that is not loaded as stored, read without loading it.
func (hs *HookSupport) ReadGraph(ctx context.Context, k domain.GraphKey, fn func(g *domain.Graph)) error {
	for _, e := range hs.svc.store.Loaded() {
		if e.Key() == k {
			e.RLock()
			defer e.RUnlock()
			fn(e.Graph())
			return nil
		}
	}
	data, err := hs.svc.graphs.Load(ctx, k)
	if err != nil {
		return err
	}
	g, _ := domain.Restore(k, data, domain.RestoreOptions{})
	fn(g)
	return nil
}
