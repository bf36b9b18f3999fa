package jsonfile

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.ProjectRemover = (*Store)(nil)

// RemovedPrefix begins the name of a project folder being removed: `kg
// project rm` moves the folder out of projects/ to <root>/.removed-<folder>-<unix
// nanoseconds> in one rename, then deletes it. A crash in between leaves that
// folder, which nothing reads (kg doctor names it).
const RemovedPrefix = ".removed-"

// RemoveProject removes the stored memory of the project at path (`kg
// project rm`): its folder, with every file in it, leaves projects/ in one
// rename (fsynced), so that no load can see part of it, and is then
// deleted. It fails with a not_found error when no folder holds the
// project. The caller serializes it with the graph's writes.
func (s *Store) RemoveProject(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return domain.Unavailable(err, "remove project %s", path)
	}
	if !filepath.IsAbs(path) {
		return domain.Invalidf("project", "%q: must be an absolute path", path)
	}
	stored, err := s.List(ctx)
	if err != nil {
		return err
	}
	folder := ""
	for _, sg := range stored {
		if sg.Key.Project == path {
			folder = sg.Slug
		}
	}
	if folder == "" {
		return &domain.Error{Kind: domain.KindNotFound, Field: "project", Msg: "no memory is stored for project " + path}
	}
	f := s.folderFile(folder)
	gone := filepath.Join(s.root, fmt.Sprintf("%s%s-%d", RemovedPrefix, folder, s.now().UnixNano()))
	if err := s.under(f.path()); err != nil {
		return domain.Unavailable(err, "remove project %s", path)
	}

	s.claimMu.Lock()
	st := s.lockState(f)
	err = s.fs.Rename(f.dir, gone)
	if err == nil {
		err = s.fs.SyncDir(s.projectsDir())
	}
	if err == nil {
		err = s.fs.SyncDir(s.root)
	}
	if err == nil {
		// What the store knew of the files goes with them; a caller that
		// waited for st takes a fresh state (lockState).
		st.released = true
		s.gmu.Lock()
		if s.graphs[f.path()] == st {
			delete(s.graphs, f.path())
		}
		s.gmu.Unlock()
		s.forget(path)
	}
	st.mu.Unlock()
	s.claimMu.Unlock()
	if err != nil {
		return domain.Unavailable(err, "remove project %s (folder %s): %v", path, f.dir, err)
	}

	// Out of every lookup's reach: delete what it held.
	entries, err := s.fs.ReadDir(gone)
	for _, e := range entries {
		if rerr := s.fs.Remove(filepath.Join(gone, e.Name())); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err == nil {
		err = s.fs.Remove(gone)
	}
	if err != nil {
		s.log.Warn("storage: a removed project's folder could not be deleted; nothing reads it", "folder", gone, "err", err)
	}
	s.log.Info("storage: project removed", "project", path, "folder", folder)
	return nil
}
