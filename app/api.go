package app

// This file declares the surface of the app layer that the inbound adapters
// (MCP, REST, WebSocket, cmd) use: requests, results and the Service
// methods. Bodies live beside it, one use case per file.

import (
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/changes"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/duplicates"
	"github.com/kg-memory/kg/domain/fullread"
	"github.com/kg-memory/kg/domain/graphsearch"
	"github.com/kg-memory/kg/domain/secrets"
	"github.com/kg-memory/kg/ports"
)

// Scope names the graph a request is about. A project is named by the
// session's project or by ProjectPath (absolute); naming two different
// projects is an invalid request. Level may be empty where the use case
// allows it (delete, read by id: both graphs are tried).
type Scope struct {
	SessionID   string
	ProjectPath string
	// ProjectKey is the project's key as the client resolved it
	// (docs/design/team.md#project-keys): on a team server it names the
	// project, before ProjectPath; elsewhere a ProjectPath beside it is
	// used and it is only checked.
	ProjectKey string
	Level      domain.Level
}

// ReadRequest is kg_read: start or continue a session, and read memory.
type ReadRequest struct {
	CWD        string       // absolute project root; starts a session when SessionID is empty
	ProjectKey string       // the project's key (Scope.ProjectKey); with or instead of CWD
	SessionID  string       // continue this session
	IDs        []string     // read these nodes by id; empty = the full read
	Level      domain.Level // restricts a read by id; empty = both graphs
}

// ReadResult is the outcome of a read.
type ReadResult struct {
	SessionID  string
	NewSession bool
	Full       *FullRead  // the full read, when no ids were asked for
	Nodes      []NodeRead // reads by id, in request order (an id in both graphs: user first)
	// Stale is set when the database could not be asked what other
	// servers committed: the read is from memory and may be behind
	// (team mode, docs/design/team.md#when-the-database-is-away).
	Stale bool
}

// FullRead is the full read of the user graph and the session's project.
type FullRead struct {
	User    GraphView
	Project *GraphView // nil when the session has no project
}

// GraphView is the full-read view of one graph.
type GraphView struct {
	Key  domain.GraphKey
	Name string // the project folder's base name; "" for the user graph
	View fullread.View
	// Unavailable is set, and View empty, when the graph cannot be loaded:
	// it says which graph and why. The rest of the read is served.
	Unavailable string
}

// NodeRead is one node read by id.
type NodeRead struct {
	Level   domain.Level
	Project string // project path for project-level nodes
	Node    *domain.Node
	WasTier domain.Tier
	Rescued []string
	Out, In []EdgeEnd
	// RecallNotSaved is set when the read promoted the node but that write
	// could not be made durable: the content is shown, the tiers reverted.
	RecallNotSaved string
}

// EdgeEnd is an edge seen from one of its ends, with the other end's tier
// when it names a node (of this graph, or of the user graph from a project).
type EdgeEnd struct {
	Edge       *domain.Edge
	Other      string
	OtherTier  *domain.Tier // nil: a reference (file, URL, unknown id)
	OtherLevel domain.Level // level of the graph the other end was found in
}

// SearchRequest is kg_search.
type SearchRequest struct {
	Query       string
	SessionID   string
	ProjectPath string
	ProjectKey  string       // Scope.ProjectKey
	Level       domain.Level // empty: user graph and the project graph(s)
	Limit       int          // 0: default 20; at most 100
	// All searches the user graph and every project graph, loading those
	// not loaded (the web page's one box); it names no session, project
	// or level.
	All bool
}

// SearchResult is what a search found, and which graphs it could not look
// in.
type SearchResult struct {
	Hits []Hit
	// Corrections are the terms that matched nothing and the word of the
	// graphs searched in their place (docs/design/mcp.md#kg_search).
	Corrections []graphsearch.Correction
	// Nearest is given when nothing matched: the nearest spelling of each
	// term that matched nothing.
	Nearest []graphsearch.Suggestion
	// Unavailable names each graph left out because it cannot be loaded,
	// and why, one line each (a search without a level only).
	Unavailable []string
	// Stale is set when the search ran on memory that may be behind what
	// other servers committed (as ReadResult.Stale).
	Stale bool
}

// Hit is one search result.
type Hit struct {
	Level   domain.Level
	Project string // project path, for project-level hits
	Node    *domain.Node
	Score   float64
	Matched []string // the terms (after correction) through which it scored
}

// PutNodeResult is the outcome of kg_put_node.
type PutNodeResult struct {
	Level      domain.Level
	Project    string
	Node       *domain.Node
	Compaction compaction.Moves // what the compaction run this write triggered moved
	// Redacted names each secret the write held, replaced by
	// [REDACTED:<kind>] before it was stored (KG_SECRETS=redact).
	Redacted []secrets.Finding
	// PossibleDuplicates names the nodes a new node may duplicate, by id
	// or gist; the write is made all the same.
	PossibleDuplicates []duplicates.Match
}

// PutEdgeResult is the outcome of kg_put_edge.
type PutEdgeResult struct {
	Level      domain.Level
	Project    string
	Edge       *domain.Edge
	Compaction compaction.Moves
	Redacted   []secrets.Finding // as PutNodeResult.Redacted
}

// DeleteNodeResult is the outcome of kg_delete_node.
type DeleteNodeResult struct {
	Level        domain.Level
	Project      string
	ID           string
	EdgesDeleted int
}

// DeleteEdgeResult is the outcome of kg_delete_edge. A missing edge is not
// an error: Deleted is false.
type DeleteEdgeResult struct {
	Level   domain.Level
	Project string
	Key     domain.EdgeKey
	Deleted bool
}

// SyncResult is what kg_sync reports: per graph, the changes made by others
// since the session's watermark.
type SyncResult struct {
	User        changes.Report
	Project     *changes.Report // nil when the session has no project
	ProjectPath string
	// UserUnavailable and ProjectUnavailable say, when that graph cannot
	// be loaded, which graph and why; its report is then empty and its
	// watermark stays where it was, so its changes are reported once it
	// loads again.
	UserUnavailable, ProjectUnavailable string
}

// Empty reports whether there is nothing to report: no change in any graph,
// and no graph that could not be looked at.
func (r SyncResult) Empty() bool {
	empty := func(s changes.Report) bool {
		return len(s.Items) == 0 && s.Archived == 0 && s.Restored == 0 && s.Orphaned == 0 && s.Pruned == 0
	}
	return empty(r.User) && (r.Project == nil || empty(*r.Project)) && r.UserUnavailable == "" && r.ProjectUnavailable == ""
}

// SessionStats is /api/sessions/{id}/stats.
type SessionStats struct {
	Session   ports.Session
	Agent     string // the agent its hooks said it runs in; "" unsaid
	UserGraph domain.Stats
	Project   *domain.Stats
	Now       domain.Micros // when the stats were taken: what a session's duration is measured to
}

// Health is what /health reports of the app.
type Health struct {
	ActiveSessions int
	LoadedGraphs   int
	Problems       []string // what is damaged or cannot be loaded, one line each naming it
}

// ProjectInfo is one entry of /api/projects.
type ProjectInfo struct {
	Slug        string
	ProjectPath string
	Stats       domain.Stats
	LastChange  domain.Micros
	// Estimate is the token estimate of the graph's full read, against
	// the budget MaxTokens and the target a run brings it down to
	// (docs/design/compaction.md#token-estimate-of-a-graph); zero when
	// the graph could not be read.
	Estimate, MaxTokens, TargetTokens int
}
