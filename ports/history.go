package ports

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// HistoryRepository is implemented by a GraphRepository that keeps each
// graph's change log (docs/design/trust.md#history-and-undo): every
// backend does. The app commits through CommitLogged whenever the
// repository implements it.
type HistoryRepository interface {
	// CommitLogged is GraphRepository.Commit that also stores h, the
	// change log entries of the batch, in the same durable commit: once
	// it returns nil both are durable, and after a crash at any instant
	// either both are stored or neither (no change without its entry, no
	// entry without its change). An empty h stores no entry.
	CommitLogged(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet, h domain.HistoryBatch) error

	// History returns the entries of the graph's change log that q
	// selects, newest first, at most q.Limit of them. A graph never
	// stored has none.
	History(ctx context.Context, key domain.GraphKey, q HistoryQuery) ([]domain.HistoryEntry, error)

	// PruneHistory removes the entries made before cutoff. A backend
	// that stores the log in segments may keep a segment that holds a
	// newer entry whole; History never returns an entry older than
	// q.NotBefore, which the app sets to the cutoff.
	PruneHistory(ctx context.Context, key domain.GraphKey, cutoff domain.Micros) error
}

// HistoryQuery selects entries of a change log. Zero fields select
// everything.
type HistoryQuery struct {
	// ID selects the entries of one node: the node's own, those of the
	// edges it is an end of, and graph entries that changed it.
	ID string
	// Session selects the entries one session made.
	Session string
	// SinceSeq selects the entries whose seq is above it; BeforeSeq (when
	// not 0) those whose seq is below it (paging).
	SinceSeq  uint64
	BeforeSeq uint64
	// NotBefore selects the entries made at or after it.
	NotBefore domain.Micros
	// Limit is the most entries returned; 0 for no limit.
	Limit int
}

// Match reports whether q selects e.
func (q HistoryQuery) Match(e *domain.HistoryEntry) bool {
	if e.Seq <= q.SinceSeq || (q.BeforeSeq != 0 && e.Seq >= q.BeforeSeq) || e.Time < q.NotBefore {
		return false
	}
	if q.Session != "" && e.Session != q.Session {
		return false
	}
	if q.ID == "" {
		return true
	}
	if e.Graph {
		for _, c := range e.Items {
			if names(c, q.ID) {
				return true
			}
		}
		return false
	}
	return names(e.ItemChange, q.ID)
}

func names(c domain.ItemChange, id string) bool {
	if c.Edge {
		return c.Key.From == id || c.Key.To == id
	}
	return c.ID == id
}

// The stored form of a change log batch, the same JSON on every backend
// that stores bytes: {"seq":[before,after],"entries":[…]}.

type historyBatchJSON struct {
	Seq     [2]uint64          `json:"seq"`
	Entries []historyEntryJSON `json:"entries"`
}

type historyEntryJSON struct {
	Seq       uint64           `json:"seq"`
	Time      domain.Micros    `json:"ts_us"`
	Session   string           `json:"session,omitempty"`
	Principal string           `json:"principal,omitempty"`
	Op        domain.HistoryOp `json:"op"`
	Graph     bool             `json:"graph,omitempty"`
	Detail    string           `json:"detail,omitempty"`
	Items     []itemChangeJSON `json:"items,omitempty"`
	Item      *itemChangeJSON  `json:"item,omitempty"`
}

type itemChangeJSON struct {
	Node   string     `json:"node,omitempty"`
	Edge   *[3]string `json:"edge,omitempty"`
	Before *itemJSON  `json:"before,omitempty"`
	After  *itemJSON  `json:"after,omitempty"`
	Tier   *tierJSON  `json:"tier,omitempty"`
}

type tierJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// itemJSON is a node or an edge as the change log keeps it: its content,
// its tier (nodes) and its version entry. Unknown fields are not kept.
type itemJSON struct {
	Gist      string   `json:"gist,omitempty"`
	Notes     []string `json:"notes,omitempty"`
	Touches   []string `json:"touches,omitempty"`
	Tier      string   `json:"tier,omitempty"`
	V         uint64   `json:"v"`
	Seq       uint64   `json:"seq"`
	TS        int64    `json:"ts_us"`
	Session   string   `json:"session,omitempty"`
	Principal string   `json:"principal,omitempty"`
}

// MarshalHistoryBatch is the stored form of h.
func MarshalHistoryBatch(h domain.HistoryBatch) ([]byte, error) {
	out := historyBatchJSON{Seq: [2]uint64{h.SeqBefore, h.SeqAfter}, Entries: make([]historyEntryJSON, 0, len(h.Entries))}
	for i := range h.Entries {
		e := &h.Entries[i]
		j := historyEntryJSON{Seq: e.Seq, Time: e.Time, Session: e.Session, Principal: e.Principal, Op: e.Op,
			Graph: e.Graph, Detail: e.Detail}
		if e.Graph {
			for _, c := range e.Items {
				j.Items = append(j.Items, changeJSON(c))
			}
		} else {
			c := changeJSON(e.ItemChange)
			j.Item = &c
		}
		out.Entries = append(out.Entries, j)
	}
	return json.Marshal(out)
}

