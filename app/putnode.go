package app

import (
	"context"

	"github.com/kg-memory/kg/app/filecheck"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/duplicates"
	"github.com/kg-memory/kg/domain/secretscreen"
	"github.com/kg-memory/kg/ports"
)

// PutNode is kg_put_node: it creates or merges a node in the graph named by
// the scope, runs compaction as part of the same write, and returns once
// both are durable.
func (s *Service) PutNode(ctx context.Context, sc Scope, in domain.NodeInput) (_ PutNodeResult, err error) {
	t, err := s.scope.resolve(ctx, sc)
	if err != nil {
		return PutNodeResult{}, err
	}
	defer s.countOp(t.session, &err)
	k, err := t.key(sc.Level)
	if err != nil {
		return PutNodeResult{}, err
	}
	// Reject bad input before a graph is loaded for it, and before the
	// secret screen reads it. Graph.PutNode checks it again: a redaction
	// changes the text after this check, and the graph holds its limits for
	// every writer (merge, import, undo), not only this one.
	if in, err = t.relativeNode(k, in).Validate(); err != nil {
		return PutNodeResult{}, err
	}
	in, redacted, err := secretscreen.Node(in, s.cfg.Secrets)
	if err != nil {
		return PutNodeResult{}, err
	}
	e, err := s.store.Get(ctx, k)
	if err != nil {
		return PutNodeResult{}, err
	}
	res := PutNodeResult{Level: k.Level, Project: k.Project, Redacted: redacted}
	// The files the node names are read before the write, outside the
	// graph's lock (docs/design/trust.md#staleness).
	root := s.stamps.FilesRoot(t.root, k)
	var stamps []domain.FileStamp
	if root != "" {
		stamps = s.stamps.HashNamed(ctx, root, filecheck.NodeFilesBefore(e, in.ID, in.Touches))
		if t.root != "" {
			e.FilesRoot.Store(&root)
		}
	}
	// The write counts a use of the node by its session, in the same save,
	// before its compaction run (docs/design/compaction.md#the-use-count).
	var counted []string
	if t.session != "" {
		counted = s.sessions.ClaimCounts(t.session, k, []string{in.ID})
	}
	err = s.store.Write(ctx, e, t.session, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		var dups []duplicates.Match
		if _, exists := g.Node(in.ID); !exists {
			// Only a new node is checked (docs/design/trust.md#duplicates).
			dups = duplicates.Possible(g, in.ID, in.Gist)
		}
		n, err := g.PutNode(in, at)
		if err != nil {
			return nil, err
		}
		res.PossibleDuplicates = dups
		if root != "" {
			g.RecordFiles(in.ID, filecheck.KeepNamed(g, in.ID, stamps))
			n, _ = g.Node(in.ID)
		}
		if len(counted) > 0 {
			g.CountUse(in.ID, at.Now)
			n, _ = g.Node(in.ID)
		}
		ev := ports.GraphEvent(ports.EventNodeUpdated, k, n.Version.Seq, at.Session)
		ev.Node = n
		moves, cev := s.compactor.run(g, at)
		res.Compaction = moves
		res.Node, _ = g.Node(in.ID) // its tier after the run
		return append([]ports.Event{ev}, cev...), nil
	})
	if err != nil {
		s.sessions.UnclaimCounts(t.session, k, counted)
		return PutNodeResult{}, err
	}
	// A session is not reminded of what it just wrote
	// (docs/design/hooks.md#sessions-and-the-seen-set).
	s.sessions.See(t.session, ports.SeenKey(k.Level, in.ID))
	return res, nil
}
