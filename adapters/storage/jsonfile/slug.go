package jsonfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kg-memory/kg/adapters/storage/record"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// rawName is the last element of the project key, as the replaced server
// named folders.
func rawName(key string) string {
	return filepath.Base(filepath.Clean(key))
}

// validFolder reports whether name can be one folder under projects/.
func validFolder(name string) bool {
	return name != "" && name != "." && name != ".." && len(name) <= 255 &&
		!strings.ContainsAny(name, "/\\\x00")
}

func (s *Store) projectsDir() string { return filepath.Join(s.root, "projects") }

func (s *Store) folderFile(name string) file {
	return file{dir: filepath.Join(s.projectsDir(), name), stem: "graph"}
}

// errNoFolder: the project has no folder yet, so its graph is empty.
var errNoFolder = errors.New("no folder")

// graphTarget is where a graph is written. done must be called after the
// write: it releases the root-wide lock taken for a first save and, on
// success, records the claim.
type graphTarget struct {
	file
	done func(error)
}

// graphFile finds the file of the graph named by key. For a project not yet
// known to own a folder it looks the folder up under the root-wide lock;
// with claim (a save) it keeps that lock until done, creating the folder,
// so that two projects can never claim one folder.
func (s *Store) graphFile(ctx context.Context, key domain.GraphKey, claim bool) (graphTarget, error) {
	noop := func(error) {}
	if key.Level == domain.LevelUser {
		return graphTarget{file{dir: s.root, stem: "user"}, noop}, nil
	}
	p := key.Project
	if p == "" {
		return graphTarget{}, domain.Invalidf("project", "a project graph needs a project path")
	}
	if !utf8.ValidString(p) {
		// The file records its project as JSON text, which would read
		// back as another path: the graph could never be found again.
		return graphTarget{}, domain.Invalidf("project", "%q is not valid UTF-8", p)
	}
	// Every lookup below goes through projects/: it must not be a link.
	if err := s.safeDir(s.projectsDir()); err != nil {
		return graphTarget{}, err
	}
	s.mu.Lock()
	name, ok := s.folders[p]
	s.mu.Unlock()
	if ok {
		return graphTarget{s.folderFile(name), noop}, nil
	}

	s.claimMu.Lock()
	unlock := true
	defer func() {
		if unlock {
			s.claimMu.Unlock()
		}
	}()
	name, exists, owned, err := s.lookup(ctx, p)
	if err != nil {
		return graphTarget{}, err
	}
	f := s.folderFile(name)
	if err := s.under(f.path()); err != nil {
		return graphTarget{}, domain.Unavailable(err, "project %s", p)
	}
	if owned {
		s.remember(p, name)
		return graphTarget{f, noop}, nil
	}
	if !claim {
		if !exists {
			return graphTarget{}, errNoFolder
		}
		return graphTarget{f, noop}, nil
	}
	if err := s.mkdirs(f.dir); err != nil {
		return graphTarget{}, domain.Unavailable(err, "create %s: %v", f.dir, err)
	}
	unlock = false
	return graphTarget{f, func(err error) {
		if err == nil {
			s.remember(p, name)
		}
		s.claimMu.Unlock()
	}}, nil
}

func (s *Store) remember(p, name string) {
	s.mu.Lock()
	s.folders[p] = name
	s.mu.Unlock()
}

// forget drops what the store remembers of project p's folder, so that
// the next lookup finds (or claims) it again.
func (s *Store) forget(p string) {
	s.mu.Lock()
	delete(s.folders, p)
	s.mu.Unlock()
}

