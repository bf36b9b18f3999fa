package migrations

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// ToTeam copies a root (from) into a team database (to), as Copy does, with
// the root's user graph and its sessions going to principal
// (docs/design/team.md#moving-in); project graphs keep their keys. It then
// reads every graph back from to and checks that it holds the same nodes,
// edges and tombstones, by count and by a checksum of their ids, versions
// and seqs; a difference is an error. The source is not changed.
func ToTeam(ctx context.Context, from, to Backend, principal string, opt Options) (Result, error) {
	dst := ownedBy{Backend: to, owner: principal}
	res, err := Copy(ctx, from, dst, opt)
	if err != nil {
		return res, err
	}
	sessions, err := from.LoadSessions(ctx)
	if err != nil {
		return res, err
	}
	keys, err := storedKeys(ctx, from, sessions)
	if err != nil {
		return res, err
	}
	for _, key := range keys {
		src, err := from.Load(ctx, key)
		if err != nil {
			return res, err
		}
		got, err := dst.Load(ctx, key)
		if err != nil {
			return res, err
		}
		a, b := fingerprintOf(key, src, sessions), fingerprintOf(key, got, nil)
		if a != b {
			return res, domain.Unavailable(nil, "the copy of the %s graph differs from the root's: %s in the root, %s in the database", key, a, b)
		}
	}
	return res, nil
}

// ownedBy is a team backend seen through a root's keys: the user graph is
// the principal's, and the sessions are theirs.
type ownedBy struct {
	Backend
	owner string
}

func (o ownedBy) key(k domain.GraphKey) domain.GraphKey {
	if k.Level == domain.LevelUser {
		return domain.UserGraphOf(o.owner)
	}
	return k
}

func (o ownedBy) Load(ctx context.Context, k domain.GraphKey) (domain.GraphData, error) {
	return o.Backend.Load(ctx, o.key(k))
}

func (o ownedBy) Commit(ctx context.Context, k domain.GraphKey, g *domain.Graph, cs domain.ChangeSet) error {
	return o.Backend.Commit(ctx, o.key(k), g, cs)
}

func (o ownedBy) LoadSessions(ctx context.Context) (map[string]ports.Session, error) {
	all, err := o.Backend.LoadSessions(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]ports.Session{}
	for id, s := range all {
		if s.Principal != o.owner {
			continue
		}
		s.Principal = ""
		if w, ok := s.Synced[domain.UserGraphOf(o.owner)]; ok {
			s.Synced = maps.Clone(s.Synced)
			delete(s.Synced, domain.UserGraphOf(o.owner))
			s.Synced[domain.UserGraph] = w
		}
		out[id] = s
	}
	return out, nil
}

func (o ownedBy) SaveSessions(ctx context.Context, sessions map[string]ports.Session) error {
	out := make(map[string]ports.Session, len(sessions))
	for id, s := range sessions {
		s.Principal = o.owner
		if w, ok := s.Synced[domain.UserGraph]; ok {
			s.Synced = maps.Clone(s.Synced)
			delete(s.Synced, domain.UserGraph)
			s.Synced[domain.UserGraphOf(o.owner)] = w
		}
		out[id] = s
	}
	return o.Backend.SaveSessions(ctx, out)
}

// fingerprintOf sums up a graph's items: their counts, and a SHA-256 of
// every node's and edge's identity, version and seq, and every tombstone's,
// in order. Data restored the same way gives the same fingerprint on every
// backend.
func fingerprintOf(key domain.GraphKey, d domain.GraphData, sessions map[string]ports.Session) string {
	g, _ := domain.Restore(key, d, domain.RestoreOptions{MinSeq: minSeq(sessions, key)})
	d = g.Data()
	h := sha256.New()
	num := func(n uint64) { h.Write(binary.BigEndian.AppendUint64(nil, n)) }
	str := func(s string) { num(uint64(len(s))); h.Write([]byte(s)) }
	for _, n := range d.Nodes {
		str(n.ID)
		str(n.Gist)
		num(n.Version.V)
		num(n.Version.Seq)
		num(uint64(n.Tier))
	}
	for _, e := range d.Edges {
		str(e.From)
		str(e.To)
		str(e.Rel)
		num(e.Version.V)
		num(e.Version.Seq)
	}
	for _, id := range slices.Sorted(maps.Keys(d.NodeTombstones)) {
		str(id)
		num(d.NodeTombstones[id].Seq)
	}
	num(uint64(len(d.EdgeTombstones)))
	return fmt.Sprintf("%d nodes, %d edges, %d tombstones, checksum %x", len(d.Nodes), len(d.Edges),
		len(d.NodeTombstones)+len(d.EdgeTombstones), h.Sum(nil)[:8])
}
