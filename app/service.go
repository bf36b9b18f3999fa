package app

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"time"

	"github.com/kg-memory/kg/app/capture"
	"github.com/kg-memory/kg/app/filecheck"
	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/app/history"
	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/app/maintenance"
	"github.com/kg-memory/kg/app/sessiontable"
	"github.com/kg-memory/kg/app/usecount"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// Service is the app layer: the multi-project store of loaded graphs, the
// sessions, and the use cases the inbound adapters call. It is safe for
// concurrent use.
type Service struct {
	cfg      Config
	graphs   ports.GraphRepository
	clock    ports.Clock
	events   ports.Events
	log      *slog.Logger
	store    *graphstore.Store
	sessions *sessiontable.Table
	started  domain.Micros
	damage   func() []string // what the repository found damaged when it opened; nil when it cannot tell
	// transcripts reads Claude Code transcripts; nil: none is read.
	transcripts ports.Transcripts
	// tools counts the targets of tool events per project
	// (docs/design/hooks.md#tool-events).
	tools *hookstate.ToolEvents
	// capture is what the stop hook's rule reads (app/capture).
	capture *capture.Book
	// uses counts kg_useful marks as uses of their nodes (useful.go):
	// counting.CountUses, unless a test puts its own recorder.
	uses UseCounter
	// maint does the maintenance tick's duties (maintenance.go).
	maint *maintenance.Maintainer

	// The parts the use cases share, each in its own file.
	scope     *resolver          // resolves the sessions and projects requests name (principal.go, relpaths.go)
	compactor compactor          // runs compaction inside writes (compact.go)
	history   *history.Log       // reads the change logs and undoes (app/history)
	counting  *usecount.Counter  // counts nodes' uses by sessions (app/usecount)
	stamps    *filecheck.Stamper // hashes the project files a write names, for the staleness check (app/filecheck)
	reader    *graphReader       // reads graphs and nodes (read.go, recall.go)
}

// New builds the service: it loads the sessions and the user graph. A user
// graph that cannot be loaded does not stop the service (it is reported by
// Health and its requests fail with unavailable); sessions that cannot be
// loaded do, since starting without them would silently drop every agent's
// session.
func New(cfg Config, deps Deps) (*Service, error) {
	// New has no context in the API the adapters code against; Open is the
	// same with one.
	return Open(context.Background(), cfg, deps)
}

