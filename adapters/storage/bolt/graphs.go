package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/kg-memory/kg/adapters/storage/record"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	bbolt "go.etcd.io/bbolt"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Keys of the meta sub-bucket. Unknown metadata keys are stored under
// metaExtraPrefix + name so they can never collide with kg's own.
var (
	metaSeq         = []byte("seq")
	metaSchema      = []byte("schema")
	metaProjectPath = []byte("project_path")
	metaSlug        = []byte("slug")
)

const metaExtraPrefix = "x:"

var graphSubs = [][]byte{subNodes, subEdges, subNodeTombs, subEdgeTombs, subProgress, subMeta, subHistory}

// graphBucket returns the bucket of the graph named by key, or nil when it
// was never stored.
func graphBucket(tx *bbolt.Tx, key domain.GraphKey) *bbolt.Bucket {
	if key.Level == domain.LevelUser {
		return tx.Bucket(bucketUser)
	}
	projects := tx.Bucket(bucketProjects)
	if projects == nil { // a file opened read-only before its first start
		return nil
	}
	return projects.Bucket([]byte(key.Project))
}

// Load reads every item of the graph. An item that does not decode makes
// this graph unavailable (the error names the graph and the item); every
// other graph stays readable.
func (s *Store) Load(ctx context.Context, key domain.GraphKey) (domain.GraphData, error) {
	if err := ctx.Err(); err != nil {
		return domain.GraphData{}, unavailable(err, "load %s graph", key)
	}
	if err := validKey(key); err != nil {
		return domain.GraphData{}, err
	}
	if a, problem, bad := s.graphDamage(key); bad {
		return domain.GraphData{}, s.areaError(key.String()+" graph", a, problem, "loaded")
	}
	var d domain.GraphData
	err := recovered(func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			b := graphBucket(tx, key)
			if b == nil || b.Bucket(subMeta) == nil {
				d = domain.GraphData{ProjectPath: key.Project}
				return nil
			}
			var err error
			d, err = readGraph(b)
			return err
		})
	})
	if err != nil {
		s.log.Error("bolt: graph cannot be loaded", "graph", key.String(), "file", s.path, "err", err)
		return domain.GraphData{}, unavailable(err, "%s graph in %s cannot be loaded%s", key, s.path, hintIfDamaged(err))
	}
	return d, nil
}

// readGraph decodes a graph bucket. Every value is decoded (and so copied)
// inside the transaction; nothing returned points into the mmap.
func readGraph(b *bbolt.Bucket) (domain.GraphData, error) {
	d := domain.GraphData{
		NodeTombstones: map[string]domain.Tombstone{},
		EdgeTombstones: map[domain.EdgeKey]domain.Tombstone{},
		Progress:       map[string]domain.RawJSON{},
		Meta:           map[string]domain.RawJSON{},
	}
	for _, read := range [...]func(*bbolt.Bucket, *domain.GraphData) error{
		readGraphMeta, readGraphNodes, readGraphEdges, readGraphTombstones, readGraphProgress,
	} {
		if err := read(b, &d); err != nil {
			return d, err
		}
	}
	return d, nil
}

// readGraphMeta reads the seq, schema, project path and unknown metadata.
func readGraphMeta(b *bbolt.Bucket, d *domain.GraphData) error {
	return b.Bucket(subMeta).ForEach(func(k, v []byte) error {
		var err error
		switch {
		case bytes.Equal(k, metaSeq):
			d.Seq, err = strconv.ParseUint(string(v), 10, 64)
		case bytes.Equal(k, metaSchema):
			d.Schema, err = strconv.Atoi(string(v))
		case bytes.Equal(k, metaProjectPath):
			d.ProjectPath = string(v)
		case bytes.HasPrefix(k, []byte(metaExtraPrefix)):
			d.Meta[string(k[len(metaExtraPrefix):])] = bytes.Clone(v)
		}
		if err != nil {
			return damagedf("meta %q: %v", k, err)
		}
		return nil
	})
}

func readGraphNodes(b *bbolt.Bucket, d *domain.GraphData) error {
	nb := b.Bucket(subNodes)
	if nb == nil {
		return nil
	}
	d.Nodes = make([]domain.Node, 0, nb.Stats().KeyN)
	return nb.ForEach(func(k, v []byte) error {
		n, err := decodeNode(v)
		if err != nil {
			return damagedf("node %q: %v", k, err)
		}
		d.Nodes = append(d.Nodes, n)
		return nil
	})
}

