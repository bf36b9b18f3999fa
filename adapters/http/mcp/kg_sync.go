package mcp

import (
	"context"
	"path/filepath"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
)

// kgSync reports what other sessions changed since the session's last sync
// (docs/design/mcp.md#kg_sync; docs/design/sync.md#kg_sync).
var kgSync = tool[syncArgs, syncOutput]{
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

func syncChanges(ctx context.Context, svc Service, a syncArgs) (string, syncOutput, error) {
	res, err := svc.Sync(ctx, string(a.SessionID))
	if err != nil {
		return "", syncOutput{}, err
	}
	return renderSync(res), syncOutputOf(res), nil
}

// syncOutput is the structured result of kg_sync.
type syncOutput struct {
	Empty   bool          `json:"empty" jsonschema:"true when there is nothing to report: no other session changed anything and every graph could be read"`
	User    syncGraphOut  `json:"user"`
	Project *syncGraphOut `json:"project,omitempty"`
}

// syncGraphOut is what changed in one graph.
type syncGraphOut struct {
	Level        string        `json:"level"`
	Project      string        `json:"project,omitempty"`
	Changes      []syncItemOut `json:"changes" jsonschema:"by change sequence"`
	NodesUpdated int           `json:"nodes_updated"`
	EdgesUpdated int           `json:"edges_updated"`
	NodesDeleted int           `json:"nodes_deleted"`
	EdgesDeleted int           `json:"edges_deleted"`
	Archived     int           `json:"archived" jsonschema:"nodes compaction archived in the range"`
	Restored     int           `json:"restored"`
	Orphaned     int           `json:"orphaned"`
	Pruned       int           `json:"pruned"`
	Unavailable  string        `json:"unavailable,omitempty" jsonschema:"set when this graph cannot be loaded: which graph and why; its changes are reported once it loads again"`
}

// syncItemOut is one change.
type syncItemOut struct {
	Kind  string   `json:"kind" jsonschema:"node, edge, deleted_node or deleted_edge"`
	ID    string   `json:"id,omitempty"`
	Tier  string   `json:"tier,omitempty"`
	Gist  string   `json:"gist,omitempty" jsonschema:"absent for an orphaned node"`
	From  string   `json:"from,omitempty"`
	Rel   string   `json:"rel,omitempty"`
	To    string   `json:"to,omitempty"`
	Notes []string `json:"notes,omitempty" jsonschema:"an updated edge's notes"`
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

func renderSyncGraph(b *strings.Builder, title string, rep domain.SyncReport, unavailable string) {
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

func countSync(rep domain.SyncReport) syncCounts {
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

func syncOutputOf(r app.SyncResult) syncOutput {
	out := syncOutput{Empty: r.Empty(), User: syncGraphOutput(domain.LevelUser, "", r.User)}
	out.User.Unavailable = r.UserUnavailable
	if r.Project != nil {
		p := syncGraphOutput(domain.LevelProject, r.ProjectPath, *r.Project)
		p.Unavailable = r.ProjectUnavailable
		out.Project = &p
	}
	return out
}

func syncGraphOutput(level domain.Level, project string, rep domain.SyncReport) syncGraphOut {
	c := countSync(rep)
	out := syncGraphOut{
		Level: string(level), Project: project, Changes: make([]syncItemOut, 0, len(rep.Items)),
		NodesUpdated: c.nodes, EdgesUpdated: c.edges, NodesDeleted: c.deletedNodes, EdgesDeleted: c.deletedEdges,
		Archived: rep.Archived, Restored: rep.Restored, Orphaned: rep.Orphaned, Pruned: rep.Pruned,
	}
	for _, it := range rep.Items {
		var o syncItemOut
		switch {
		case it.Node != nil:
			o = syncItemOut{Kind: "node", ID: it.Node.ID, Tier: it.Node.Tier.String()}
			if it.Node.Tier != domain.Orphaned {
				o.Gist = it.Node.Gist
			}
		case it.Edge != nil:
			o = syncItemOut{Kind: "edge", From: it.Edge.From, Rel: it.Edge.Rel, To: it.Edge.To, Notes: it.Edge.Notes}
		case it.Deleted && it.EdgeKey != nil:
			o = syncItemOut{Kind: "deleted_edge", From: it.EdgeKey.From, Rel: it.EdgeKey.Rel, To: it.EdgeKey.To}
		default:
			o = syncItemOut{Kind: "deleted_node", ID: it.NodeID}
		}
		out.Changes = append(out.Changes, o)
	}
	return out
}
