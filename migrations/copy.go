package migrations

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"slices"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Copy makes every graph of from (the user graph and each listed project)
// and every session of from present in to, losslessly: a graph loaded back
// from to restores to the same data as from's. It never writes to from.
//
// It salvages: a graph (or the list of projects, or the sessions) that from
// reports damaged (ports.ErrDamaged) is not copied, is named with why in
// Result.NotCopied, and the rest is copied. Any other error stops it.
//
// A graph of from replaces the graph of the same key in to whole (items only
// to has are deleted), so a second run changes nothing (and, finding the graphs equal, writes
// nothing). Graphs that only to
// has are left alone and reported as unchanged. Sessions are merged by id,
// from's winning; a session only to has is left alone. Neither backend may be in use by a server meanwhile; the
// caller holds the roots' locks.
func Copy(ctx context.Context, from, to Backend, opt Options) (Result, error) {
	c := copier{from: from, to: to, log: opt.log()}
	keys, err := c.readSource(ctx)
	if err != nil {
		return c.res, err
	}
	total := len(keys) + 1 // and the sessions
	for i, key := range keys {
		opt.progress(i, total)
		if err := c.copyGraph(ctx, key); err != nil {
			return c.res, err
		}
	}
	opt.progress(len(keys), total)
	defer opt.progress(total, total)
	err = c.copySessions(ctx)
	return c.res, err
}

// copier is one run of Copy: what it read of from, and what it did so far.
type copier struct {
	from, to Backend
	log      *slog.Logger
	sessions map[string]ports.Session // from's
	res      Result
}

// readSource loads from's sessions and lists its graphs. Sessions that are
// damaged are not copied; a damaged list of projects leaves the graphs the
// sessions name.
func (c *copier) readSource(ctx context.Context) ([]domain.GraphKey, error) {
	sessions, err := c.from.LoadSessions(ctx)
	if errors.Is(err, ports.ErrDamaged) {
		c.res.notCopied(c.log, "sessions", err)
		sessions, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	c.sessions = sessions
	keys, err := storedKeys(ctx, c.from, sessions)
	if errors.Is(err, ports.ErrDamaged) {
		c.res.notCopied(c.log, "the list of project graphs (every project not named by a session)", err)
		keys, err = sessionKeys(sessions), nil
	}
	return keys, err
}

// copyGraph makes the graph of key in to restore to from's, unless from's
// is damaged (then it is named not copied) or the two are already equal.
func (c *copier) copyGraph(ctx context.Context, key domain.GraphKey) error {
	src, err := c.from.Load(ctx, key)
	if errors.Is(err, ports.ErrDamaged) {
		c.res.notCopied(c.log, key.String(), err)
		return nil
	}
	if err != nil {
		return err
	}
	dst, err := c.to.Load(ctx, key)
	if err != nil {
		return err
	}
	if src.Empty() {
		c.res.unchanged(key.String())
		return nil
	}
	g, notes := domain.Restore(key, src, domain.RestoreOptions{MinSeq: minSeq(c.sessions, key)})
	c.res.note(c.log, key.String(), notes...)
	if !dst.Empty() {
		if have, _ := domain.Restore(key, dst, domain.RestoreOptions{}); reflect.DeepEqual(have.Data(), g.Data()) {
			c.res.unchanged(key.String())
			return nil
		}
	}
	cs := g.Everything()
	// Items only the destination has are named too: absent from g,
	// a per-item backend deletes them.
	cs.Merge(dst.Items())
	carried, err := c.carriedHistory(ctx, key)
	if err != nil {
		return err
	}
	if err := commit(ctx, c.to, key, g, cs, "copied from another backend", carried); err != nil {
		return err
	}
	c.res.changed(key.String())
	return nil
}

// carriedHistory is the change log of key in from, oldest first, when from
// keeps one: it comes along, and the copy is one entry after it.
func (c *copier) carriedHistory(ctx context.Context, key domain.GraphKey) ([]domain.HistoryEntry, error) {
	hr, ok := c.from.(ports.HistoryRepository)
	if !ok {
		return nil, nil
	}
	carried, err := hr.History(ctx, key, ports.HistoryQuery{})
	if err != nil {
		return nil, err
	}
	slices.Reverse(carried)
	return carried, nil
}

// copySessions saves in to the sessions of from that to lacks or holds
// otherwise; from's win, and a session only to has is left alone.
func (c *copier) copySessions(ctx context.Context) error {
	if len(c.sessions) == 0 {
		c.res.unchanged("sessions")
		return nil
	}
	existing, err := c.to.LoadSessions(ctx)
	if err != nil {
		return err
	}
	changed := map[string]ports.Session{}
	for id, s := range c.sessions {
		if have, ok := existing[id]; !ok || !reflect.DeepEqual(have, s) {
			changed[id] = s
		}
	}
	if len(changed) == 0 {
		c.res.unchanged("sessions")
		return nil
	}
	if err := saveSessions(ctx, c.to, changed); err != nil {
		return err
	}
	c.res.changed("sessions")
	return nil
}
