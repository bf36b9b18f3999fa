package ports

import (
	"context"

	"github.com/kg-memory/kg/domain"
)

// GraphRepository loads and durably commits graphs.
//
// Implementations must be safe for concurrent use across different graphs;
// calls for one graph are serialised by the caller (the app's store holds a
// per-graph committer), so an implementation never sees two Commits of the
// same graph at once.
type GraphRepository interface {
	// Load returns the stored state of the graph named by key.
	//   - A graph never stored returns empty data (no nodes, Seq 0) and nil.
	//   - A damaged graph that could be recovered from its previous good
	//     version returns that version and nil (the adapter logs the damage
	//     and keeps the damaged copy).
	//   - A graph that cannot be loaded at all returns an error whose
	//     domain.KindOf is domain.KindUnavailable and whose message names
	//     the file or item at fault.
	Load(ctx context.Context, key domain.GraphKey) (domain.GraphData, error)

	// Commit durably stores the changes named by cs, reading their current
	// values from g; g is not modified during the call. It returns nil only
	// once the change is durable (fsync'd, or a committed transaction). On
	// error nothing acknowledged before is lost and the stored graph is
	// either the old or the new version; the error's kind is
	// domain.KindUnavailable. An empty cs with cs.Meta false may be a no-op.
	Commit(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet) error

	// List returns every stored project graph, sorted by slug. The user
	// graph is not listed.
	List(ctx context.Context) ([]StoredGraph, error)
}

// StoredGraph describes one stored project graph.
type StoredGraph struct {
	Key  domain.GraphKey
	Slug string // the folder or bucket name the graph is stored under
	// Summary is what a listing shows of the graph as last committed,
	// kept by the repository in the same commit as each change, or nil
	// when the repository keeps none: the app then reads the graph for
	// its counts (docs/design/team.md#scale).
	Summary *GraphSummary
}

// GraphSummary is a stored graph's counts as of its last commit: what
// GET /api/projects and `kg project list` show without loading it.
type GraphSummary struct {
	Stats domain.Stats
	// LastChange is the newest version or tombstone time any commit
	// stored (domain.GraphData.LastChange when it was committed): it
	// never goes back, though the item that bore it may be gone.
	LastChange domain.Micros
}

// GraphReleaser is implemented by a GraphRepository that keeps something of
// a graph between calls — caches of its encoded items, what it knows of its
// files (the json backend) — so that a graph the app unloads
// (docs/design/storage.md#unloading) costs nothing once it is gone. A
// repository whose per-graph state is the stored graph itself (memory), or
// that keeps none (bolt), does not implement it.
type GraphReleaser interface {
	// Release forgets what the repository keeps of the graph named by key.
	// The app calls it after the graph left its cache, with no commit or
	// checkpoint of it in flight; a Load, Commit or Checkpoint that follows,
	// or that runs at the same time for a graph loaded afresh, reads what
	// it needs from storage again. Nothing stored changes.
	Release(key domain.GraphKey)
}