func readGraphEdges(b *bbolt.Bucket, d *domain.GraphData) error {
	return forEach(b, subEdges, func(k, v []byte) error {
		e, err := decodeEdge(v)
		if err != nil {
			return damagedf("edge %q: %v", k, err)
		}
		d.Edges = append(d.Edges, e)
		return nil
	})
}

func readGraphTombstones(b *bbolt.Bucket, d *domain.GraphData) error {
	err := forEach(b, subNodeTombs, func(k, v []byte) error {
		t, _, err := decodeTomb(v)
		if err != nil {
			return damagedf("node tombstone %q: %v", k, err)
		}
		d.NodeTombstones[string(k)] = t
		return nil
	})
	if err != nil {
		return err
	}
	return forEach(b, subEdgeTombs, func(k, v []byte) error {
		t, ek, err := decodeTomb(v)
		if err != nil {
			return damagedf("edge tombstone %q: %v", k, err)
		}
		d.EdgeTombstones[ek] = t
		return nil
	})
}

func readGraphProgress(b *bbolt.Bucket, d *domain.GraphData) error {
	return forEach(b, subProgress, func(k, v []byte) error {
		if !json.Valid(v) {
			return damagedf("progress %q: not valid JSON", k)
		}
		d.Progress[string(k)] = bytes.Clone(v)
		return nil
	})
}

func forEach(b *bbolt.Bucket, sub []byte, fn func(k, v []byte) error) error {
	if sb := b.Bucket(sub); sb != nil {
		return sb.ForEach(fn)
	}
	return nil
}

// Commit writes the items named by cs, reading their values from g (present
// → put, absent → delete), and the metadata when cs.Meta, in one
// transaction. It costs O(len(cs)) item writes whatever the size of g.
func (s *Store) Commit(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet) error {
	return s.CommitLogged(ctx, key, g, cs, domain.HistoryBatch{})
}

// CommitLogged implements ports.HistoryRepository: Commit, with the
// batch's change log entries put in the graph's history bucket by the same
// transaction.
func (s *Store) CommitLogged(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet, h domain.HistoryBatch) error {
	if err := ctx.Err(); err != nil {
		return unavailable(err, "save %s graph", key)
	}
	if err := validKey(key); err != nil {
		return err
	}
	if cs.Empty() {
		return nil
	}
	if a, problem, bad := s.graphDamage(key); bad {
		return s.areaError(key.String()+" graph", a, problem, "saved")
	}
	var c counter
	err := recovered(func() error {
		return s.db.Update(func(tx *bbolt.Tx) error {
			s.db.AllocSize = growthStep(tx.Size()) // read by this commit, under the writer lock
			b, err := openGraphBucket(tx, key)
			if err != nil {
				return err
			}
			if err := writeItems(b, &c, g, cs); err != nil {
				return err
			}
			if err := writeHistory(b, &c, h); err != nil {
				return err
			}
			if cs.Meta || b.Bucket(subMeta).Get(metaSeq) == nil {
				if err := s.writeMeta(tx, b, &c, key, g); err != nil {
					return err
				}
			}
			// The fault comes last, after real writes, so the rollback path
			// is the one a failing disk takes.
			return s.injected()
		})
	})
	if err != nil {
		return unavailable(err, "save %s graph to %s%s", key, s.path, hintIfDamaged(err))
	}
	s.record(c)
	return nil
}

