package undo

import (
	"fmt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

// Retier is the action of a step that moves a node back to the tier a
// person's archive took it from (docs/decisions/0106-archive-by-hand.md).
const Retier = "retier"

// archiveUndone is one node the changes undone archived by hand: the tier
// it had before the first of them, and the tier the last left it in.
type archiveUndone struct {
	id       string
	from, to string
}

// archivesUndone gathers, in the order of their first archive, the nodes
// that the archive entries target names moved. Compaction's moves and a
// read's promotions are never undone; a person's archive is.
func archivesUndone(entries []domain.HistoryEntry, target Target) []archiveUndone {
	at := map[string]int{}
	var out []archiveUndone
	for _, e := range entries {
		if e.Op != domain.HistoryArchive || e.Graph || e.Edge || e.Tier == nil || !target.holds(e) {
			continue
		}
		if i, ok := at[e.ID]; ok {
			out[i].to = e.Tier.To
			continue
		}
		at[e.ID] = len(out)
		out = append(out, archiveUndone{id: e.ID, from: e.Tier.From, to: e.Tier.To})
	}
	return out
}

// retier plans moving each node archived by hand back to its tier: only a
// node still in the tier the archive left it in; one a read or compaction
// moved since is left where it is, and said so unless it is back already.
func (pl *undoPlanner) retier(archived []archiveUndone) {
	for _, a := range archived {
		ref := itemRef{id: a.id}
		from, err := compaction.ParseTier(a.from)
		if err != nil {
			pl.skip(ref, fmt.Sprintf("the log names its tier before as %q", a.from))
			continue
		}
		cur, ok := pl.g.Node(a.id)
		switch {
		case !ok:
			pl.skip(ref, "deleted since")
		case cur.Tier == from:
			// already back, by a read that promoted it
		case cur.Tier.String() != a.to:
			pl.skip(ref, fmt.Sprintf("moved to %s since", cur.Tier))
		default:
			pl.retiers = append(pl.retiers, Step{ID: a.id, Action: Retier, Tier: from})
		}
	}
}
