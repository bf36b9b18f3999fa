package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// migration is one schema version: the statements that take the database
// from the version before to this one.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations are applied in order, each once, recorded in
// schema_migrations (docs/design/team.md#schema-and-migrations). A version,
// once released, is never edited: a change is a new version.
var migrations = []migration{
	{1, "graphs, items, change log, sessions", `
CREATE TABLE graphs (
	id           bigserial PRIMARY KEY,
	level        text   NOT NULL CHECK (level IN ('user', 'project')),
	owner        text   NOT NULL DEFAULT '',   -- the principal a user graph belongs to
	project_key  text   NOT NULL DEFAULT '',   -- a project graph's key
	slug         text,                         -- a project graph's name in listings
	seq          bigint NOT NULL DEFAULT 0,    -- the committed seq: durable_seq
	rev          bigint NOT NULL DEFAULT 0,    -- position of the last batch in the change log
	schema       int    NOT NULL DEFAULT 2,
	project_path text   NOT NULL DEFAULT '',
	meta         jsonb  NOT NULL DEFAULT '{}', -- unknown _meta keys
	lease_holder text,                         -- the maintenance lease
	lease_until  timestamptz,
	created_at   timestamptz NOT NULL DEFAULT now(),
	UNIQUE (level, owner, project_key)
);
CREATE UNIQUE INDEX graphs_slug ON graphs (slug) WHERE level = 'project';

CREATE TABLE nodes (
	graph_id  bigint NOT NULL REFERENCES graphs ON DELETE CASCADE,
	id        text   NOT NULL,
	v         bigint NOT NULL,
	seq       bigint NOT NULL,
	tier      text   NOT NULL,
	tier_seq  bigint NOT NULL,
	principal text   NOT NULL DEFAULT '',  -- who wrote the current version
	body      jsonb  NOT NULL,
	PRIMARY KEY (graph_id, id)
);
CREATE INDEX nodes_seq ON nodes (graph_id, seq);

CREATE TABLE edges (
	graph_id  bigint NOT NULL REFERENCES graphs ON DELETE CASCADE,
	key       bytea  NOT NULL,             -- sha256 of (from, to, rel)
	from_end  text   NOT NULL,
	to_end    text   NOT NULL,
	rel       text   NOT NULL,
	v         bigint NOT NULL,
	seq       bigint NOT NULL,
	principal text   NOT NULL DEFAULT '',
	body      jsonb  NOT NULL,
	PRIMARY KEY (graph_id, key)
);
CREATE INDEX edges_seq ON edges (graph_id, seq);

CREATE TABLE node_tombstones (
	graph_id bigint NOT NULL REFERENCES graphs ON DELETE CASCADE,
	id       text   NOT NULL,
	v        bigint NOT NULL,
	seq      bigint NOT NULL,
	body     jsonb  NOT NULL,
	PRIMARY KEY (graph_id, id)
);
CREATE INDEX node_tombstones_seq ON node_tombstones (graph_id, seq);

CREATE TABLE edge_tombstones (
	graph_id bigint NOT NULL REFERENCES graphs ON DELETE CASCADE,
	key      bytea  NOT NULL,
	from_end text   NOT NULL,
	to_end   text   NOT NULL,
	rel      text   NOT NULL,
	v        bigint NOT NULL,
	seq      bigint NOT NULL,
	body     jsonb  NOT NULL,
	PRIMARY KEY (graph_id, key)
);
CREATE INDEX edge_tombstones_seq ON edge_tombstones (graph_id, seq);

CREATE TABLE progress (
	graph_id bigint NOT NULL REFERENCES graphs ON DELETE CASCADE,
	task     text   NOT NULL,
	state    jsonb  NOT NULL,
	PRIMARY KEY (graph_id, task)
);

-- The change log: one row per committed batch, in the order of the
-- graph's lock. Other servers catch up from it; a history of changes
-- can read it.
CREATE TABLE changes (
	graph_id     bigint NOT NULL REFERENCES graphs ON DELETE CASCADE,
	rev          bigint NOT NULL,
	seq_from     bigint NOT NULL,   -- the first seq the batch took (seq_to + 1: none)
	seq_to       bigint NOT NULL,   -- the graph's seq after the batch
	committed_at timestamptz NOT NULL DEFAULT now(),
	instance     text   NOT NULL,   -- the server that committed it
	sessions     text[] NOT NULL,
	principals   text[] NOT NULL,
	writes       jsonb  NOT NULL,   -- per write: session, principal, its seqs
	items        jsonb  NOT NULL,   -- per item: before and after
	events       jsonb  NOT NULL,
	PRIMARY KEY (graph_id, rev)
);
CREATE INDEX changes_seq ON changes (graph_id, seq_to);
CREATE INDEX changes_time ON changes (committed_at);

CREATE TABLE sessions (
	id             text   PRIMARY KEY,
	principal      text   NOT NULL DEFAULT '',
	project_path   text   NOT NULL DEFAULT '',
	start_ts       bigint NOT NULL,
	last_activity  bigint NOT NULL,
	op_count       bigint NOT NULL DEFAULT 0,
	last_synced_ts bigint NOT NULL DEFAULT 0,
	data           jsonb  NOT NULL DEFAULT '{}'    -- the rest of the record: unknown fields, and fields added later
);
CREATE INDEX sessions_activity ON sessions (last_activity);

CREATE TABLE session_watermarks (
	session_id text   NOT NULL REFERENCES sessions ON DELETE CASCADE,
	graph      text   NOT NULL,   -- "user", "user:<principal>" or "project:<key>"
	level      text   NOT NULL,
	owner      text   NOT NULL,
	project    text   NOT NULL,
	seq        bigint NOT NULL,
	PRIMARY KEY (session_id, graph)
);
`},
	{2, "principals and their tokens", `
CREATE TABLE principals (
	name       text PRIMARY KEY,
	created_at timestamptz NOT NULL DEFAULT now()
);

-- Only a SHA-256 of each token is stored; the token is shown once, when it
-- is created.
CREATE TABLE tokens (
	id           text PRIMARY KEY,             -- public: the first hex digits of the hash
	principal    text NOT NULL REFERENCES principals ON DELETE CASCADE,
	scope        text NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
	hash         bytea NOT NULL UNIQUE,
	created_at   timestamptz NOT NULL DEFAULT now(),
	revoked_at   timestamptz
);
CREATE INDEX tokens_principal ON tokens (principal);
`},
	{3, "the positions of removed project graphs", `
-- A removed project graph (kg project rm) leaves its last position + 1
-- here, so that a graph of the same project stored later continues from it
-- and a server still holding the old copy finds its position gone from
-- the change log (docs/design/team.md#removing-a-project).
CREATE TABLE removed_graphs (
	project_key text   PRIMARY KEY,
	rev         bigint NOT NULL,
	removed_at  timestamptz NOT NULL DEFAULT now()
);
`},
	{4, "the seq of removed project graphs; tool-event counts; sessions by conversation and project", `
-- A removed project graph also leaves the seq it had reached: a graph of
-- the project stored later continues from it, so that no seq is handed out
-- twice and a session's watermark on the old graph skips nothing of the
-- new one (docs/design/team.md#removing-a-project).
ALTER TABLE removed_graphs ADD COLUMN seq bigint NOT NULL DEFAULT 0;

-- The counts of the hook route POST /api/tool_event, one row per target of
-- a project, counted by every server as events come
-- (docs/design/team.md#tool-event-counts).
CREATE TABLE tool_events (
	project    text     NOT NULL,
	target     text     NOT NULL,
	count      bigint   NOT NULL DEFAULT 0,
	sessions   text[]   NOT NULL DEFAULT '{}', -- distinct Claude sessions, the first few
	last_seen  bigint   NOT NULL DEFAULT 0,    -- unix microseconds
	last_nudge bigint   NOT NULL DEFAULT 0,    -- unix microseconds; 0: never
	PRIMARY KEY (project, target)
);
CREATE INDEX tool_events_seen ON tool_events (project, last_seen);

-- A hook route on one server finds a conversation's session started on
-- another: by the Claude session it is bound to, or the person's latest of
-- the project (docs/design/team.md#hooks-across-servers).
CREATE INDEX sessions_claude ON sessions (principal, (data->'hook_state'->>'claude_session_id'));
CREATE INDEX sessions_project ON sessions (principal, project_path, last_activity);
`},
	{5, "each graph's summary, kept with every commit", `
-- What a listing shows of a graph (counts per tier, token costs, the last
-- change), written in the transaction of each commit, so that listing the
-- projects never reads a graph (docs/design/team.md#scale). NULL until the
-- graph's first commit or listing under this version fills it in.
ALTER TABLE graphs ADD COLUMN summary jsonb;
`},
}

