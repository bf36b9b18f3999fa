package app

import (
	"context"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/changes"
)

// Sync is kg_sync: for the user graph and the session's project graph it
// reports the changes made by others in (watermark, durable seq], then
// moves the watermark to the durable seq. Only Sync moves a watermark, so a
// session's own writes never hide the changes others made before them.
// A graph that cannot be loaded is reported as unavailable and the other
// is synced (docs/decisions/0008-faults-in-one-graph.md); when none can
// be, Sync fails with the load error.
func (s *Service) Sync(ctx context.Context, sessionID string) (_ SyncResult, err error) {
	sess, err := s.scope.sessionFor(ctx, sessionID)
	if err != nil {
		return SyncResult{}, err
	}
	t := target{session: sess.ID, project: sess.ProjectPath, owner: s.scope.owner(ctx)}
	defer s.countOp(t.session, &err)
	// Team mode: what the session was told by another server, and what
	// other servers committed (shared.go).
	if err := s.sessions.Pull(ctx, sess.ID); err != nil {
		return SyncResult{}, err
	}
	s.store.Fresh(ctx, t.keys()...)
	res := SyncResult{ProjectPath: sess.ProjectPath}
	var downs []error
	for _, k := range t.keys() {
		e, down, err := s.reader.spanned(ctx, k)
		if err != nil {
			return SyncResult{}, err
		}
		if down != nil {
			downs = append(downs, down)
			if k.Level == domain.LevelUser {
				res.UserUnavailable = down.Error()
			} else {
				res.Project, res.ProjectUnavailable = &changes.Report{}, down.Error()
			}
			continue
		}
		e.RLock()
		g := e.Graph()
		from, err := s.sessions.Watermark(sess.ID, k, func(ts domain.Micros) uint64 { return changes.SeqAt(g, ts) })
		to := g.DurableSeq()
		var rep changes.Report
		if err == nil && to > from {
			rep = changes.Since(g, from, to, sess.ID)
		}
		e.RUnlock()
		if err != nil {
			return SyncResult{}, err
		}
		s.sessions.Advance(sess.ID, k, to)
		if k.Level == domain.LevelUser {
			res.User = rep
		} else {
			res.Project = &rep
		}
	}
	if len(downs) == len(t.keys()) {
		return SyncResult{}, noGraphLoads(downs)
	}
	if err := s.sessions.Push(ctx, sess.ID); err != nil {
		// Told and not stored: another server may tell the session again.
		s.log.Warn("a sync's watermarks could not be stored", "session", sess.ID, "err", err)
	}
	return res, nil
}
