package record

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/domain"
)

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
	// Moves holds a run of moves of one write (same time, session and
	// principal) as one stored entry: read back, each is its own entry.
	Moves *movesJSON `json:"moves,omitempty"`
}

// movesJSON is a run of node moves stored compactly (issue 28: a compaction
// run, or the reads that promote, logged an entry of about 130 bytes a
// node): the tier changes once each ("active>archived"), each node as
// [id, index of its tier change], and the seqs as the first alone when
// they follow one another, else one a node.
//
//	{"tiers":["active>archived"],"nodes":[["a",0],["b",0]],"seqs":[41]}
type movesJSON struct {
	Tiers []string   `json:"tiers"`
	Nodes []moveNode `json:"nodes"`
	Seqs  []uint64   `json:"seqs"`
}

// moveNode is one node of a run of moves: [id, tier change].
type moveNode struct {
	ID   string
	Tier int
}

func (m moveNode) MarshalJSON() ([]byte, error) {
	return json.Marshal([2]any{m.ID, m.Tier})
}

func (m *moveNode) UnmarshalJSON(b []byte) error {
	var raw [2]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if err := json.Unmarshal(raw[0], &m.ID); err != nil {
		return err
	}
	return json.Unmarshal(raw[1], &m.Tier)
}

// movableRun returns how many entries from es[0] on form a run of node
// moves of one write that MarshalHistoryBatch stores as one entry.
func movableRun(es []domain.HistoryEntry) int {
	isMove := func(e *domain.HistoryEntry) bool {
		return e.Op == domain.HistoryMove && !e.Graph && !e.Edge && e.Tier != nil
	}
	if len(es) == 0 || !isMove(&es[0]) {
		return 0
	}
	n := 1
	for n < len(es) && isMove(&es[n]) && es[n].Time == es[0].Time && es[n].Session == es[0].Session && es[n].Principal == es[0].Principal {
		n++
	}
	return n
}

// compactMoves is the stored entry of a run of moves.
func compactMoves(run []domain.HistoryEntry) historyEntryJSON {
	j := historyEntryJSON{Seq: run[len(run)-1].Seq, Time: run[0].Time, Session: run[0].Session, Principal: run[0].Principal,
		Op: domain.HistoryMove, Moves: &movesJSON{}}
	tiers := map[string]int{}
	consecutive := true
	for i, e := range run {
		tc := e.Tier.From + ">" + e.Tier.To
		ti, ok := tiers[tc]
		if !ok {
			ti = len(j.Moves.Tiers)
			tiers[tc] = ti
			j.Moves.Tiers = append(j.Moves.Tiers, tc)
		}
		j.Moves.Nodes = append(j.Moves.Nodes, moveNode{ID: e.ID, Tier: ti})
		j.Moves.Seqs = append(j.Moves.Seqs, e.Seq)
		if i > 0 && e.Seq != run[i-1].Seq+1 {
			consecutive = false
		}
	}
	if consecutive {
		j.Moves.Seqs = j.Moves.Seqs[:1]
	}
	return j
}

// expandMoves is the entries a stored run of moves stands for.
func expandMoves(je historyEntryJSON) ([]domain.HistoryEntry, error) {
	m := je.Moves
	if len(m.Seqs) != 1 && len(m.Seqs) != len(m.Nodes) {
		return nil, fmt.Errorf("a run of %d moves has %d seqs", len(m.Nodes), len(m.Seqs))
	}
	out := make([]domain.HistoryEntry, 0, len(m.Nodes))
	for i, n := range m.Nodes {
		if n.Tier < 0 || n.Tier >= len(m.Tiers) {
			return nil, fmt.Errorf("move of %q names tier change %d of %d", n.ID, n.Tier, len(m.Tiers))
		}
		from, to, ok := strings.Cut(m.Tiers[n.Tier], ">")
		if !ok {
			return nil, fmt.Errorf("tier change %q is not from>to", m.Tiers[n.Tier])
		}
		seq := m.Seqs[0] + uint64(i)
		if len(m.Seqs) > 1 {
			seq = m.Seqs[i]
		}
		out = append(out, domain.HistoryEntry{Seq: seq, Time: je.Time, Session: je.Session, Principal: je.Principal, Op: domain.HistoryMove,
			ItemChange: domain.ItemChange{ID: n.ID, Tier: &domain.TierChange{From: from, To: to}}})
	}
	return out, nil
}