// migrationLock is the key of the advisory lock that serialises schema
// migrations across servers: one transaction takes it, applies what is
// missing and records it, so a second server starting at the same moment
// waits and then finds nothing to do.
const migrationLock = 0x6b67_6d69_6772 // "kgmigr"

// SchemaVersion is the newest schema this build knows.
func SchemaVersion() int { return migrations[len(migrations)-1].version }

// migrate brings the database to SchemaVersion in one transaction under the
// advisory lock. A database whose schema is newer than this build is
// refused: an older kg must not write to it.
func migrate(ctx context.Context, tx pgx.Tx) (applied []int, err error) {
	// Another server's migration may take longer than the lock timeout
	// every other statement waits at most.
	if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '120s'"); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
		return nil, fmt.Errorf("take the migration lock: %w", err)
	}
	// Only a database without the table gets it: CREATE TABLE IF NOT
	// EXISTS needs the CREATE privilege even when the table is there, and
	// a least-privilege role that only reads and writes the tables must
	// start on an up-to-date schema (docs/operations.md#team-server).
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT to_regclass('schema_migrations') IS NOT NULL").Scan(&exists); err != nil {
		return nil, fmt.Errorf("look for schema_migrations: %w", err)
	}
	if !exists {
		if _, err := tx.Exec(ctx, `CREATE TABLE schema_migrations (
			version    int PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return nil, fmt.Errorf("create schema_migrations: %w%s", err, ownerHint(err))
		}
	}
	var have int
	if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&have); err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	if have > SchemaVersion() {
		return nil, fmt.Errorf("the database's schema is version %d, newer than this kg knows (%d): upgrade kg", have, SchemaVersion())
	}
	for _, m := range migrations {
		if m.version <= have {
			continue
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return applied, fmt.Errorf("schema version %d (%s): %w%s", m.version, m.name, err, ownerHint(err))
		}
		if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name); err != nil {
			return applied, fmt.Errorf("record schema version %d: %w", m.version, err)
		}
		applied = append(applied, m.version)
	}
	return applied, nil
}

// ownerHint is what to do when a schema change is refused for want of a
// privilege: the servers may run as a role that only reads and writes the
// tables, and the schema is then brought up to date by its owner.
func ownerHint(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42501" { // insufficient_privilege
		return fmt.Sprintf("; this role may not change the schema: run kg once as the role that owns it (e.g. KG_DATABASE_URL=<the owner's URL> kg token list) to bring it to version %d, then start the servers again", SchemaVersion())
	}
	return ""
}
