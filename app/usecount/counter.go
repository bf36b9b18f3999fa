// Package usecount counts the uses of nodes by sessions
// (docs/design/compaction.md#the-use-count): once per node and session,
// applied with the graph's next batch. kg_useful's marks, kg_read by id and
// kg_put_node count through it.
//
// It imports domain, ports, app/graphstore and app/sessiontable, nothing of
// app (docs/decisions/0107-history-room.md).
package usecount

import (
	"context"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/app/sessiontable"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Counter counts the uses of nodes by sessions
// (docs/design/compaction.md#the-use-count): once per node and session, with
// the graph's next batch. Its fields are set once, by app.Open.
type Counter struct {
	Clock    ports.Clock
	Sessions *sessiontable.Table
	Store    *graphstore.Store
}

// CountUses counts one use by session sessionID of each node ids of graph
// key (docs/design/compaction.md#the-use-count): a node the session has not
// counted before, in its life and across restarts, gets
// _use ← decay(_use, day(now) − _use_day) + 65536 and _use_day ← day(now);
// one it has counted is left as it is. It is how kg_useful's marks count:
// the use case that stores the marks calls it, in one line, once they are
// valid; kg_read by id and kg_put_node count through the same path on their
// own. It is not a use case itself: app.Service does not export it.
//
// A count is no write: it takes no version and no seq, sends no event and
// makes no sync entry. Like a read stamp it is applied with the graph's next
// batch or maintenance tick (at most one tick later, and at Close), so the
// call never waits on disk; the session's counted set is saved with the
// sessions at the same tick.
//
// The session must be live, key must be the user graph or the session's
// project graph, and every id must name a node of that graph (any tier);
// otherwise the error names the field and nothing is counted. Repeated ids
// count once. It counts no operation of the session: the call it is part of
// does.
func (uc *Counter) CountUses(ctx context.Context, sessionID string, key domain.GraphKey, ids []string) error {
	if sessionID == "" {
		return domain.Invalidf("session_id", "required: a use is counted once per session")
	}
	if len(ids) == 0 {
		return domain.Invalidf("ids", "required: at least one node id")
	}
	now := uc.Clock.Now()
	sess, err := uc.Sessions.Lookup(sessionID, now)
	if err != nil {
		return err
	}
	switch {
	case key == domain.UserGraphOf(sess.Principal):
	case key.Level == domain.LevelProject && sess.ProjectPath == "":
		return domain.Invalidf("level", "session %q has no project; it can count uses in the user graph only", sess.ID)
	case key.Level == domain.LevelProject && key.Project != sess.ProjectPath:
		return domain.Invalidf("level", "%s is not a graph of session %q (bound to %s)", key, sess.ID, sess.ProjectPath)
	case key.Level != domain.LevelProject:
		return domain.Invalidf("level", "unknown graph %s", key)
	}
	e, err := uc.Store.Get(ctx, key)
	if err != nil {
		return err
	}
	var missing []string
	e.RLock()
	for _, id := range ids {
		if _, ok := e.Graph().Node(id); !ok {
			missing = append(missing, id)
		}
	}
	e.RUnlock()
	if len(missing) > 0 {
		return domain.NotFoundf("ids", "no node %s in the %s; nothing was counted", quoteList(missing), graphstore.GraphName(key))
	}
	uc.CountFresh(ctx, e, sess.ID, ids, now)
	return nil
}

// CountFresh counts the uses of ids by session at now that it had not
// counted, and returns those.
func (uc *Counter) CountFresh(ctx context.Context, e *graphstore.Entry, session string, ids []string, now domain.Micros) []string {
	if session == "" {
		return nil // calls without a session count nothing
	}
	fresh := uc.Sessions.ClaimCounts(session, e.Key(), ids)
	if len(fresh) > 0 {
		uc.Store.CountUses(ctx, e, fresh, now)
	}
	return fresh
}

// CountRead counts the read by id of node n by session, a node of e's
// graph, and returns n showing its use count with it.
func (uc *Counter) CountRead(ctx context.Context, e *graphstore.Entry, session string, n *domain.Node) *domain.Node {
	uc.CountFresh(ctx, e, session, []string{n.ID}, uc.Clock.Now())
	return e.WithPendingUses(n)
}

// quoteList renders ids as "a", "b" and "c".
func quoteList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = strconv.Quote(id)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
