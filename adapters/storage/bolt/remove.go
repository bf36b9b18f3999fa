package bolt

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.ProjectRemover = (*Store)(nil)

// RemoveProject removes the bucket of the project at path in one
// transaction (`kg project rm`). A bucket whose pages the check at Open
// found damaged is not deleted, which would read every page to free it:
// it is moved, unread, to quarantine/<unix time>/project and kept, as
// damaged sessions are.
func (s *Store) RemoveProject(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return unavailable(err, "remove project %s", path)
	}
	key := domain.ProjectGraph(path)
	if err := validKey(key); err != nil {
		return err
	}
	if problem, bad := s.damagedArea(area{kind: areaProjects}); bad {
		return s.areaError("the list of project graphs", area{kind: areaProjects}, problem, "changed")
	}
	damaged := s.projectDamaged(path)
	var c counter
	where := ""
	err := recovered(func() error {
		return s.db.Update(func(tx *bbolt.Tx) error {
			projects := tx.Bucket(bucketProjects)
			if projects == nil || projects.Bucket([]byte(path)) == nil {
				return &domain.Error{Kind: domain.KindNotFound, Field: "project", Msg: "no memory is stored for project " + path}
			}
			c.deletes++
			if !damaged {
				return projects.DeleteBucket([]byte(path))
			}
			q, err := tx.CreateBucketIfNotExists(bucketQuarantine)
			if err != nil {
				return err
			}
			now := time.Now().Unix()
			name := strconv.FormatInt(now, 10)
			dst, err := q.CreateBucket([]byte(name))
			for i := 2; errors.Is(err, berrors.ErrBucketExists); i++ {
				name = fmt.Sprintf("%d-%d", now, i)
				dst, err = q.CreateBucket([]byte(name))
			}
			if err != nil {
				return err
			}
			where = fmt.Sprintf("bucket %s/%s/%s of %s", bucketQuarantine, name, path, s.path)
			return projects.MoveBucket([]byte(path), dst)
		})
	})
	if err != nil {
		if domain.KindOf(err) == domain.KindNotFound {
			return err
		}
		return unavailable(err, "remove project %s from %s", path, s.path)
	}
	s.record(c)
	if damaged {
		s.damageMu.Lock()
		delete(s.damaged, area{kind: areaProject, name: path})
		s.damageMu.Unlock()
		s.log.Info("bolt: damaged project removed; its pages are kept, unread", "project", path, "kept_in", where)
	} else {
		s.log.Info("bolt: project removed", "project", path)
	}
	return nil
}
