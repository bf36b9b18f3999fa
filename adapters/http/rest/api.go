package rest

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hooks"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/importing"
	"github.com/kg-memory/kg/domain/merge"
	"github.com/kg-memory/kg/ports"
)

// Service is the part of *app.Service the REST API uses: one use case per
// route.
type Service interface {
	ReadGraphs(ctx context.Context, sc app.Scope) (app.GraphRead, error)
	Attention(ctx context.Context, sc app.Scope) (app.Attention, error)
	Projects(ctx context.Context) ([]app.ProjectInfo, error)
	RemoveProject(ctx context.Context, path string, force bool) (app.RemovedProject, error)
	RegisterSession(ctx context.Context, projectPath, projectKey string) (ports.Session, error)
	SessionStats(ctx context.Context, id string) (app.SessionStats, error)
	PutNode(ctx context.Context, sc app.Scope, in domain.NodeInput) (app.PutNodeResult, error)
	ReadNode(ctx context.Context, sc app.Scope, id string) (app.NodeRead, error)
	DeleteNode(ctx context.Context, sc app.Scope, id string) (app.DeleteNodeResult, error)
	MergeNodes(ctx context.Context, sc app.Scope, in merge.MergeInput, dryRun bool) (app.MergeResult, error)
	ArchiveNodes(ctx context.Context, sc app.Scope, ids []string) (app.ArchiveResult, error)
	PutEdge(ctx context.Context, sc app.Scope, in domain.EdgeInput) (app.PutEdgeResult, error)
	DeleteEdge(ctx context.Context, sc app.Scope, k domain.EdgeKey) (app.DeleteEdgeResult, error)
	Search(ctx context.Context, req app.SearchRequest) (app.SearchResult, error)
	Sync(ctx context.Context, sessionID string) (app.SyncResult, error)
	SaveProgress(ctx context.Context, sc app.Scope, task string, state domain.RawJSON) error
	LoadProgress(ctx context.Context, sc app.Scope, task string) (domain.RawJSON, bool, error)
	ExplainCompaction(ctx context.Context, sc app.Scope) (app.Explanation, error)
	Compact(ctx context.Context, sc app.Scope) (compaction.Moves, error)
	Export(ctx context.Context, sc app.Scope) (app.Export, error)
	Import(ctx context.Context, sc app.Scope, mode importing.Mode, doc domain.GraphData, opt app.ImportOptions) (app.ImportResult, error)
	MarkUseful(ctx context.Context, sessionID string, ids []string) (app.UsefulResult, error)
	History(ctx context.Context, req app.HistoryRequest) (app.HistoryResult, error)
	Undo(ctx context.Context, req app.UndoRequest) (app.UndoResult, error)
}

// Hooks is the part of *hooks.Hooks the hook routes use: one use case per
// route (docs/design/hooks.md).
type Hooks interface {
	SessionBootstrap(ctx context.Context, req hooks.BootstrapRequest) (hooks.BootstrapResult, error)
	SessionStateOf(ctx context.Context, projectPath, projectKey string) (hooks.SessionState, error)
	PromptContext(ctx context.Context, req hooks.PromptRequest) (hooks.HookText, error)
	ToolEvent(ctx context.Context, req hooks.ToolEventRequest) (hooks.HookText, error)
	Stop(ctx context.Context, req hooks.StopRequest) (hooks.StopResult, error)
	MaintenanceDebt(ctx context.Context) (hooks.DebtReport, error)
}

// API serves the REST routes.
type API struct {
	svc   Service
	hooks Hooks
	log   *slog.Logger
	calls HookRecorder
}

// HookRecorder records each call of a hook route (*metrics.Metrics):
// docs/design/hooks.md#metrics.
type HookRecorder interface {
	HookAnswered(route string, injected int, failed bool, took time.Duration)
	// CaptureDecided counts a stop of agent by what it came to
	// (docs/design/hooks.md#capture-before-forgetting).
	CaptureDecided(agent, outcome string)
}

// New returns the REST API over svc and hooks; calls (nil: none) records
// the calls of the hook routes.
func New(svc Service, hooks Hooks, log *slog.Logger, calls HookRecorder) *API {
	if calls == nil {
		calls = noHooks{}
	}
	return &API{svc: svc, hooks: hooks, log: log, calls: calls}
}

type noHooks struct{}

func (noHooks) HookAnswered(string, int, bool, time.Duration) {}
func (noHooks) CaptureDecided(string, string)                 {}

// BodyLimit is the router's body-limit middleware: it refuses (413) a body
// over max bytes.
type BodyLimit func(max int64) func(http.Handler) http.Handler

// Register adds every REST route to r, which is mounted at /api. Routes
// that read a body get limit(domain.MaxBodyBytes), POST /import
// limit(domain.MaxImportBodySize).
func (a *API) Register(r chi.Router, limit BodyLimit) {
	r.Get("/graph/read", a.readGraphs)
	r.Get("/projects", a.projects)
	r.Delete("/projects", a.removeProject)
	r.Get("/sessions/{id}/stats", a.sessionStats)
	r.Get("/nodes/{level}/{id}", a.readNode)
	r.Delete("/nodes/{level}/{id}", a.deleteNode)
	r.Delete("/edges", a.deleteEdgeByQuery)
	r.Delete("/edges/{level}/{from}/{to}/{rel}", a.deleteEdgeByPath)
	r.Get("/search", a.search)
	r.Get("/progress/{task_id}", a.loadProgress)
	r.Get("/compaction/plan", a.compactionPlan)
	r.Get("/export", a.export)
	r.Get("/session_bootstrap", a.sessionBootstrap)
	r.Get("/session_state", a.sessionState)
	r.Get("/maintenance_debt", a.maintenanceDebt)
	r.Get("/history", a.history)
	r.Get("/attention", a.attention)

	r.Group(func(r chi.Router) {
		r.Use(limit(domain.MaxBodyBytes))
		r.Post("/sessions/register", a.registerSession)
		r.Post("/nodes", a.putNode)
		r.Post("/nodes/merge", a.mergeNodes)
		r.Post("/nodes/archive", a.archiveNodes)
		r.Post("/edges", a.putEdge)
		r.Post("/sync", a.sync)
		r.Post("/progress", a.saveProgress)
		r.Post("/compaction/run", a.compact)
		r.Post("/prompt_context", a.promptContext)
		r.Post("/tool_event", a.toolEvent)
		r.Post("/hooks/stop", a.stop)
		r.Post("/nodes/useful", a.markUseful)
		r.Post("/undo", a.undo)
	})
	r.With(limit(domain.MaxImportBodySize)).Post("/import", a.importGraph)
}

// fail answers the request with err, through the one table.
func (a *API) fail(w http.ResponseWriter, r *http.Request, err error) {
	writeError(w, r, a.log, err)
}