// Open is New with a context for the start-up I/O.
func Open(ctx context.Context, cfg Config, deps Deps) (*Service, error) {
	if deps.Graphs == nil || deps.Sessions == nil || deps.Clock == nil || deps.Events == nil || deps.Paths == nil {
		return nil, &domain.Error{Kind: domain.KindInternal, Msg: "app.New: every dependency but Log and Metrics is required"}
	}
	if deps.Metrics == nil {
		deps.Metrics = ports.NoMetrics{}
	}
	cfg = cfg.withDefaults()
	log := deps.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{
		cfg:     cfg,
		graphs:  deps.Graphs,
		clock:   deps.Clock,
		events:  deps.Events,
		log:     log,
		started: deps.Clock.Now(),
		capture: capture.NewBook(),

		transcripts: deps.Transcripts,
	}
	stored, err := deps.Sessions.LoadSessions(ctx)
	if err != nil {
		return nil, domain.WrapError(err, "load sessions")
	}
	fails := &graphstore.Failing{}
	s.sessions = sessiontable.New(deps.Sessions, sessiontable.Limits{TTL: cfg.SessionTTL, Max: cfg.MaxSessions, BoundTTL: cfg.BoundSessionTTL}, stored, log, fails)
	shared, _ := deps.Graphs.(ports.SharedGraphRepository)
	s.store = graphstore.New(graphstore.Deps{
		Graphs: deps.Graphs, Clock: deps.Clock, Policy: cfg.Policy, Log: log, Events: deps.Events, Metrics: deps.Metrics,
		MinSeq: s.sessions.MaxWatermark, IdleAfter: domain.Micros(cfg.IdleUnload / time.Microsecond), MaxLoadedNodes: cfg.MaxLoadedNodes, Failing: fails,
		Shared: shared, PrincipalOf: principalName, Wrote: s.noteWrite,
	})
	s.compactor = compactor{policy: cfg.Policy, metrics: deps.Metrics}
	s.scope = &resolver{store: s.store, sessions: s.sessions, paths: deps.Paths, keys: deps.ProjectKeys, clock: deps.Clock}
	s.reader = &graphReader{store: s.store, scope: s.scope, clock: deps.Clock, policy: cfg.Policy, log: log}
	s.stamps = &filecheck.Stamper{Files: deps.Files, TeamMode: shared != nil, Log: log}
	s.history = &history.Log{Store: s.store, Clock: deps.Clock, Days: cfg.HistoryDays, Compact: func(g *domain.Graph, at domain.Stamp) []ports.Event {
		_, evs := s.compactor.run(g, at)
		return evs
	}}
	if d, ok := deps.Graphs.(ports.DamageReporter); ok {
		s.damage = d.Damage
	}
	repo, _ := deps.Graphs.(ports.ToolEventRepository)
	counter, _ := deps.Graphs.(ports.SharedToolEventRepository)
	s.tools = hookstate.LoadToolEvents(ctx, repo, counter, log)
	s.maint = &maintenance.Maintainer{Store: s.store, Sessions: s.sessions, Clock: deps.Clock, Log: log,
		Interval: cfg.MaintenanceInterval, Policy: cfg.Policy, StaleFilesPerTick: cfg.StaleFilesPerTick, Files: deps.Files,
		SaveToolEvents:   func(ctx context.Context) error { return saveToolEvents(ctx, s.tools) },
		HistoryNotBefore: func() domain.Micros { return s.history.NotBefore(0) }}
	s.counting = &usecount.Counter{Clock: deps.Clock, Sessions: s.sessions, Store: s.store}
	s.uses = s.counting
	if shared == nil { // team mode: each principal's user graph loads when first asked for
		if _, err := s.store.Get(ctx, domain.UserGraph); err != nil {
			log.Error("user graph could not be loaded; serving without it", "err", err)
		}
	}
	return s, nil
}

// withDefaults fills the settings left at zero with the spec's defaults, so
// a zero Config is usable.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Policy == (compaction.Policy{}) {
		c.Policy = d.Policy
	}
	if c.SessionTTL <= 0 {
		c.SessionTTL = d.SessionTTL
	}
	if c.BoundSessionTTL <= 0 {
		c.BoundSessionTTL = d.BoundSessionTTL
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = d.MaxSessions
	}
	if c.MaintenanceInterval <= 0 {
		c.MaintenanceInterval = d.MaintenanceInterval
	}
	if c.StaleFilesPerTick <= 0 {
		c.StaleFilesPerTick = d.StaleFilesPerTick
	}
	if c.IdleUnload == 0 {
		c.IdleUnload = d.IdleUnload
	}
	if c.PreloadChars <= 0 {
		c.PreloadChars = d.PreloadChars
	}
	if c.Secrets == "" {
		c.Secrets = d.Secrets
	}
	return c
}

// saveToolEvents stores the tool-event counts (the tick's and Close's save),
// its failure an internal error that says what was being saved.
func saveToolEvents(ctx context.Context, t *hookstate.ToolEvents) error {
	if err := t.Save(ctx); err != nil {
		return domain.WrapError(err, "save the tool-event counts")
	}
	return nil
}

// projectName is the name the full read shows for a project: its folder's
// base name.
func projectName(path string) string {
	if path == "" {
		return ""
	}
	return filepath.Base(path)
}