type itemChangeJSON struct {
	Node   string     `json:"node,omitempty"`
	Edge   *[3]string `json:"edge,omitempty"`
	Before *itemJSON  `json:"before,omitempty"`
	After  *itemJSON  `json:"after,omitempty"`
	Tier   *tierJSON  `json:"tier,omitempty"`
	// AfterInRecord marks an after left out because the record the batch
	// travels in holds it (MarshalHistoryBatchBeside); never in a batch
	// MarshalHistoryBatch writes.
	AfterInRecord bool `json:"after_in_record,omitempty"`
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
func MarshalHistoryBatch(h domain.HistoryBatch) ([]byte, error) { return marshalHistoryBatch(h, nil) }

// MarshalHistoryBatchBeside is the stored form of h for a record that also
// holds the items the batch wrote: the after of each change inRecord
// reports the record holds as it is logged is left out, marked, so that the
// record carries each body once (jsonfile's journal,
// docs/decisions/0085-one-record-encoding.md). UnmarshalHistoryBatchBeside
// reads it back.
func MarshalHistoryBatchBeside(h domain.HistoryBatch, inRecord func(c *domain.ItemChange) bool) ([]byte, error) {
	return marshalHistoryBatch(h, inRecord)
}

func marshalHistoryBatch(h domain.HistoryBatch, inRecord func(c *domain.ItemChange) bool) ([]byte, error) {
	out := historyBatchJSON{Seq: [2]uint64{h.SeqBefore, h.SeqAfter}, Entries: make([]historyEntryJSON, 0, len(h.Entries))}
	for i := 0; i < len(h.Entries); i++ {
		if n := movableRun(h.Entries[i:]); n > 1 {
			out.Entries = append(out.Entries, compactMoves(h.Entries[i:i+n]))
			i += n - 1
			continue
		}
		e := &h.Entries[i]
		j := historyEntryJSON{Seq: e.Seq, Time: e.Time, Session: e.Session, Principal: e.Principal, Op: e.Op,
			Graph: e.Graph, Detail: e.Detail}
		if e.Graph {
			for _, c := range e.Items {
				j.Items = append(j.Items, changeJSON(c, inRecord))
			}
		} else {
			c := changeJSON(e.ItemChange, inRecord)
			j.Item = &c
		}
		out.Entries = append(out.Entries, j)
	}
	return json.Marshal(out)
}

func changeJSON(c domain.ItemChange, inRecord func(c *domain.ItemChange) bool) itemChangeJSON {
	var j itemChangeJSON
	if c.Edge {
		j.Edge = &[3]string{c.Key.From, c.Key.To, c.Key.Rel}
		j.Before, j.After = edgeJSON(c.BeforeEdge), edgeJSON(c.AfterEdge)
	} else {
		j.Node = c.ID
		j.Before, j.After = nodeJSON(c.BeforeNode), nodeJSON(c.AfterNode)
	}
	if j.After != nil && inRecord != nil && inRecord(&c) {
		j.After, j.AfterInRecord = nil, true
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
	return UnmarshalHistoryBatchBeside(b, nil)
}

// RecordItems gives the items of the record a batch travels in: a node by
// id, an edge by key, each nil when the record does not hold it.
type RecordItems interface {
	Node(id string) *domain.Node
	Edge(k domain.EdgeKey) *domain.Edge
}

// UnmarshalHistoryBatchBeside reads what MarshalHistoryBatchBeside wrote,
// each after it left out taken from items; a batch MarshalHistoryBatch
// wrote reads as with UnmarshalHistoryBatch, and items may then be nil.
func UnmarshalHistoryBatchBeside(b []byte, items RecordItems) (domain.HistoryBatch, error) {
	var j historyBatchJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return domain.HistoryBatch{}, fmt.Errorf("change log batch: %w", err)
	}
	h := domain.HistoryBatch{SeqBefore: j.Seq[0], SeqAfter: j.Seq[1], Entries: make([]domain.HistoryEntry, 0, len(j.Entries))}
	for _, je := range j.Entries {
		if je.Moves != nil {
			moves, err := expandMoves(je)
			if err != nil {
				return domain.HistoryBatch{}, fmt.Errorf("change log batch: %w", err)
			}
			h.Entries = append(h.Entries, moves...)
			continue
		}
		e := domain.HistoryEntry{Seq: je.Seq, Time: je.Time, Session: je.Session, Principal: je.Principal, Op: je.Op,
			Graph: je.Graph, Detail: je.Detail}
		if je.Graph {
			for _, c := range je.Items {
				ic, err := changeOf(c, items)
				if err != nil {
					return domain.HistoryBatch{}, fmt.Errorf("change log batch: %w", err)
				}
				e.Items = append(e.Items, ic)
			}
		} else if je.Item != nil {
			ic, err := changeOf(*je.Item, items)
			if err != nil {
				return domain.HistoryBatch{}, fmt.Errorf("change log batch: %w", err)
			}
			e.ItemChange = ic
		}
		h.Entries = append(h.Entries, e)
	}
	return h, nil
}

func changeOf(j itemChangeJSON, items RecordItems) (domain.ItemChange, error) {
	var c domain.ItemChange
	if j.AfterInRecord {
		after, err := afterInRecord(j, items)
		if err != nil {
			return c, err
		}
		j.After = after
	}
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
	return c, nil
}

// afterInRecord is the after a change left to the record beside it, as the
// log keeps it.
func afterInRecord(j itemChangeJSON, items RecordItems) (*itemJSON, error) {
	var after *itemJSON
	if items != nil && j.Edge != nil {
		after = edgeJSON(items.Edge(domain.EdgeKey{From: j.Edge[0], To: j.Edge[1], Rel: j.Edge[2]}))
	} else if items != nil {
		after = nodeJSON(items.Node(j.Node))
	}
	if after == nil {
		name := strconv.Quote(j.Node)
		if j.Edge != nil {
			name = fmt.Sprintf("edge %q", *j.Edge)
		}
		return nil, fmt.Errorf("the after of %s is left to a record that does not hold it", name)
	}
	return after, nil
}

// SameLoggedNode reports whether the change log keeps a and b alike: the
// after of a change that SameLoggedNode finds alike the record's item need
// not be written beside it.
func SameLoggedNode(a, b *domain.Node) bool {
	return a != nil && b != nil && a.Gist == b.Gist && a.Tier == b.Tier && a.Version == b.Version &&
		slices.Equal(a.Notes, b.Notes) && slices.Equal(a.Touches, b.Touches)
}

// SameLoggedEdge is SameLoggedNode for edges.
func SameLoggedEdge(a, b *domain.Edge) bool {
	return a != nil && b != nil && a.Version == b.Version && slices.Equal(a.Notes, b.Notes)
}

func nodeOf(id string, j *itemJSON) *domain.Node {
	if j == nil {
		return nil
	}
	return &domain.Node{ID: id, Gist: j.Gist, Notes: j.Notes, Touches: j.Touches, Tier: loggedTier(j.Tier),
		Version: domain.Version{V: j.V, Seq: j.Seq, TS: domain.Micros(j.TS), Session: j.Session, Principal: j.Principal}}
}

func edgeOf(k domain.EdgeKey, j *itemJSON) *domain.Edge {
	if j == nil {
		return nil
	}
	return &domain.Edge{From: k.From, To: k.To, Rel: k.Rel, Notes: j.Notes,
		Version: domain.Version{V: j.V, Seq: j.Seq, TS: domain.Micros(j.TS), Session: j.Session, Principal: j.Principal}}
}

// loggedTier is the tier a change log entry names; an entry shows a tier
// and is never loaded as a graph, so a name it does not know reads as active.
func loggedTier(s string) domain.Tier {
	switch strings.ToLower(s) {
	case "archived":
		return domain.Archived
	case "orphaned":
		return domain.Orphaned
	}
	return domain.Active
}
