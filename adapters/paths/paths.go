// Package paths makes project paths canonical on the local file system
// (model.md, Levels and graphs).
package paths

import (
	"path/filepath"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.PathResolver = OS{}

// OS resolves paths against the operating system's file system.
type OS struct{}

// Canonical returns the real path of p (symlinks resolved) when it exists,
// else the cleaned p. It never walks up to a repository root: the project
// is the folder named, as the replaced server keyed it. A relative p is an
// invalid-argument error; the app names the argument (cwd, project_path).
func (OS) Canonical(p string) (string, error) {
	if p == "" || !filepath.IsAbs(p) {
		return "", domain.Invalidf("path", "must be an absolute path")
	}
	clean := filepath.Clean(p)
	real, err := filepath.EvalSymlinks(clean)
	if err != nil {
		// Missing (not created yet), not ours to look into, or a symlink
		// loop: keyed by the path as given, which is all a key needs.
		return clean, nil
	}
	return real, nil
}