func changeJSON(c domain.ItemChange) itemChangeJSON {
	var j itemChangeJSON
	if c.Edge {
		j.Edge = &[3]string{c.Key.From, c.Key.To, c.Key.Rel}
		j.Before, j.After = edgeJSON(c.BeforeEdge), edgeJSON(c.AfterEdge)
	} else {
		j.Node = c.ID
		j.Before, j.After = nodeJSON(c.BeforeNode), nodeJSON(c.AfterNode)
	}
	if c.Tier != nil {
		j.Tier = &tierJSON{From: c.Tier.From, To: c.Tier.To}
	}
	return j
}

func nodeJSON(n *domain.Node) *itemJSON {
	if n == nil {
		return nil
	}
	return &itemJSON{Gist: n.Gist, Notes: n.Notes, Touches: n.Touches, Tier: n.Tier.String(), V: n.Version.V,
		Seq: n.Version.Seq, TS: int64(n.Version.TS), Session: n.Version.Session, Principal: n.Version.Principal}
}

func edgeJSON(e *domain.Edge) *itemJSON {
	if e == nil {
		return nil
	}
	return &itemJSON{Notes: e.Notes, V: e.Version.V, Seq: e.Version.Seq, TS: int64(e.Version.TS),
		Session: e.Version.Session, Principal: e.Version.Principal}
}

// UnmarshalHistoryBatch reads the stored form of a change log batch.
func UnmarshalHistoryBatch(b []byte) (domain.HistoryBatch, error) {
	var j historyBatchJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return domain.HistoryBatch{}, fmt.Errorf("change log batch: %w", err)
	}
	h := domain.HistoryBatch{SeqBefore: j.Seq[0], SeqAfter: j.Seq[1], Entries: make([]domain.HistoryEntry, 0, len(j.Entries))}
	for _, je := range j.Entries {
		e := domain.HistoryEntry{Seq: je.Seq, Time: je.Time, Session: je.Session, Principal: je.Principal, Op: je.Op,
			Graph: je.Graph, Detail: je.Detail}
		if je.Graph {
			for _, c := range je.Items {
				e.Items = append(e.Items, changeOf(c))
			}
		} else if je.Item != nil {
			e.ItemChange = changeOf(*je.Item)
		}
		h.Entries = append(h.Entries, e)
	}
	return h, nil
}

func changeOf(j itemChangeJSON) domain.ItemChange {
	var c domain.ItemChange
	if j.Edge != nil {
		c.Edge, c.Key = true, domain.EdgeKey{From: j.Edge[0], To: j.Edge[1], Rel: j.Edge[2]}
		c.BeforeEdge, c.AfterEdge = edgeOf(c.Key, j.Before), edgeOf(c.Key, j.After)
	} else {
		c.ID = j.Node
		c.BeforeNode, c.AfterNode = nodeOf(c.ID, j.Before), nodeOf(c.ID, j.After)
	}
	if j.Tier != nil {
		c.Tier = &domain.TierChange{From: j.Tier.From, To: j.Tier.To}
	}
	return c
}

func nodeOf(id string, j *itemJSON) *domain.Node {
	if j == nil {
		return nil
	}
	return &domain.Node{ID: id, Gist: j.Gist, Notes: j.Notes, Touches: j.Touches, Tier: tierOf(j.Tier),
		Version: domain.Version{V: j.V, Seq: j.Seq, TS: domain.Micros(j.TS), Session: j.Session, Principal: j.Principal}}
}

func edgeOf(k domain.EdgeKey, j *itemJSON) *domain.Edge {
	if j == nil {
		return nil
	}
	return &domain.Edge{From: k.From, To: k.To, Rel: k.Rel, Notes: j.Notes,
		Version: domain.Version{V: j.V, Seq: j.Seq, TS: domain.Micros(j.TS), Session: j.Session, Principal: j.Principal}}
}

func tierOf(s string) domain.Tier {
	switch strings.ToLower(s) {
	case "archived":
		return domain.Archived
	case "orphaned":
		return domain.Orphaned
	}
	return domain.Active
}

// HistoryCollector gathers what a HistoryQuery selects from batches given
// newest first, as a backend reads its log backwards.
type HistoryCollector struct {
	q   HistoryQuery
	out []domain.HistoryEntry
}

// NewHistoryCollector returns a collector for q.
func NewHistoryCollector(q HistoryQuery) *HistoryCollector { return &HistoryCollector{q: q} }

// Add adds the entries of b that the query selects, newest first, and
// reports whether more are wanted: false once the limit is reached, or
// when b and every older batch lie below the query's SinceSeq or
// NotBefore.
func (c *HistoryCollector) Add(b domain.HistoryBatch) bool {
	for i := len(b.Entries) - 1; i >= 0; i-- {
		e := &b.Entries[i]
		if c.q.Match(e) {
			c.out = append(c.out, *e)
			if c.q.Limit > 0 && len(c.out) >= c.q.Limit {
				return false
			}
		}
	}
	return b.SeqAfter > c.q.SinceSeq && (len(b.Entries) == 0 || b.Entries[0].Time >= c.q.NotBefore)
}

// Entries returns what was gathered, newest first.
func (c *HistoryCollector) Entries() []domain.HistoryEntry { return c.out }
