package app

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/kg-memory/kg/domain"
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
	paths    ports.PathResolver
	log      *slog.Logger
	store    *store
	sessions *sessionTable
	started  domain.Micros
	damage   func() []string // what the repository found damaged when it opened; nil when it cannot tell
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
		paths:   deps.Paths,
		log:     log,
		started: deps.Clock.Now(),
	}
	stored, err := deps.Sessions.LoadSessions(ctx)
	if err != nil {
		return nil, wrapErr(err, "load sessions")
	}
	fails := &failing{}
	s.sessions = newSessionTable(deps.Sessions, cfg, stored)
	s.sessions.failing = fails
	s.store = newStore(storeDeps{
		graphs: deps.Graphs, clock: deps.Clock, policy: cfg.Policy, log: log, events: deps.Events, metrics: deps.Metrics,
		minSeq: s.sessions.maxWatermark, idleAfter: domain.Micros(cfg.IdleUnload / time.Microsecond), failing: fails,
	})
	if d, ok := deps.Graphs.(ports.DamageReporter); ok {
		s.damage = d.Damage
	}
	if _, err := s.store.get(ctx, domain.UserGraph); err != nil {
		log.Error("user graph could not be loaded; serving without it", "err", err)
	}
	return s, nil
}

// withDefaults fills the settings left at zero with the spec's defaults, so
// a zero Config is usable.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Policy == (domain.Policy{}) {
		c.Policy = d.Policy
	}
	if c.SessionTTL <= 0 {
		c.SessionTTL = d.SessionTTL
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = d.MaxSessions
	}
	if c.MaintenanceInterval <= 0 {
		c.MaintenanceInterval = d.MaintenanceInterval
	}
	if c.IdleUnload == 0 {
		c.IdleUnload = d.IdleUnload
	}
	if c.Secrets == "" {
		c.Secrets = d.Secrets
	}
	return c
}

// wrapErr adds context to err while keeping its kind: a *domain.Error is
// copied with msg prefixed, anything else becomes an internal error that
// wraps it.
func wrapErr(err error, msg string) error {
	var de *domain.Error
	if errors.As(err, &de) {
		c := *de
		c.Msg = msg + ": " + de.Msg
		c.Err = err
		return &c
	}
	return &domain.Error{Kind: domain.KindInternal, Msg: msg, Err: err}
}

// unavailableWrite is what every caller of a batch whose save failed gets.
func unavailableWrite(key domain.GraphKey, err error) error {
	return domain.Unavailable(err, "the %s could not be saved (%v); nothing was changed, retry later", graphName(key), err)
}

// graphName names a graph in messages: "user graph" or "project graph (/p)".
func graphName(key domain.GraphKey) string {
	if key.Level == domain.LevelUser {
		return "user graph"
	}
	return "project graph (" + key.Project + ")"
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
func (s *Service) canonical(field, p string) (string, error) {
	if err := domain.ValidateProjectPath(field, p); err != nil {
		return "", err
	}
	c, err := s.paths.Canonical(p)
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

// target is a resolved Scope: the session (if any) and the project it
// names (if any).
type target struct {
	session string // session id; "" for none
	project string // canonical project path; "" for none
}

// resolve checks the session and project of a scope. It counts nothing:
// the use case counts an operation on the session once it has succeeded
// (countOp).
func (s *Service) resolve(sc Scope) (target, error) {
	var t target
	if sc.SessionID != "" {
		sess, err := s.sessions.lookup(sc.SessionID, s.clock.Now())
		if err != nil {
			return t, err
		}
		t.session, t.project = sess.ID, sess.ProjectPath
	}
	if sc.ProjectPath != "" {
		p, err := s.canonical("project_path", sc.ProjectPath)
		if err != nil {
			return t, err
		}
		if t.session != "" && t.project != "" && t.project != p {
			return t, domain.Invalidf("project_path", "%q is not the project of session %q (%s); pass one of them", p, t.session, t.project)
		}
		t.project = p
	}
	return t, nil
}

// countOp counts one operation of session, and moves its last activity,
// once the use case that named it has succeeded
// (docs/design/sync.md#sessions): a request refused for bad input, an
// unknown id, a conflict or a failed save is no operation. Call it
// deferred, with the use case's named error.
func (s *Service) countOp(session string, err *error) {
	if *err == nil && session != "" {
		_, _ = s.sessions.touch(session, s.clock.Now()) // a session that expired meanwhile is not revived
	}
}

// key returns the graph of level in the target; a project level without a
// project is an invalid request that names what was missing.
// graphOf resolves the scope and returns its target and the loaded graph of
// sc.Level, loading it first if needed.
func (s *Service) graphOf(ctx context.Context, sc Scope) (target, *graphEntry, error) {
	t, err := s.resolve(sc)
	if err != nil {
		return t, nil, err
	}
	k, err := t.key(sc.Level)
	if err != nil {
		return t, nil, err
	}
	e, err := s.store.get(ctx, k)
	return t, e, err
}

func (t target) key(level domain.Level) (domain.GraphKey, error) {
	switch level {
	case domain.LevelUser:
		return domain.UserGraph, nil
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
	ks := []domain.GraphKey{domain.UserGraph}
	if t.project != "" {
		ks = append(ks, domain.ProjectGraph(t.project))
	}
	return ks
}

// eventBase fills the fields every event of graph key carries.
func eventBase(typ string, key domain.GraphKey, seq uint64, session string) ports.Event {
	return ports.Event{Type: typ, Level: key.Level, Project: key.Project, Seq: seq, SourceSession: session}
}
