package mcp

import (
	"context"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
)

// Service is the part of *app.Service the tools use. Declaring it here keeps
// the handlers testable against the app's documented surface and names
// exactly what MCP depends on.
type Service interface {
	Read(ctx context.Context, req app.ReadRequest) (app.ReadResult, error)
	Search(ctx context.Context, req app.SearchRequest) (app.SearchResult, error)
	PutNode(ctx context.Context, sc app.Scope, in domain.NodeInput) (app.PutNodeResult, error)
	PutEdge(ctx context.Context, sc app.Scope, in domain.EdgeInput) (app.PutEdgeResult, error)
	DeleteNode(ctx context.Context, sc app.Scope, id string) (app.DeleteNodeResult, error)
	DeleteEdge(ctx context.Context, sc app.Scope, k domain.EdgeKey) (app.DeleteEdgeResult, error)
	Sync(ctx context.Context, sessionID string) (app.SyncResult, error)
	SaveProgress(ctx context.Context, sc app.Scope, task string, state domain.RawJSON) error
	LoadProgress(ctx context.Context, sc app.Scope, task string) (domain.RawJSON, bool, error)
	MarkUseful(ctx context.Context, sessionID string, ids []string) (app.UsefulResult, error)
}
