package mcp

// The structured outputs of the tools. Their JSON Schemas, generated from
// these types, are the tools' outputSchema (tools.go), so a field added here
// shows up in the schema snapshot under testdata/. Times are RFC 3339 in
// UTC; absent times are left out.

// readOutput is the structured result of kg_read.
type readOutput struct {
	SessionID  string    `json:"session_id" jsonschema:"the session to pass to every later call"`
	NewSession bool      `json:"new_session" jsonschema:"true when this call started the session"`
	User       *graphOut `json:"user,omitempty" jsonschema:"the full read of the user graph (absent for a read by id)"`
	Project    *graphOut `json:"project,omitempty" jsonschema:"the full read of the session's project graph (absent without a project or for a read by id)"`
	Nodes      []nodeOut `json:"nodes,omitempty" jsonschema:"the nodes read by id, in request order"`
}

// graphOut is the full read of one graph.
type graphOut struct {
	Level           string      `json:"level" jsonschema:"user or project"`
	Project         string      `json:"project,omitempty" jsonschema:"the project path, for the project graph"`
	Name            string      `json:"name,omitempty" jsonschema:"the project folder's name"`
	Active          []activeOut `json:"active" jsonschema:"active nodes by creation time then id"`
	Archived        []string    `json:"archived" jsonschema:"archived node ids by id; kg_read with id restores one"`
	Edges           []edgeOut   `json:"edges" jsonschema:"shown edges by from, rel, to"`
	Health          healthOut   `json:"health"`
	ArchivedOmitted int         `json:"archived_omitted,omitempty" jsonschema:"archived ids left out to keep the read under its size cap; kg_search finds them"`
	EdgesOmitted    int         `json:"edges_omitted,omitempty" jsonschema:"edges to archived nodes left out to keep the read under its size cap"`
	Unavailable     string      `json:"unavailable,omitempty" jsonschema:"set when this graph cannot be read: which graph and why; the rest of the read is served"`
}

// activeOut is an active node in the full read.
type activeOut struct {
	ID   string `json:"id"`
	Gist string `json:"gist"`
}

// edgeOut is an edge by its identity.
type edgeOut struct {
	From string `json:"from"`
	Rel  string `json:"rel"`
	To   string `json:"to"`
}

// healthOut is the HEALTH line of a graph.
type healthOut struct {
	Active          int     `json:"active" jsonschema:"active nodes"`
	Archived        int     `json:"archived" jsonschema:"archived nodes"`
	Orphaned        int     `json:"orphaned" jsonschema:"orphaned nodes (invisible in the full read)"`
	Edges           int     `json:"edges" jsonschema:"shown edges"`
	Unconnected     int     `json:"unconnected" jsonschema:"active nodes with no shown edge"`
	AvgEdgesPerNode float64 `json:"avg_edges_per_node"`
	Tokens          int     `json:"tokens" jsonschema:"token estimate of the full read of this graph"`
	MaxTokens       int     `json:"max_tokens" jsonschema:"token budget"`
	OverBudget      bool    `json:"over_budget"`
}

// nodeOut is a node read by id, in full.
type nodeOut struct {
	Level          string       `json:"level"`
	Project        string       `json:"project,omitempty"`
	ID             string       `json:"id"`
	Tier           string       `json:"tier" jsonschema:"active, archived or orphaned"`
	WasTier        string       `json:"was_tier" jsonschema:"the tier before this read; archived or orphaned means the read restored it"`
	Gist           string       `json:"gist"`
	Notes          []string     `json:"notes"`
	Touches        []string     `json:"touches"`
	Version        uint64       `json:"version"`
	Created        string       `json:"created,omitempty"`
	LastWritten    string       `json:"last_written,omitempty"`
	Out            []edgeEndOut `json:"edges_out"`
	In             []edgeEndOut `json:"edges_in"`
	Rescued        []string     `json:"rescued,omitempty" jsonschema:"orphaned neighbours this read made archived again"`
	RecallNotSaved string       `json:"recall_not_saved,omitempty" jsonschema:"set when the restore could not be saved: the content is shown, the tiers reverted"`
}

