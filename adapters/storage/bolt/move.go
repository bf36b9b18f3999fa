package bolt

import (
	"context"

	bbolt "go.etcd.io/bbolt"

	"github.com/kg-memory/kg/domain"
)

// MoveProject gives the memory of the project at from to the project at to
// (`kg project mv`, docs/design/storage.md#project-slugs): in one transaction the
// graph's bucket is copied, item by item and byte for byte, under to, its
// project path rewritten and its slug claimed anew, and from's bucket
// deleted. Sessions are the caller's. It fails, changing nothing, with a
// not_found error when from has no stored graph and a conflict when to has
// one.
func (s *Store) MoveProject(ctx context.Context, from, to string) error {
	if err := ctx.Err(); err != nil {
		return domain.Unavailable(err, "move project %s", from)
	}
	src, dst := domain.ProjectGraph(from), domain.ProjectGraph(to)
	for _, k := range []domain.GraphKey{src, dst} {
		if err := validKey(k); err != nil {
			return err
		}
	}
	if from == to {
		return domain.Invalidf("project", "%s is both the old and the new path", from)
	}
	for _, k := range []domain.GraphKey{src, dst} {
		if a, problem, bad := s.graphDamage(k); bad {
			return s.areaError(k.String()+" graph", a, problem, "moved")
		}
	}
	var c counter
	err := recovered(func() error {
		return s.db.Update(func(tx *bbolt.Tx) error {
			projects := tx.Bucket(bucketProjects)
			old := projects.Bucket([]byte(from))
			if old == nil || old.Bucket(subMeta) == nil {
				return &domain.Error{Kind: domain.KindNotFound, Field: "project", Msg: "no memory is stored for project " + from}
			}
			if b := projects.Bucket([]byte(to)); b != nil && b.Bucket(subMeta) != nil {
				return &domain.Error{Kind: domain.KindConflict, Field: "project",
					Msg: "project " + to + " already has memory; move or export it first"}
			}
			if projects.Bucket([]byte(to)) != nil {
				if err := projects.DeleteBucket([]byte(to)); err != nil { // an empty bucket left behind
					return err
				}
			}
			nb, err := projects.CreateBucket([]byte(to))
			if err != nil {
				return err
			}
			for _, sub := range graphSubs {
				from := old.Bucket(sub)
				to, err := nb.CreateBucket(sub)
				if err != nil {
					return err
				}
				if from == nil { // a file of a kg before the sub-bucket
					continue
				}
				err = from.ForEach(func(k, v []byte) error { return c.put(to, k, v) })
				if err != nil {
					return err
				}
				if err := to.SetSequence(from.Sequence()); err != nil { // the history's keys go on from it
					return err
				}
			}
			if err := projects.DeleteBucket([]byte(from)); err != nil {
				return err
			}
			meta := nb.Bucket(subMeta)
			if err := c.put(meta, metaProjectPath, []byte(to)); err != nil {
				return err
			}
			slug, err := s.claimSlug(tx, dst)
			if err != nil {
				return err
			}
			return c.put(meta, metaSlug, []byte(slug))
		})
	})
	if err != nil {
		if domain.KindOf(err) == domain.KindNotFound || domain.KindOf(err) == domain.KindConflict {
			return err
		}
		return domain.Unavailable(err, "move project %s to %s in %s", from, to, s.path)
	}
	s.record(c)
	s.log.Info("bolt: project moved", "from", from, "to", to)
	return nil
}
