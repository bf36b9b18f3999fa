package migrations

import (
	"context"
	"errors"
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
	log := opt.log()
	var res Result
	sessions, err := from.LoadSessions(ctx)
	if errors.Is(err, ports.ErrDamaged) {
		res.notCopied(log, "sessions", err)
		sessions, err = nil, nil
	}
	if err != nil {
		return res, err
	}
	keys, err := storedKeys(ctx, from, sessions)
	if errors.Is(err, ports.ErrDamaged) {
		res.notCopied(log, "the list of project graphs (every project not named by a session)", err)
		keys, err = sessionKeys(sessions), nil
	}
	if err != nil {
		return res, err
	}
	total := len(keys) + 1 // and the sessions
	for i, key := range keys {
		opt.progress(i, total)
		src, err := from.Load(ctx, key)
		if errors.Is(err, ports.ErrDamaged) {
			res.notCopied(log, key.String(), err)
			continue
		}
		if err != nil {
			return res, err
		}
		dst, err := to.Load(ctx, key)
		if err != nil {
			return res, err
		}
		if src.Empty() {
			res.unchanged(key.String())
			continue
		}
		g, notes := domain.Restore(key, src, domain.RestoreOptions{MinSeq: minSeq(sessions, key)})
		res.note(log, key.String(), notes...)
		if !dst.Empty() {
			if have, _ := domain.Restore(key, dst, domain.RestoreOptions{}); reflect.DeepEqual(have.Data(), g.Data()) {
				res.unchanged(key.String())
				continue
			}
		}
		cs := g.Everything()
		// Items only the destination has are named too: absent from g,
		// a per-item backend deletes them.
		cs.Merge(dst.Items())
		// The source's change log comes along, oldest first, and the copy
		// is one entry after it.
		var carried []domain.HistoryEntry
		if hr, ok := from.(ports.HistoryRepository); ok {
			if carried, err = hr.History(ctx, key, ports.HistoryQuery{}); err != nil {
				return res, err
			}
			slices.Reverse(carried)
		}
		if err := commit(ctx, to, key, g, cs, "copied from another backend", carried); err != nil {
			return res, err
		}
		res.changed(key.String())
	}
	opt.progress(len(keys), total)
	defer opt.progress(total, total)
	if len(sessions) == 0 {
		res.unchanged("sessions")
		return res, nil
	}
	existing, err := to.LoadSessions(ctx)
	if err != nil {
		return res, err
	}
	changed := map[string]ports.Session{}
	for id, s := range sessions {
		if have, ok := existing[id]; !ok || !reflect.DeepEqual(have, s) {
			changed[id] = s
		}
	}
	if len(changed) == 0 {
		res.unchanged("sessions")
		return res, nil
	}
	if err := saveSessions(ctx, to, changed); err != nil {
		return res, err
	}
	res.changed("sessions")
	return res, nil
}
