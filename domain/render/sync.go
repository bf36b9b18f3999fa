package render

import (
	"fmt"
	"strings"
)

// The lines of kg_sync's answer (docs/design/mcp.md#kg_sync): what other
// sessions changed, per graph. Which changes it reports is app's choice.

// NoSyncUpdates is kg_sync's whole answer when nothing changed.
const NoSyncUpdates = "No updates from other sessions"

// SyncUnavailable is the line of a graph kg_sync could not look at.
func SyncUnavailable(title, why string) string { return title + " — unavailable: " + why + "\n" }

// SyncCounts heads a graph's changes: "PROJECT GRAPH (my-app): 3 nodes and
// 2 edges updated, 1 node and 1 edge deleted\n".
func SyncCounts(title string, nodes, edges, deletedNodes, deletedEdges int) string {
	return title + ": " + Plural(nodes, "node", "nodes") + " and " + Plural(edges, "edge", "edges") + " updated, " +
		Plural(deletedNodes, "node", "nodes") + " and " + Plural(deletedEdges, "edge", "edges") + " deleted\n"
}

// SyncNode is an updated node: "  node id [tier]: gist\n", the node line
// with its tier for a mark.
func SyncNode(id, tier, gist string) string {
	return Node{Label: "node ", ID: id, Mark: "[" + tier + "]", Gist: gist}.String()
}

// SyncOrphanedNode is a node that became orphaned: its gist is not shown.
func SyncOrphanedNode(id string) string { return Indent + "node " + id + " [orphaned]\n" }

// SyncEdge is an updated edge, its notes shown (NotedEdge).
func SyncEdge(key string, notes []string) string {
	return Indent + "edge " + NotedEdge(key, notes) + "\n"
}

// SyncDeletedEdge is a deleted edge.
func SyncDeletedEdge(key string) string { return Indent + "deleted edge " + key + "\n" }

// SyncDeletedNode is a deleted node.
func SyncDeletedNode(id string) string { return Indent + "deleted node " + id + "\n" }

// SyncCompaction counts a compaction's moves in a graph.
func SyncCompaction(archived, restored, orphaned, pruned int) string {
	return fmt.Sprintf("%scompaction: %d archived, %d restored, %d orphaned, %d pruned\n", Indent, archived, restored, orphaned, pruned)
}

// NotedEdge is an edge on one line with its notes: "from --rel--> to", then
// " — " and its notes joined by "; ", each note's white space (line breaks
// included) collapsed to single spaces.
func NotedEdge(key string, notes []string) string {
	if len(notes) == 0 {
		return key
	}
	flat := make([]string, len(notes))
	for i, n := range notes {
		flat[i] = strings.Join(strings.Fields(n), " ")
	}
	return key + " — " + strings.Join(flat, "; ")
}
