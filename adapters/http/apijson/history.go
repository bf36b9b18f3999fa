package apijson

import (
	"time"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/changes"
)

// The shapes of GET /api/history and POST /api/undo (docs/design/trust.md#history-and-undo).

// EdgeRef names an edge by its key.
type EdgeRef struct {
	From string `json:"from"`
	To   string `json:"to"`
	Rel  string `json:"rel"`
}

// TierChange is the tier change of a move entry.
type TierChange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// FieldDiff is one field of a readable diff: its text before and after
// (lists one item a line).
type FieldDiff struct {
	Field  string `json:"field"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// ItemChange is one node or edge as a change left it.
type ItemChange struct {
	Item   string      `json:"item"` // node or edge
	ID     string      `json:"id,omitempty"`
	Edge   *EdgeRef    `json:"edge,omitempty"`
	Before any         `json:"before"`
	After  any         `json:"after"`
	Tier   *TierChange `json:"tier,omitempty"`
	Diff   []FieldDiff `json:"diff"`
}

// HistoryEntry is one entry of GET /api/history.
type HistoryEntry struct {
	Seq       uint64 `json:"seq"`
	Time      string `json:"time"`
	SessionID string `json:"session_id"`
	Principal string `json:"principal"`
	Op        string `json:"op"`
	ItemChange
	// Detail and Items, for an entry of the whole graph (item "graph").
	Detail string       `json:"detail,omitempty"`
	Items  []ItemChange `json:"items,omitempty"`
}

func timeOf(t domain.Micros) string {
	return time.UnixMicro(int64(t)).UTC().Format(time.RFC3339Nano)
}

func itemChangeOf(c domain.ItemChange) ItemChange {
	j := ItemChange{Item: "node", ID: c.ID, Diff: []FieldDiff{}}
	if c.Edge {
		j.Item, j.ID = "edge", ""
		j.Edge = &EdgeRef{From: c.Key.From, To: c.Key.To, Rel: c.Key.Rel}
		if c.BeforeEdge != nil {
			j.Before = EdgeOf(c.BeforeEdge)
		}
		if c.AfterEdge != nil {
			j.After = EdgeOf(c.AfterEdge)
		}
	} else {
		if c.BeforeNode != nil {
			j.Before = NodeOf(c.BeforeNode)
		}
		if c.AfterNode != nil {
			j.After = NodeOf(c.AfterNode)
		}
	}
	if c.Tier != nil {
		j.Tier = &TierChange{From: c.Tier.From, To: c.Tier.To}
	}
	for _, d := range changes.Diff(c) {
		j.Diff = append(j.Diff, FieldDiff{Field: d.Field, Before: d.Before, After: d.After})
	}
	return j
}

// HistoryEntryOf is the API shape of e.
func HistoryEntryOf(e domain.HistoryEntry) HistoryEntry {
	j := HistoryEntry{Seq: e.Seq, Time: timeOf(e.Time), SessionID: e.Session, Principal: e.Principal, Op: string(e.Op)}
	if !e.Graph {
		j.ItemChange = itemChangeOf(e.ItemChange)
		return j
	}
	j.ItemChange = ItemChange{Item: "graph", Diff: []FieldDiff{}}
	j.Detail = e.Detail
	j.Items = make([]ItemChange, 0, len(e.Items))
	for _, c := range e.Items {
		j.Items = append(j.Items, itemChangeOf(c))
	}
	return j
}

// UndoStep is one item of an undo: applied (action, and seq once written)
// or skipped (reason).
type UndoStep struct {
	Item   string   `json:"item"`
	ID     string   `json:"id,omitempty"`
	Edge   *EdgeRef `json:"edge,omitempty"`
	Action string   `json:"action,omitempty"`
	Seq    *uint64  `json:"seq,omitempty"`
	Reason string   `json:"reason,omitempty"`
}

func stepRef(edge bool, id string, k domain.EdgeKey) UndoStep {
	if edge {
		return UndoStep{Item: "edge", Edge: &EdgeRef{From: k.From, To: k.To, Rel: k.Rel}}
	}
	return UndoStep{Item: "node", ID: id}
}

// History is the body of GET /api/history.
type History struct {
	Level         string         `json:"level"`
	ProjectPath   *string        `json:"project_path"`
	Entries       []HistoryEntry `json:"entries"`
	NextBeforeSeq *uint64        `json:"next_before_seq"`
}

// HistoryOf is the API shape of a history page.
func HistoryOf(res app.HistoryResult) History {
	out := History{Level: string(res.Level), Entries: make([]HistoryEntry, 0, len(res.Entries))}
	if res.Project != "" {
		p := res.Project
		out.ProjectPath = &p
	}
	for _, e := range res.Entries {
		out.Entries = append(out.Entries, HistoryEntryOf(e))
	}
	if res.NextBeforeSeq != 0 {
		n := res.NextBeforeSeq
		out.NextBeforeSeq = &n
	}
	return out
}

// Undo is the body of POST /api/undo: the result of each graph the undo
// covered, each in its own commit, and every graph's steps together
// (applied, skipped) for a client that reads one list. Level and
// ProjectPath name the graph when the undo covered one.
type Undo struct {
	Level       string      `json:"level,omitempty"`
	ProjectPath *string     `json:"project_path,omitempty"`
	DryRun      bool        `json:"dry_run"`
	Graphs      []UndoGraph `json:"graphs"`
	Applied     []UndoStep  `json:"applied"`
	Skipped     []UndoStep  `json:"skipped"`
}

// UndoGraph is what an undo did in one graph; Error says why it could not
// be done there when it was done in the others.
type UndoGraph struct {
	Level       string     `json:"level"`
	ProjectPath *string    `json:"project_path"`
	Applied     []UndoStep `json:"applied"`
	Skipped     []UndoStep `json:"skipped"`
	Error       string     `json:"error,omitempty"`
}

// UndoResultOf is the API shape of an undo.
func UndoResultOf(res app.UndoResult) Undo {
	out := Undo{DryRun: res.DryRun, Graphs: make([]UndoGraph, 0, len(res.Graphs)), Applied: []UndoStep{}, Skipped: []UndoStep{}}
	for _, g := range res.Graphs {
		ug := undoGraphOf(g, res.DryRun)
		out.Graphs = append(out.Graphs, ug)
		out.Applied = append(out.Applied, ug.Applied...)
		out.Skipped = append(out.Skipped, ug.Skipped...)
	}
	if len(out.Graphs) == 1 {
		out.Level, out.ProjectPath = out.Graphs[0].Level, out.Graphs[0].ProjectPath
	}
	return out
}

func undoGraphOf(g app.GraphUndo, dryRun bool) UndoGraph {
	out := UndoGraph{Level: string(g.Level), Applied: make([]UndoStep, 0, len(g.Applied)), Skipped: make([]UndoStep, 0, len(g.Skipped))}
	if g.Project != "" {
		p := g.Project
		out.ProjectPath = &p
	}
	if g.Err != nil {
		out.Error = g.Err.Error()
	}
	for _, st := range g.Applied {
		j := stepRef(st.Edge, st.ID, st.Key)
		j.Action = st.Action
		if !dryRun {
			seq := st.Seq
			j.Seq = &seq
		}
		out.Applied = append(out.Applied, j)
	}
	for _, sk := range g.Skipped {
		j := stepRef(sk.Edge, sk.ID, sk.Key)
		j.Reason = sk.Reason
		out.Skipped = append(out.Skipped, j)
	}
	return out
}