// canonical resolves a client-given project path through the PathResolver,
// naming field in the error (cwd or project_path). The path, and the path
// it resolves to, must pass domain.ValidateProjectPath: no control
// characters are stored, keyed on or echoed back.
func (r *resolver) canonical(ctx context.Context, field, p string) (string, error) {
	if r.store.Shared != nil {
		return r.teamProject(ctx, field, p, "")
	}
	if err := domain.ValidateProjectPath(field, p); err != nil {
		return "", err
	}
	c, err := r.paths.Canonical(p)
	if err != nil {
		var de *domain.Error
		if errors.As(err, &de) {
			e := *de
			e.Field = field
			return "", &e
		}
		return "", domain.Invalidf(field, "%q cannot be resolved: %v", p, err)
	}
	if err := domain.ValidateProjectPath(field, c); err != nil {
		var de *domain.Error
		errors.As(err, &de)
		return "", domain.Invalidf(field, "%q resolves to a path that %s", p, de.Msg)
	}
	return c, nil
}

// projectOf resolves the project a request names by a path (in field) and
// a key the client resolved (project_key), either of them optional
// (docs/design/team.md#project-keys). A team server takes the key first: a
// client on another machine knows its folder's key, and the server cannot
// read the folder. A server of one person names projects by their paths:
// it checks the key and uses the path, and refuses a key alone.
func (r *resolver) projectOf(ctx context.Context, field, path, key string) (string, error) {
	if r.store.Shared != nil {
		return r.teamProject(ctx, field, path, key)
	}
	if key == "" {
		return r.canonical(ctx, field, path)
	}
	if err := domain.ValidateProjectKey("project_key", key); err != nil {
		return "", err
	}
	if path == "" {
		return "", domain.Invalidf("project_key", "%q: project keys name projects on a team server only; pass %s (the absolute project root)", key, field)
	}
	return r.canonical(ctx, field, path)
}

// teamProject is where a team server resolves every project a request
// names — by project_key, else by the cwd or project_path in field — and
// so the one place that keeps another principal's private project out of
// reach (docs/design/team.md#people-and-tokens): whatever the route, the
// tool or the socket, such a key is a project that does not exist for this
// principal. The answer never depends on whether the project holds
// anything, so it tells nobody that it does (decision 0059).
func (r *resolver) teamProject(ctx context.Context, field, path, key string) (string, error) {
	if key == "" {
		var err error
		if key, err = r.projectKey(ctx, field, path); err != nil {
			return "", err
		}
	} else {
		field = "project_key"
		if err := domain.ValidateProjectKey(field, key); err != nil {
			return "", err
		}
	}
	if !domain.ProjectGraph(key).NamableBy(principalName(ctx)) {
		return "", unknownProject(field, key)
	}
	return key, nil
}

// unknownProject is the error for a project a principal may not name.
func unknownProject(field, key string) error {
	return domain.NotFoundf(field, "unknown project %q: no memory of yours is kept under that key", key)
}

// resolver resolves what a request names — its principal, session and
// project — into a target: the part of the service every use case starts
// with, kept apart from the use cases themselves.
type resolver struct {
	store    *graphstore.Store
	sessions *sessiontable.Table
	paths    ports.PathResolver
	keys     ports.ProjectKeys // team mode: a project's key from its folder; nil: none found
	clock    ports.Clock
}

// target is a resolved Scope: the session (if any) and the project it
// names (if any).
type target struct {
	session string // session id; "" for none
	project string // canonical project path; "" for none
	owner   string // the principal whose user graph it reads (team mode); "" otherwise
	root    string // the folder the project was named by (team mode, rootOf); "" otherwise
}

// resolve checks the session and project of a scope. It counts nothing:
// the use case counts an operation on the session once it has succeeded
// (countOp).
func (r *resolver) resolve(ctx context.Context, sc Scope) (target, error) {
	t := target{owner: r.owner(ctx)}
	if sc.SessionID != "" {
		sess, err := r.sessionFor(ctx, sc.SessionID)
		if err != nil {
			return t, err
		}
		t.session, t.project, t.root = sess.ID, sess.ProjectPath, sess.Root
	}
	if sc.ProjectPath != "" || sc.ProjectKey != "" {
		p, err := r.projectOf(ctx, "project_path", sc.ProjectPath, sc.ProjectKey)
		if err != nil {
			return t, err
		}
		if t.session != "" && t.project != "" && t.project != p {
			return t, domain.Invalidf("project_path", "%q is not the project of session %q (%s); pass one of them", p, t.session, t.project)
		}
		if root := r.rootOf(p, sc.ProjectPath); root != "" || t.project != p {
			t.root = root
		}
		t.project = p
	}
	return t, nil
}

