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
// the root's user graph and its sessions going to principal, and each
// project graph to the project's key as a team server resolves it from the
// project's folder (keys; nil keeps the paths): the contents of its
// .kg/project, else its git origin, else a private project of principal
// (docs/design/team.md#moving-in). A session keeps its project's folder as
// its root. Two projects of the root with one key are refused before
// anything is copied. It then reads every graph back from to and checks
// that it holds the same nodes, edges and tombstones, by count and by a
// checksum of their ids, versions and seqs; a difference is an error. The
// source is not changed.
func ToTeam(ctx context.Context, from, to Backend, principal string, keys ports.ProjectKeys, opt Options) (Result, error) {
	sessions, err := from.LoadSessions(ctx)
	if err != nil {
		return Result{}, err
	}
	stored, err := storedKeys(ctx, from, sessions)
	if err != nil {
		return Result{}, err
	}
	dst := ownedBy{Backend: to, owner: principal, projects: map[string]string{}, paths: map[string]string{}}
	if keys != nil {
		for _, k := range stored {
			if k.Level != domain.LevelProject {
				continue
			}
			key, err := teamKey(keys, principal, k.Project)
			if err != nil {
				return Result{}, err
			}
			if other, ok := dst.paths[key]; ok {
				return Result{}, domain.Invalidf("project", "the projects %s and %s both have the key %s: a team server would make them one project; give one a .kg/project of its own, or remove one (kg project rm), and run again",
					other, k.Project, key)
			}
			dst.projects[k.Project], dst.paths[key] = key, k.Project
		}
	}
	res, err := Copy(ctx, from, dst, opt)
	if err != nil {
		return res, err
	}
	for _, key := range stored {
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

// teamKey is the key a team server gives the project at path, a folder of
// the root's machine (docs/design/team.md#project-keys).
func teamKey(keys ports.ProjectKeys, principal, path string) (string, error) {
	key, found, err := keys.ProjectKey(path)
	if err != nil {
		return "", fmt.Errorf("the key of project %s: %w", path, err)
	}
	if !found {
		key = "private/" + principal + path
	}
	if err := domain.ValidateProjectKey("project", key); err != nil {
		return "", fmt.Errorf("the key of project %s: %w", path, err)
	}
	return key, nil
}

// ownedBy is a team backend seen through a root's keys: the user graph is
// the principal's, the sessions are theirs, and a project is stored under
// its key.
type ownedBy struct {
	Backend
	owner    string
	projects map[string]string // the root's project path → its key
	paths    map[string]string // and back
}

func (o ownedBy) key(k domain.GraphKey) domain.GraphKey {
	if k.Level == domain.LevelUser {
		return domain.UserGraphOf(o.owner)
	}
	if key, ok := o.projects[k.Project]; ok {
		return domain.ProjectGraph(key)
	}
	return k
}

// rootKey is key backwards.
func (o ownedBy) rootKey(k domain.GraphKey) domain.GraphKey {
	if k == domain.UserGraphOf(o.owner) {
		return domain.UserGraph
	}
	if p, ok := o.paths[k.Project]; ok && k.Level == domain.LevelProject {
		return domain.ProjectGraph(p)
	}
	return k
}

// remap returns synced with each key passed through f.
func remap(synced map[domain.GraphKey]uint64, f func(domain.GraphKey) domain.GraphKey) map[domain.GraphKey]uint64 {
	if synced == nil {
		return nil
	}
	out := make(map[domain.GraphKey]uint64, len(synced))
	for k, v := range synced {
		out[f(k)] = v
	}
	return out
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
		s.Principal, s.Root = "", ""
		if p, ok := o.paths[s.ProjectPath]; ok {
			s.ProjectPath = p
		}
		s.Synced = remap(s.Synced, o.rootKey)
		out[id] = s
	}
	return out, nil
}

// UpdateSessions stores the root's sessions as the principal's, each bound
// to its project's key. The migrations remove none: every other session of
// the database (other people's, live on other servers) is left as it is.
func (o ownedBy) UpdateSessions(ctx context.Context, ch ports.SessionChanges) error {
	out := ports.SessionChanges{Put: make([]ports.Session, 0, len(ch.Put)), Delete: ch.Delete}
	for _, s := range ch.Put {
		s.Principal = o.owner
		if key, ok := o.projects[s.ProjectPath]; ok {
			s.ProjectPath, s.Root = key, s.ProjectPath // the folder: its touches are relative to it
		}
		s.Synced = remap(s.Synced, o.key)
		out.Put = append(out.Put, s)
	}
	return o.Backend.UpdateSessions(ctx, out)
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
