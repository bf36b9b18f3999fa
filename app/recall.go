package app

import (
	"context"
	"fmt"
	"iter"
	"slices"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// byID reads the node id of one graph
// (docs/design/compaction.md#reading-a-node-by-id). It reports false when the
// graph has no such node.
//
// An active node is read under the read lock and its read stamp is left for
// the graph's next batch or tick, so the read never waits on disk. An
// archived or orphaned node is promoted (and its orphaned neighbours
// rescued) by a write through the committer, without a compaction run; the
// read returns once that write is durable. If it cannot be saved the tiers
// revert and the read still returns the node, with RecallNotSaved set.
func (gr *graphReader) byID(ctx context.Context, e *graphstore.Entry, session, id string) (NodeRead, bool, error) {
	now := gr.clock.Now()
	e.RLock()
	n, ok := e.Graph().Node(id)
	if !ok {
		e.RUnlock()
		return NodeRead{}, false, nil
	}
	if n.Tier == domain.Active {
		c := *n
		c.LastRead = max(c.LastRead, now)
		rd := nodeRead(e.Graph(), &c, domain.Active)
		e.RUnlock()
		gr.store.Stamp(ctx, e, id, now)
		gr.userTiers(ctx, &rd)
		return rd, true, nil
	}
	e.RUnlock()

	// The read is built inside the change, from the graph the change was
	// applied to: the entry may have been reloaded meanwhile.
	var rd NodeRead
	// The write is logged as a move (docs/decisions/0068-an-identical-put-is-logged.md):
	// the promoted node's new version says what it said, and undo never
	// undoes a move nor counts it as someone else's change.
	err := gr.store.WriteLogged(ctx, e, session, domain.HistoryMove, func(g *domain.Graph, at domain.Stamp) (iter.Seq[ports.Event], error) {
		r, err := g.RecallNode(id, at)
		if err != nil {
			return nil, err
		}
		rd = nodeRead(g, r.Node, r.WasTier)
		rd.Rescued = r.Rescued
		if !r.Promoted() { // promoted by another read meanwhile
			return nil, nil
		}
		ev := ports.GraphEvent(ports.EventNodeRecalled, g.Key(), r.Node.Version.Seq, at.Session)
		ev.Node, ev.Rescued = r.Node, r.Rescued
		return slices.Values([]ports.Event{ev}), nil
	})
	switch {
	case err == nil:
		gr.userTiers(ctx, &rd)
		return rd, true, nil
	case domain.KindOf(err) == domain.KindNotFound: // deleted meanwhile
		return NodeRead{}, false, nil
	case domain.KindOf(err) != domain.KindUnavailable:
		return NodeRead{}, false, err
	}
	e.RLock()
	cur, ok := e.Graph().Node(id)
	if !ok {
		e.RUnlock()
		return NodeRead{}, false, nil
	}
	rd = nodeRead(e.Graph(), cur, cur.Tier)
	e.RUnlock()
	gr.log.Warn("recall not saved", "graph", e.Key().String(), "err", err)
	rd.RecallNotSaved = fmt.Sprintf("the recall could not be saved (the %s is unavailable); the node stays %s", graphName(e.Key()), cur.Tier)
	gr.userTiers(ctx, &rd)
	return rd, true, nil
}

// nodeRead builds the read of node n of graph g with its edges in and out.
// The caller holds g's lock.
func nodeRead(g *domain.Graph, n *domain.Node, was domain.Tier) NodeRead {
	key := g.Key()
	rd := NodeRead{Level: key.Level, Project: key.Project, Node: n, WasTier: was}
	end := func(ed *domain.Edge, other string) EdgeEnd {
		ee := EdgeEnd{Edge: ed, Other: other}
		if o, ok := g.Node(other); ok {
			t := o.Tier
			ee.OtherTier, ee.OtherLevel = &t, key.Level
		}
		return ee
	}
	for _, ed := range g.EdgesOf(n.ID) {
		if ed.From == n.ID {
			rd.Out = append(rd.Out, end(ed, ed.To))
		}
		if ed.To == n.ID {
			rd.In = append(rd.In, end(ed, ed.From))
		}
	}
	return rd
}

// userTiers fills in the tier of edge ends of a project node that name a
// node of the user graph (cross-level edges). It takes the user graph's
// read lock on its own, never while holding a project graph's lock, so
// locks are always taken user graph first.
func (gr *graphReader) userTiers(ctx context.Context, rd *NodeRead) {
	if rd.Level != domain.LevelProject {
		return
	}
	e, err := gr.store.Get(ctx, domain.UserGraphOf(gr.scope.owner(ctx)))
	if err != nil {
		return // the ends stay references
	}
	e.RLock()
	defer e.RUnlock()
	for _, ends := range [][]EdgeEnd{rd.Out, rd.In} {
		for i := range ends {
			if ends[i].OtherTier != nil {
				continue
			}
			if o, ok := e.Graph().Node(ends[i].Other); ok {
				t := o.Tier
				ends[i].OtherTier, ends[i].OtherLevel = &t, domain.LevelUser
			}
		}
	}
}
