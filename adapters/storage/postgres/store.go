package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var (
	_ ports.SharedGraphRepository   = (*Store)(nil)
	_ ports.SharedSessionRepository = (*Store)(nil)
)

// Defaults of Options.
const (
	DefaultLockTimeout  = 5 * time.Second
	DefaultPollInterval = 5 * time.Second
	// A graph's change log keeps its last DefaultChangesKept batches, and
	// every batch younger than DefaultChangesRetention
	// (docs/design/team.md#pruning-the-change-log): the change log's
	// retention (KG_HISTORY_DAYS, 90 by default, docs/design/trust.md#team-mode).
	DefaultChangesRetention = 90 * 24 * time.Hour
	DefaultChangesKept      = 1000
	// DefaultTokenGrace is KG_TOKEN_GRACE's default.
	DefaultTokenGrace = 10 * time.Minute
)

// Options tune Open. The zero value is valid.
type Options struct {
	// Logger receives what the store notices; slog.Default() when nil.
	Logger *slog.Logger
	// LockTimeout bounds the wait for a graph's lock (and every other
	// lock a statement waits for); past it a write fails as unavailable
	// instead of hanging. DefaultLockTimeout when zero.
	LockTimeout time.Duration
	// PollInterval is how often Watch asks its watcher to check every
	// graph, in case a notification was missed. DefaultPollInterval when
	// zero.
	PollInterval time.Duration
	// MaxConns caps the pool; pgxpool's default when zero.
	MaxConns int32
	// Instance names this server in the change log and in notifications;
	// a random id when empty.
	Instance string
	// NoMigrate opens the database as it is, for the commands that only
	// look (kg status, kg doctor); Schema tells whether it is behind.
	NoMigrate bool
	// ChangesRetention and ChangesKept bound a graph's change log: the
	// server that takes a graph's maintenance lease deletes the batches
	// older than ChangesRetention but the last ChangesKept. The defaults
	// when zero; a negative ChangesRetention keeps every batch.
	ChangesRetention time.Duration
	ChangesKept      int
	// TokenGrace is how long a token verified by this server stays good
	// while the database cannot be reached, so that reads go on
	// (docs/design/team.md#when-the-database-is-away).
	// DefaultTokenGrace when zero; a negative grace trusts no token
	// without the database.
	TokenGrace time.Duration
}

// Store keeps graphs and sessions in a PostgreSQL database that any number
// of kg servers share (docs/design/team.md). It implements
// ports.SharedGraphRepository and ports.SharedSessionRepository.
type Store struct {
	pool     *pgxpool.Pool
	log      *slog.Logger
	opt      Options
	instance string

	faultMu sync.Mutex
	fault   error

	// keys maps graph ids to keys for the listener: a notification
	// names a graph by its id.
	keysMu sync.Mutex
	keys   map[int64]domain.GraphKey

	// saved holds the encoding each session had at its last save by this
	// store, so UpdateSessions writes only the sessions that changed, and
	// the last activity it saw, so that it removes a session only when
	// nobody used it since.
	sessMu sync.Mutex
	saved  map[string]savedSession

	stats *stats
	auth  authCache
}

