package app

import (
	"log/slog"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Config holds the settings of the app layer.
type Config struct {
	Policy              domain.Policy
	SessionTTL          domain.Micros // sessions expire after this long without activity (KG_SESSION_TTL)
	MaxSessions         int           // live sessions at most; one more expires the least recently active
	MaintenanceInterval time.Duration // KG_SAVE_INTERVAL
	// IdleUnload is how long a project graph stays loaded without a
	// request; the maintenance tick then unloads it, once all it holds is
	// durable, and the next request loads it again. Negative: never. The
	// user graph is never unloaded.
	IdleUnload time.Duration
}

// Defaults of the app settings.
const (
	DefaultSessionTTL          = 24 * 3600 * domain.Second
	DefaultMaxSessions         = 10_000
	DefaultMaintenanceInterval = 30 * time.Second
	DefaultIdleUnload          = 30 * time.Minute
)

// DefaultConfig returns the defaults of the spec.
func DefaultConfig() Config {
	return Config{
		Policy:              domain.DefaultPolicy(),
		SessionTTL:          DefaultSessionTTL,
		MaxSessions:         DefaultMaxSessions,
		MaintenanceInterval: DefaultMaintenanceInterval,
		IdleUnload:          DefaultIdleUnload,
	}
}

// Deps are the ports the app talks out through.
type Deps struct {
	Graphs   ports.GraphRepository
	Sessions ports.SessionRepository
	Clock    ports.Clock
	Events   ports.Events
	Paths    ports.PathResolver
	// ProjectKeys, in team mode, finds a project's key in its folder
	// (.kg/project, the git origin); nil finds none.
	ProjectKeys ports.ProjectKeys
	Log         *slog.Logger
	// Metrics is told of each write batch, compaction run and new session;
	// nil records nothing.
	Metrics ports.Metrics
}

// The Service methods the inbound adapters use (bodies in the files beside
// this one; one use case per file):
//
//	func New(cfg Config, deps Deps) (*Service, error)             // loads sessions and the user graph
//	func Open(ctx, Config, Deps) (*Service, error)                 // New with a context for the start-up I/O
//	func (s *Service) Run(ctx context.Context)                     // maintenance loop; returns when ctx is done
//	func (s *Service) Close(ctx context.Context) error             // make pending writes durable, save sessions
//	func (s *Service) Read(ctx, ReadRequest) (ReadResult, error)   // kg_read
//	func (s *Service) ReadNode(ctx, Scope, id string) (NodeRead, error) // GET /api/nodes/{level}/{id}; Scope.Level required
//	func (s *Service) ReadGraphs(ctx, Scope) (GraphRead, error)    // GET /api/graph/read: every tier, promoting nothing
//	func (s *Service) Search(ctx, SearchRequest) ([]Hit, error)
//	func (s *Service) PutNode(ctx, Scope, domain.NodeInput) (PutNodeResult, error)
//	func (s *Service) PutEdge(ctx, Scope, domain.EdgeInput) (PutEdgeResult, error)
//	func (s *Service) DeleteNode(ctx, Scope, id string) (DeleteNodeResult, error) // Level "": user, then project; in both: error
//	func (s *Service) DeleteEdge(ctx, Scope, domain.EdgeKey) (DeleteEdgeResult, error)
//	func (s *Service) Sync(ctx, sessionID string) (SyncResult, error)
//	func (s *Service) SaveProgress(ctx, Scope, task string, state domain.RawJSON) error
//	func (s *Service) LoadProgress(ctx, Scope, task string) (domain.RawJSON, bool, error)
//	func (s *Service) RegisterSession(ctx, projectPath string) (ports.Session, error)
//	func (s *Service) SessionStats(ctx, id string) (SessionStats, error)
//	func (s *Service) Watch(ctx, sessionID, projectPath string) (Watch, error) // what a WebSocket listens to
//	func (s *Service) Health(ctx) Health
//	func (s *Service) Gauges() Gauges                              // what /metrics reads at scrape time
//	func (s *Service) Projects(ctx) ([]ProjectInfo, error)
//	func (s *Service) ExplainCompaction(ctx, Scope) (Explanation, error) // what a run would do now, and every node's rank
//	func (s *Service) Compact(ctx, Scope) (domain.Moves, error)        // one run now
//	func (s *Service) Export(ctx, Scope) (Export, error)
//	func (s *Service) Import(ctx, Scope, domain.ImportMode, domain.GraphData) (ImportResult, error)
//
// Every error is a *domain.Error (or wraps one) whose Kind the adapters map
// in one table; anything else is a bug and maps to internal.
