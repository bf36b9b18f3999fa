package jsonfile

import (
	"context"
	"path/filepath"

	"github.com/kg-memory/kg/domain"
)

// MoveProject gives the memory of the project at from to the project at to
// (`kg project mv`, docs/design/storage.md#project-slugs): from's folder, with every
// file in it, is renamed to the folder to would get, and the graph is saved
// there under to, which rewrites its _meta.project_path. Sessions are the
// caller's. It fails, changing nothing, with a not_found error when from
// has no stored graph and a conflict when to has one. The caller holds the
// root's lock: no server runs.
//
// A crash between the rename and the save leaves the folder under its new
// name still owned by from; running the move again finishes it.
func (s *Store) MoveProject(ctx context.Context, from, to string) error {
	if from == to {
		return domain.Invalidf("project", "%s is both the old and the new path", from)
	}
	for _, p := range []string{from, to} {
		if !filepath.IsAbs(p) {
			return domain.Invalidf("project", "%q: must be an absolute path", p)
		}
	}
	stored, err := s.List(ctx)
	if err != nil {
		return err
	}
	folder, taken := "", ""
	for _, sg := range stored {
		switch sg.Key.Project {
		case from:
			folder = sg.Slug
		case to:
			taken = sg.Slug
		}
	}
	if folder == "" {
		return &domain.Error{Kind: domain.KindNotFound, Field: "project", Msg: "no memory is stored for project " + from}
	}
	if taken != "" {
		return &domain.Error{Kind: domain.KindConflict, Field: "project",
			Msg: "project " + to + " already has memory (folder " + taken + "); move or export it first"}
	}
	// Loaded from the folder List found, which is from's even when its name
	// is not the one from would get (a move that a crash interrupted).
	s.remember(from, folder)
	data, err := s.Load(ctx, domain.ProjectGraph(from))
	if err != nil {
		return err
	}

	// The new folder is chosen, and the old one renamed to it, under the
	// root-wide lock that claims folders.
	s.claimMu.Lock()
	name, exists, _, err := s.lookup(ctx, to)
	if err == nil && exists {
		err = &domain.Error{Kind: domain.KindConflict, Field: "project",
			Msg: "folder " + name + " for project " + to + " is in the way; move it out of " + s.projectsDir()}
	}
	if err == nil {
		src, dst := s.folderFile(folder).dir, s.folderFile(name).dir
		if err = s.under(dst); err == nil {
			if err = s.fs.Rename(src, dst); err == nil {
				err = s.fs.SyncDir(s.projectsDir())
			}
		}
		if err != nil {
			err = domain.Unavailable(err, "move %s to %s: %v", src, dst, err)
		}
	}
	if err == nil {
		s.mu.Lock()
		delete(s.folders, from)
		s.folders[to] = name
		s.mu.Unlock()
	}
	s.claimMu.Unlock()
	if err != nil {
		return err
	}

	data.ProjectPath = to
	key := domain.ProjectGraph(to)
	g, _ := domain.Restore(key, data, domain.RestoreOptions{})
	if err := s.Commit(ctx, key, g, g.Everything()); err != nil {
		return err
	}
	s.log.Info("storage: project moved", "from", from, "to", to, "folder", name)
	return nil
}