// Open connects to the database url names (a libpq URL or key=value
// string), brings its schema up to date under the migration lock and
// returns the store. The pool's connections are checked with one round
// trip before Open returns.
func Open(ctx context.Context, url string, opt Options) (*Store, error) {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.LockTimeout <= 0 {
		opt.LockTimeout = DefaultLockTimeout
	}
	if opt.PollInterval <= 0 {
		opt.PollInterval = DefaultPollInterval
	}
	if opt.TokenGrace == 0 {
		opt.TokenGrace = DefaultTokenGrace
	}
	if opt.ChangesRetention == 0 {
		opt.ChangesRetention = DefaultChangesRetention
	}
	if opt.ChangesKept <= 0 {
		opt.ChangesKept = DefaultChangesKept
	}
	if opt.Instance == "" {
		var b [6]byte
		_, _ = rand.Read(b[:])
		opt.Instance = hex.EncodeToString(b[:])
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// The URL may hold a password: never echo it.
		return nil, domain.Unavailable(err, "KG_DATABASE_URL is not a valid PostgreSQL connection string")
	}
	if opt.MaxConns > 0 {
		cfg.MaxConns = opt.MaxConns
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "kg " + opt.Instance
	// lock_timeout for every statement of every connection: no wait for a
	// lock, the graph's or any other, outlasts it.
	cfg.ConnConfig.RuntimeParams["lock_timeout"] = fmt.Sprintf("%dms", opt.LockTimeout.Milliseconds())
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, unavailable(err, "connect to the database")
	}
	s := &Store{pool: pool, log: opt.Logger, opt: opt, instance: opt.Instance,
		keys: map[int64]domain.GraphKey{}, saved: map[string]savedSession{}, stats: newStats(),
		auth: authCache{m: map[[32]byte]authEntry{}}}
	if opt.NoMigrate {
		return s, nil
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	var applied []int
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		applied, err = migrate(ctx, tx)
		return err
	})
	if err != nil {
		return unavailable(err, "bring the database schema up to date")
	}
	if len(applied) > 0 {
		s.log.Info("postgres: schema migrated", "versions", applied, "now", SchemaVersion())
	}
	return nil
}

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Instance returns the name of this server in the change log.
func (s *Store) Instance() string { return s.instance }

// Pool returns the connection pool, for the commands and tests that run
// their own statements (kg token, kg doctor).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// InjectFault makes every following commit and session save fail with err
// from inside its transaction, after it has written its rows, so the
// database rolls the transaction back as on a real failure. A nil err
// removes the fault. This is how the contract tests produce a failing save.
func (s *Store) InjectFault(err error) {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	s.fault = err
}

func (s *Store) injected() error {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	return s.fault
}

// Ping makes one round trip to the database and returns how long it took.
func (s *Store) Ping(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	err := s.pool.Ping(ctx)
	d := time.Since(start)
	if err == nil {
		s.stats.roundTrip.Observe(d.Seconds())
	}
	return d, err
}

// SchemaInfo is what kg doctor and kg status report of the database.
type SchemaInfo struct {
	Version int // the schema's version in the database
	Known   int // the newest version this build knows
}

// Schema returns the database's schema version.
func (s *Store) Schema(ctx context.Context) (SchemaInfo, error) {
	var exists bool
	if err := s.pool.QueryRow(ctx, "SELECT to_regclass('schema_migrations') IS NOT NULL").Scan(&exists); err != nil || !exists {
		return SchemaInfo{Known: SchemaVersion()}, err // a database no kg has used: version 0
	}
	var v int
	err := s.pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&v)
	return SchemaInfo{Version: v, Known: SchemaVersion()}, err
}

// unavailable wraps a database error as domain.KindUnavailable, with what
// was being done and the error's own words (never the connection string).
func unavailable(err error, format string, args ...any) *domain.Error {
	e := domain.Unavailable(err, format, args...)
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && pe.Code == "55P03":
		e.Msg += ": another server holds the graph's lock for longer than the lock timeout; retry"
	case err != nil:
		e.Msg += ": " + err.Error()
	}
	return e
}

// damagedf is an error for stored data that does not decode.
func damagedf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ports.ErrDamaged, fmt.Sprintf(format, args...))
}

// keyCols returns the natural key of a graph's row.
func keyCols(key domain.GraphKey) (level, owner, project string) {
	if key.Level == domain.LevelUser {
		return string(domain.LevelUser), key.Owner, ""
	}
	return string(domain.LevelProject), "", key.Project
}

// keyOf is keyCols backwards.
func keyOf(level, owner, project string) domain.GraphKey {
	if level == string(domain.LevelUser) {
		return domain.UserGraphOf(owner)
	}
	return domain.ProjectGraph(project)
}

func validKey(key domain.GraphKey) error {
	switch {
	case key.Level == domain.LevelUser && key.Project == "":
		return nil
	case key.Level == domain.LevelProject && key.Project != "" && key.Owner == "":
		return nil
	}
	return domain.Invalidf("graph", "not a valid graph key: %s", key)
}

func (s *Store) rememberKey(id int64, key domain.GraphKey) {
	s.keysMu.Lock()
	s.keys[id] = key
	s.keysMu.Unlock()
}