// lookup finds the folder of project p (docs/design/storage.md#folder-lookup),
// in order: (a) a folder named exactly the raw name that p owns or nobody owns;
// (b) the slug, if p owns it; (c) <slug>-<hash> if it exists; else a new
// folder: the slug if free, otherwise <slug>-<hash>. A new folder that an alias
// points to from an old folder with a graph takes that graph over. It reports
// whether the folder exists and whether p already owns it.
func (s *Store) lookup(ctx context.Context, p string) (name string, exists, owned bool, err error) {
	raw, slug := rawName(p), record.ProjectSlug(p)
	hashed := slug + "-" + record.ProjectHash(p)
	// A folder this project could use that is a link is refused, never
	// followed (nor passed over for another name).
	for _, n := range []string{raw, slug, hashed} {
		if !validFolder(n) {
			continue
		}
		if err := s.safeDir(filepath.Join(s.projectsDir(), n)); err != nil {
			return "", false, false, err
		}
	}
	if validFolder(raw) && s.isDir(raw) {
		owner, err := s.owner(ctx, raw)
		if err != nil {
			return "", false, false, err
		}
		if owner == p || owner == "" {
			return raw, true, owner == p, nil
		}
	}
	if slug != raw && s.isDir(slug) {
		owner, err := s.owner(ctx, slug)
		if err != nil {
			return "", false, false, err
		}
		if owner == p {
			return slug, true, true, nil
		}
	}
	if s.isDir(hashed) {
		owner, err := s.owner(ctx, hashed)
		if err != nil {
			return "", false, false, err
		}
		return hashed, true, owner == p, nil
	}
	name = slug
	if s.isDir(slug) {
		name = hashed
	}
	moved, err := s.applyAlias(ctx, p, name)
	if err != nil {
		return "", false, false, err
	}
	return name, moved, moved, nil
}

func (s *Store) isDir(name string) bool { return s.isDirPath(filepath.Join(s.projectsDir(), name)) }

// isDirPath reports whether path is a folder (not a link to one).
func (s *Store) isDirPath(path string) bool {
	fi, err := s.fs.Stat(path)
	return err == nil && fi.IsDir()
}

// ownerMeta is the part of a graph file that says which project it is.
type ownerMeta struct {
	Meta struct {
		ProjectPath *string `json:"project_path"`
	} `json:"_meta"`
}

// fromHead reads the project path from the head of a graph file, without
// decoding the rest: kg writes _meta first and its keys sorted, so
// "project_path" comes before the large "tombstones" and "versions".
// Decoding a 100k-node file only to learn its project took a quarter of a
// cold load (docs/decisions/0041-loading-a-large-graph.md). It reports
// false, with m unchanged, when the head is not in that order (a file of the
// replaced server, or one without a project path), and the caller decodes
// the whole file. A file damaged after its head still names its project,
// as kg wrote it; the load that follows finds the damage.
func (m *ownerMeta) fromHead(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	for _, want := range []json.Token{json.Delim('{'), "_meta", json.Delim('{')} {
		if tok, err := dec.Token(); err != nil || tok != want {
			return false
		}
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false
		}
		switch key {
		case "project_path":
			var p string
			if err := dec.Decode(&p); err != nil {
				return false
			}
			m.Meta.ProjectPath = &p
			return true
		case "progress": // the only key sorted before it, and small
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return false
			}
		default:
			return false
		}
	}
	return false
}

// owner returns the project path recorded in the folder's graph, "" when
// the folder has no graph or the graph names no project. A folder whose
// graph file and .prev are gone is owned by the project its journal's
// records name: they hold acknowledged writes, which must go to that
// project and no other. A graph that cannot be read, or a journal with
// records that name no project, makes the owner unknown: an unavailable
// error, since guessing could hand one project's graph to another.
func (s *Store) owner(ctx context.Context, name string) (string, error) {
	f := s.folderFile(name)
	var owner string
	_, err := s.load(ctx, f, func(b []byte) error {
		var m ownerMeta
		if !m.fromHead(b) {
			if err := json.Unmarshal(b, &m); err != nil {
				return err
			}
		}
		owner = ""
		if m.Meta.ProjectPath != nil {
			owner = *m.Meta.ProjectPath
		}
		return nil
	})
	if errors.Is(err, errMissing) {
		return s.journalOwner(f)
	}
	if err != nil {
		return "", domain.Unavailable(err, "cannot tell which project owns %s: %v", f.dir, err)
	}
	return owner, nil
}

// journalOwner is the owner of a folder that has a journal but neither a
// graph file nor its .prev (docs/design/storage.md#folder-lookup).
func (s *Store) journalOwner(f file) (string, error) {
	b, err := s.fs.ReadFile(f.journal())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		err = linkErr(f.journal(), err)
		return "", domain.Unavailable(err, "cannot tell which project owns %s: read %s: %v", f.dir, f.journal(), err)
	}
	owner, records := journalOwner(b)
	if owner == "" && records {
		return "", domain.Unavailable(errDamaged, "cannot tell which project owns %s: %s and %s are missing and the records of %s name no project",
			f.dir, f.path(), f.prev(), f.journal())
	}
	return owner, nil
}