// openGraphBucket returns the bucket of the graph, creating it and its
// sub-buckets on its first commit.
func openGraphBucket(tx *bbolt.Tx, key domain.GraphKey) (*bbolt.Bucket, error) {
	var b *bbolt.Bucket
	var err error
	if key.Level == domain.LevelUser {
		b = tx.Bucket(bucketUser)
	} else if b, err = tx.Bucket(bucketProjects).CreateBucketIfNotExists([]byte(key.Project)); err != nil {
		return nil, err
	}
	for _, sub := range graphSubs {
		if b.Bucket(sub) != nil {
			continue
		}
		if _, err := b.CreateBucket(sub); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// writeItems puts or deletes the items cs names, each bucket's in key order:
// bbolt inserts a key into a page's sorted array by moving the keys after
// it, so a large batch (a migration, a first save of a big graph) written in
// map order costs O(keys²) moves, and in key order O(keys).
func writeItems(b *bbolt.Bucket, c *counter, g *domain.Graph, cs domain.ChangeSet) error {
	for _, write := range [...]func(*bbolt.Bucket, *counter, *domain.Graph, domain.ChangeSet) error{
		writeNodes, writeEdges, writeNodeTombstones, writeEdgeTombstones, writeProgress,
	} {
		if err := write(b, c, g, cs); err != nil {
			return err
		}
	}
	return nil
}

func writeNodes(b *bbolt.Bucket, c *counter, g *domain.Graph, cs domain.ChangeSet) error {
	nodes := b.Bucket(subNodes)
	for _, id := range slices.Sorted(maps.Keys(cs.Nodes)) {
		n, ok := g.Node(id)
		if !ok {
			if err := c.del(nodes, []byte(id)); err != nil {
				return fmt.Errorf("node %q: %w", id, err)
			}
			continue
		}
		v, err := encodeNode(n)
		if err == nil {
			err = c.put(nodes, []byte(id), v)
		}
		if err != nil {
			return fmt.Errorf("node %q: %w", id, err)
		}
	}
	return nil
}

func writeEdges(b *bbolt.Bucket, c *counter, g *domain.Graph, cs domain.ChangeSet) error {
	edges := b.Bucket(subEdges)
	for _, ek := range sortedEdgeKeys(cs.Edges) {
		k := ek.key
		e, ok := g.Edge(k)
		if !ok {
			if err := c.del(edges, ek.bytes); err != nil {
				return fmt.Errorf("edge %s: %w", k, err)
			}
			continue
		}
		v, err := encodeEdge(e)
		if err == nil {
			err = c.put(edges, ek.bytes, v)
		}
		if err != nil {
			return fmt.Errorf("edge %s: %w", k, err)
		}
	}
	return nil
}

func writeNodeTombstones(b *bbolt.Bucket, c *counter, g *domain.Graph, cs domain.ChangeSet) error {
	ntombs := b.Bucket(subNodeTombs)
	for _, id := range slices.Sorted(maps.Keys(cs.NodeTombstones)) {
		t, ok := g.NodeTombstone(id)
		if !ok {
			if err := c.del(ntombs, []byte(id)); err != nil {
				return fmt.Errorf("node tombstone %q: %w", id, err)
			}
			continue
		}
		v, err := encodeTomb(t, nil)
		if err == nil {
			err = c.put(ntombs, []byte(id), v)
		}
		if err != nil {
			return fmt.Errorf("node tombstone %q: %w", id, err)
		}
	}
	return nil
}

func writeEdgeTombstones(b *bbolt.Bucket, c *counter, g *domain.Graph, cs domain.ChangeSet) error {
	etombs := b.Bucket(subEdgeTombs)
	for _, ek := range sortedEdgeKeys(cs.EdgeTombstones) {
		k := ek.key
		t, ok := g.EdgeTombstone(k)
		if !ok {
			if err := c.del(etombs, ek.bytes); err != nil {
				return fmt.Errorf("edge tombstone %s: %w", k, err)
			}
			continue
		}
		v, err := encodeTomb(t, &k)
		if err == nil {
			err = c.put(etombs, ek.bytes, v)
		}
		if err != nil {
			return fmt.Errorf("edge tombstone %s: %w", k, err)
		}
	}
	return nil
}

func writeProgress(b *bbolt.Bucket, c *counter, g *domain.Graph, cs domain.ChangeSet) error {
	progress := b.Bucket(subProgress)
	for _, task := range slices.Sorted(maps.Keys(cs.Progress)) {
		st, ok := g.Progress(task)
		var err error
		switch {
		case !ok:
			err = c.del(progress, []byte(task))
		case !json.Valid(st):
			err = fmt.Errorf("not valid JSON")
		default:
			err = c.put(progress, []byte(task), st)
		}
		if err != nil {
			return fmt.Errorf("progress %q: %w", task, err)
		}
	}
	return nil
}

// encodedEdgeKey is an edge key with its bucket key.
type encodedEdgeKey struct {
	key   domain.EdgeKey
	bytes []byte
}

// sortedEdgeKeys returns the keys of set with their bucket keys, in the
// order of the bucket keys.
func sortedEdgeKeys(set map[domain.EdgeKey]struct{}) []encodedEdgeKey {
	out := make([]encodedEdgeKey, 0, len(set))
	for k := range set {
		out = append(out, encodedEdgeKey{k, edgeKey(k)})
	}
	slices.SortFunc(out, func(a, b encodedEdgeKey) int { return bytes.Compare(a.bytes, b.bytes) })
	return out
}

// writeMeta stores seq, schema, project path and the unknown metadata.
// Values that did not change are not written, so an ordinary commit writes
// only the seq.
func (s *Store) writeMeta(tx *bbolt.Tx, b *bbolt.Bucket, c *counter, key domain.GraphKey, g *domain.Graph) error {
	meta := b.Bucket(subMeta)
	putIfChanged := func(k, v []byte) error {
		if old := meta.Get(k); old != nil && bytes.Equal(old, v) {
			return nil
		}
		return c.put(meta, k, v)
	}
	if err := putIfChanged(metaSeq, strconv.AppendUint(nil, g.Seq(), 10)); err != nil {
		return err
	}
	if err := putIfChanged(metaSchema, strconv.AppendInt(nil, domain.SchemaVersion, 10)); err != nil {
		return err
	}
	if err := putIfChanged(metaProjectPath, []byte(g.ProjectPath())); err != nil {
		return err
	}
	if key.Level == domain.LevelProject && meta.Get(metaSlug) == nil {
		slug, err := s.claimSlug(tx, key)
		if err != nil {
			return err
		}
		if err := c.put(meta, metaSlug, []byte(slug)); err != nil {
			return err
		}
	}
	names := g.MetaNames()
	for _, name := range names {
		v, _ := g.Meta(name)
		if err := putIfChanged([]byte(metaExtraPrefix+name), v); err != nil {
			return fmt.Errorf("meta %q: %w", name, err)
		}
	}
	// Drop unknown keys the graph no longer has. Collected first: a bucket
	// must not change under its own cursor.
	var gone [][]byte
	cur := meta.Cursor()
	prefix := []byte(metaExtraPrefix)
	for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
		if _, ok := slices.BinarySearch(names, string(k[len(prefix):])); !ok {
			gone = append(gone, bytes.Clone(k))
		}
	}
	for _, k := range gone {
		if err := c.del(meta, k); err != nil {
			return err
		}
	}
	return nil
}

// List returns every stored project graph with the slug recorded at its
// first commit, sorted by slug.
func (s *Store) List(ctx context.Context) ([]ports.StoredGraph, error) {
	if err := ctx.Err(); err != nil {
		return nil, unavailable(err, "list graphs")
	}
	if problem, bad := s.damagedArea(area{kind: areaProjects}); bad {
		return nil, s.areaError("the list of project graphs", area{kind: areaProjects}, problem, "read")
	}
	var out []ports.StoredGraph
	err := recovered(func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			projects := tx.Bucket(bucketProjects)
			if projects == nil { // a file opened read-only before its first start
				return nil
			}
			return projects.ForEachBucket(func(k []byte) error {
				if s.projectDamaged(string(k)) {
					// Listed, so that it is seen; its slug is on its
					// damaged pages.
					out = append(out, ports.StoredGraph{Key: domain.ProjectGraph(string(k))})
					return nil
				}
				meta := projects.Bucket(k).Bucket(subMeta)
				if meta == nil {
					return nil
				}
				out = append(out, ports.StoredGraph{
					Key:  domain.ProjectGraph(string(k)),
					Slug: string(meta.Get(metaSlug)),
				})
				return nil
			})
		})
	})
	if err != nil {
		return nil, unavailable(err, "list graphs in %s", s.path)
	}
	slices.SortFunc(out, func(a, b ports.StoredGraph) int {
		if c := strings.Compare(a.Slug, b.Slug); c != 0 {
			return c
		}
		return strings.Compare(a.Key.Project, b.Key.Project)
	})
	return out, nil
}