// edgeEndOut is an edge seen from one of its ends.
type edgeEndOut struct {
	From       string   `json:"from"`
	Rel        string   `json:"rel"`
	To         string   `json:"to"`
	Notes      []string `json:"notes,omitempty"`
	OtherTier  string   `json:"other_tier,omitempty" jsonschema:"the other end's tier; absent when it is a reference (file, URL, unknown id)"`
	OtherLevel string   `json:"other_level,omitempty" jsonschema:"the level of the graph the other end was found in"`
}

// searchOutput is the structured result of kg_search.
type searchOutput struct {
	Query string   `json:"query"`
	Hits  []hitOut `json:"hits" jsonschema:"by score, then id"`
}

// hitOut is one search hit.
type hitOut struct {
	Level   string   `json:"level"`
	Project string   `json:"project,omitempty"`
	ID      string   `json:"id"`
	Tier    string   `json:"tier"`
	Gist    string   `json:"gist"`
	Notes   []string `json:"notes"`
	Score   float64  `json:"score" jsonschema:"reciprocal-rank-fusion score, 4 decimals"`
}

// movesOut is what a compaction run moved.
type movesOut struct {
	Archived []string `json:"archived,omitempty"`
	Restored []string `json:"restored,omitempty"`
	Orphaned []string `json:"orphaned,omitempty"`
	Pruned   []string `json:"pruned,omitempty"`
}

// putNodeOutput is the structured result of kg_put_node.
type putNodeOutput struct {
	Level      string    `json:"level"`
	Project    string    `json:"project,omitempty"`
	ID         string    `json:"id"`
	Version    uint64    `json:"version"`
	Compaction *movesOut `json:"compaction,omitempty" jsonschema:"what the compaction run this write triggered moved, if anything"`
}

// putEdgeOutput is the structured result of kg_put_edge.
type putEdgeOutput struct {
	Level      string    `json:"level"`
	Project    string    `json:"project,omitempty"`
	From       string    `json:"from"`
	Rel        string    `json:"rel"`
	To         string    `json:"to"`
	Version    uint64    `json:"version"`
	Compaction *movesOut `json:"compaction,omitempty"`
}

// deleteNodeOutput is the structured result of kg_delete_node.
type deleteNodeOutput struct {
	Level        string `json:"level"`
	Project      string `json:"project,omitempty"`
	ID           string `json:"id"`
	EdgesDeleted int    `json:"edges_deleted"`
}

// deleteEdgeOutput is the structured result of kg_delete_edge.
type deleteEdgeOutput struct {
	Level   string `json:"level,omitempty"`
	Project string `json:"project,omitempty"`
	From    string `json:"from"`
	Rel     string `json:"rel"`
	To      string `json:"to"`
	Deleted bool   `json:"deleted" jsonschema:"false when no such edge existed"`
}

// syncOutput is the structured result of kg_sync.
type syncOutput struct {
	Empty   bool          `json:"empty" jsonschema:"true when no other session changed anything"`
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
}

// syncItemOut is one change.
type syncItemOut struct {
	Kind string `json:"kind" jsonschema:"node, edge, deleted_node or deleted_edge"`
	ID   string `json:"id,omitempty"`
	Tier string `json:"tier,omitempty"`
	Gist string `json:"gist,omitempty" jsonschema:"absent for an orphaned node"`
	From string `json:"from,omitempty"`
	Rel  string `json:"rel,omitempty"`
	To   string `json:"to,omitempty"`
}

// progressOutput is the structured result of kg_progress.
type progressOutput struct {
	TaskID string         `json:"task_id"`
	Level  string         `json:"level"`
	Saved  bool           `json:"saved" jsonschema:"true when this call stored a state"`
	Found  bool           `json:"found" jsonschema:"true when a stored state was found or saved"`
	State  map[string]any `json:"state,omitempty" jsonschema:"the task state"`
}
