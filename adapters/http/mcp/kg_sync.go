package mcp

import (
	"context"
	"path/filepath"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/changes"
	"github.com/kg-memory/kg/domain/render"
)

// kgSync reports what other sessions changed since the session's last sync
// (docs/design/mcp.md#kg_sync; docs/design/sync.md#kg_sync).
var kgSync = tool[syncArgs]{
	name: "kg_sync",
	description: "What other sessions changed in your memory since your last kg_sync (or since your " +
		"session started): updated and deleted nodes and edges of the user graph and this project's graph.",
	hints: hints{title: "Sync with other sessions"},
	args:  []mcpgo.ToolOption{sessionArg(true)},
	run:   syncChanges,
}

type syncArgs struct {
	SessionID requiredStr `arg:"session_id"`
}

func syncChanges(ctx context.Context, svc Service, a syncArgs) (string, error) {
	res, err := svc.Sync(ctx, string(a.SessionID))
	if err != nil {
		return "", err
	}
	return renderSync(res), nil
}

// renderSync is the text of kg_sync.
func renderSync(r app.SyncResult) string {
	if r.Empty() {
		return render.NoSyncUpdates
	}
	var b strings.Builder
	renderSyncGraph(&b, "USER GRAPH", r.User, r.UserUnavailable)
	if r.Project != nil {
		renderSyncGraph(&b, graphTitle(domain.LevelProject, filepath.Base(r.ProjectPath)), *r.Project, r.ProjectUnavailable)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func renderSyncGraph(b *strings.Builder, title string, rep changes.Report, unavailable string) {
	if unavailable != "" {
		b.WriteString(render.SyncUnavailable(title, unavailable))
		return
	}
	moved := rep.Archived+rep.Restored+rep.Orphaned+rep.Pruned > 0
	if len(rep.Items) == 0 && !moved {
		return
	}
	c := countSync(rep)
	b.WriteString(render.SyncCounts(title, c.nodes, c.edges, c.deletedNodes, c.deletedEdges))
	for _, it := range rep.Items {
		switch {
		case it.Node != nil && it.Node.Tier == domain.Orphaned:
			b.WriteString(render.SyncOrphanedNode(it.Node.ID))
		case it.Node != nil:
			b.WriteString(render.SyncNode(it.Node.ID, it.Node.Tier.String(), it.Node.Gist))
		case it.Edge != nil:
			b.WriteString(render.SyncEdge(it.Edge.Key().String(), it.Edge.Notes))
		case it.Deleted && it.EdgeKey != nil:
			b.WriteString(render.SyncDeletedEdge(it.EdgeKey.String()))
		case it.Deleted:
			b.WriteString(render.SyncDeletedNode(it.NodeID))
		}
	}
	if moved {
		b.WriteString(render.SyncCompaction(rep.Archived, rep.Restored, rep.Orphaned, rep.Pruned))
	}
}

// syncCounts counts the items of a report by kind.
type syncCounts struct{ nodes, edges, deletedNodes, deletedEdges int }

func countSync(rep changes.Report) syncCounts {
	var c syncCounts
	for _, it := range rep.Items {
		switch {
		case it.Node != nil:
			c.nodes++
		case it.Edge != nil:
			c.edges++
		case it.Deleted && it.EdgeKey != nil:
			c.deletedEdges++
		case it.Deleted:
			c.deletedNodes++
		}
	}
	return c
}