// claimSlug picks the slug of a project at its first commit, inside the writing
// transaction so two projects cannot claim one name: the slug when no other
// project holds it, else <slug>-<hash> (docs/design/storage.md#project-slugs;
// there are no folders named by raw name in a bolt file).
func (s *Store) claimSlug(tx *bbolt.Tx, key domain.GraphKey) (string, error) {
	slug, hash := record.ProjectSlug(key.Project), record.ProjectHash(key.Project)
	taken := false
	projects := tx.Bucket(bucketProjects)
	err := projects.ForEachBucket(func(k []byte) error {
		if string(k) == key.Project {
			return nil
		}
		if s.projectDamaged(string(k)) {
			// Its pages are not read: its slug is unknown, so assume it
			// is this one's.
			taken = true
			return nil
		}
		if meta := projects.Bucket(k).Bucket(subMeta); meta != nil && string(meta.Get(metaSlug)) == slug {
			taken = true
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if taken {
		return slug + "-" + hash, nil
	}
	return slug, nil
}

func validKey(key domain.GraphKey) error {
	switch {
	case key.Level == domain.LevelUser && key.Project == "":
		return nil
	case key.Level == domain.LevelProject && filepath.IsAbs(key.Project):
		return nil
	}
	return domain.Invalidf("graph", "not a valid graph key: %s", key)
}