// mayRead reports whether the request t may read graph k when it spans
// several graphs (a search of every graph): its own user graph only, and
// no private project of another principal (team mode,
// docs/design/team.md#project-keys). Outside team mode the owner is "" and
// every graph is readable.
func (t target) mayRead(k domain.GraphKey) bool { return k.NamableBy(t.owner) }

// noteWrite tells capture of a durable write by a session: by its session,
// and by its project and person, so that a conversation whose model wrote
// through a session not bound to it is not asked to record
// (docs/decisions/0109-capture-counts-project-writes.md).
func (s *Service) noteWrite(ctx context.Context, session string, key domain.GraphKey) {
	project := ""
	if key.Level == domain.LevelProject {
		project = key.Project
	}
	s.capture.Wrote(session, project, s.scope.owner(ctx), s.clock.Now())
}

// countOp counts one operation of session, and moves its last activity,
// once the use case that named it has succeeded
// (docs/design/sync.md#sessions): a request refused for bad input, an
// unknown id, a conflict or a failed save is no operation. Call it
// deferred, with the use case's named error.
func (s *Service) countOp(session string, err *error) {
	if *err == nil && session != "" {
		_, _ = s.sessions.Touch(session, s.clock.Now()) // a session that expired meanwhile is not revived
	}
}

// key returns the graph of level in the target; a project level without a
// project is an invalid request that names what was missing.
// graphOf resolves the scope and returns its target and the loaded graph of
// sc.Level, loading it first if needed.
func (r *resolver) graphOf(ctx context.Context, sc Scope) (target, *graphstore.Entry, error) {
	t, err := r.resolve(ctx, sc)
	if err != nil {
		return t, nil, err
	}
	k, err := t.key(sc.Level)
	if err != nil {
		return t, nil, err
	}
	r.store.Fresh(ctx, k) // team mode: what other servers committed
	e, err := r.store.Get(ctx, k)
	return t, e, err
}

func (t target) key(level domain.Level) (domain.GraphKey, error) {
	switch level {
	case domain.LevelUser:
		return domain.UserGraphOf(t.owner), nil
	case domain.LevelProject:
		if t.project != "" {
			return domain.ProjectGraph(t.project), nil
		}
		if t.session != "" {
			return domain.GraphKey{}, domain.Invalidf("session_id", "session %q has no project; pass project_path", t.session)
		}
		return domain.GraphKey{}, domain.Invalidf("project_path", "level project needs session_id or project_path")
	case "":
		return domain.GraphKey{}, domain.Invalidf("level", "required: one of user, project")
	}
	return domain.GraphKey{}, domain.Invalidf("level", "%q is not one of user, project", level)
}

// keys returns the graphs a request without a level covers: the user graph,
// and the project graph when the target names one.
func (t target) keys() []domain.GraphKey {
	ks := []domain.GraphKey{domain.UserGraphOf(t.owner)}
	if t.project != "" {
		ks = append(ks, domain.ProjectGraph(t.project))
	}
	return ks
}

// readableProjects returns every project graph stored or loaded that t
// may read, sorted.
func readableProjects(ctx context.Context, store *graphstore.Store, t target) ([]domain.GraphKey, error) {
	all, err := store.ProjectGraphs(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(k domain.GraphKey) bool { return !t.mayRead(k) }), nil
}

// graphName names a graph in messages: "user graph" or "project graph (/p)".
func graphName(key domain.GraphKey) string { return graphstore.GraphName(key) }