// applyAlias honours aliases.json for a project whose folder name has no
// graph: if an alias points to name from an old folder that has one, the
// old folder is moved to name and its project path rewritten to p. The
// alias is kept. It reports whether it moved a folder.
func (s *Store) applyAlias(ctx context.Context, p, name string) (bool, error) {
	aliases, err := s.aliases(ctx)
	if err != nil || len(aliases) == 0 {
		return false, err
	}
	for old, target := range aliases {
		if target != name || old == name || !validFolder(old) || !s.isDir(old) {
			continue
		}
		from, to := s.folderFile(old), s.folderFile(name)
		if err := s.under(from.path()); err != nil {
			return false, domain.Unavailable(err, "aliases.json")
		}
		if _, err := s.fs.Stat(from.path()); errors.Is(err, fs.ErrNotExist) {
			if _, err := s.fs.Stat(from.prev()); errors.Is(err, fs.ErrNotExist) {
				continue // no graph there
			}
		}
		fromState := s.lockState(from)
		d, err := s.readGraph(ctx, fromState, from)
		fromState.j.forget()
		fromState.scanned = false
		fromState.mu.Unlock()
		if err != nil {
			return false, err
		}
		if s.isDir(name) {
			// An empty folder left behind; rename cannot replace a
			// folder that has files, and this one has no graph.
			if err := s.fs.Remove(to.dir); err != nil {
				return false, domain.Unavailable(err, "alias %s → %s: folder %s is in the way: %v", old, name, to.dir, err)
			}
		}
		if err := s.fs.Rename(from.dir, to.dir); err != nil {
			return false, domain.Unavailable(err, "alias %s → %s: move folder: %v", old, name, err)
		}
		if err := s.fs.SyncDir(s.projectsDir()); err != nil {
			return false, domain.Unavailable(err, "alias %s → %s: %v", old, name, err)
		}
		// The moved graph is written whole under its new project, its
		// journal (moved with it) folded in.
		d.ProjectPath = p
		toState := s.lockState(to)
		err = s.rewrite(ctx, toState, to, d)
		toState.mu.Unlock()
		if err != nil {
			return false, domain.Unavailable(err, "alias %s → %s: rewrite project path: %v", old, name, err)
		}
		s.log.Info("storage: project folder moved by alias", "from", old, "to", name, "project", p)
		return true, nil
	}
	return false, nil
}

// aliases reads aliases.json ({"old-slug": "new-slug"}); missing is none.
func (s *Store) aliases(ctx context.Context) (map[string]string, error) {
	var m map[string]string
	_, err := s.load(ctx, file{dir: s.root, stem: "aliases"}, func(b []byte) error {
		return json.Unmarshal(b, &m)
	})
	if errors.Is(err, errMissing) {
		return nil, nil
	}
	return m, err
}

// List implements ports.GraphRepository: every folder under projects/
// whose graph names its project, sorted by folder name. A folder whose
// owner cannot be read is logged and skipped, so the others stay listed.
func (s *Store) List(ctx context.Context) ([]ports.StoredGraph, error) {
	if err := s.safeDir(s.projectsDir()); err != nil {
		return nil, err
	}
	entries, err := s.fs.ReadDir(s.projectsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		err = linkErr(s.projectsDir(), err)
		return nil, domain.Unavailable(err, "list %s: %v", s.projectsDir(), err)
	}
	var out []ports.StoredGraph
	seen := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() || !validFolder(e.Name()) {
			continue
		}
		owner, err := s.owner(ctx, e.Name())
		if err != nil {
			s.log.Error("storage: project folder skipped", "folder", e.Name(), "err", err)
			continue
		}
		if owner == "" {
			continue
		}
		if seen[owner] {
			s.log.Warn("storage: two folders claim one project; listing the first", "project", owner, "folder", e.Name())
			continue
		}
		seen[owner] = true
		out = append(out, ports.StoredGraph{Key: domain.ProjectGraph(owner), Slug: e.Name()})
	}
	return out, nil
}

// String describes the store for logs.
func (s *Store) String() string { return fmt.Sprintf("jsonfile.Store(%s)", s.root) }
