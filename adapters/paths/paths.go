// Package paths makes project paths canonical on the local file system
// (docs/design/model.md#levels-and-graphs).
package paths

import (
	"path/filepath"
	"unicode/utf8"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.PathResolver = OS{}

// OS resolves paths against the operating system's file system.
type OS struct{}

// Canonical returns the real path of p (symlinks resolved) when it exists,
// else the cleaned p. It never walks up to a repository root: the project
// is the folder named, as the replaced server keyed it. A relative p is an
// invalid-argument error, and so is one that is not valid UTF-8; the app
// names the argument (cwd, project_path).
func (OS) Canonical(p string) (string, error) {
	if p == "" || !filepath.IsAbs(p) {
		return "", domain.Invalidf("path", "must be an absolute path")
	}
	if !utf8.ValidString(p) {
		// A project's path is stored as text (JSON, the sessions): bytes
		// that are not UTF-8 would read back as another path.
		return "", domain.Invalidf("path", "must be valid UTF-8")
	}
	clean := filepath.Clean(p)
	real, err := filepath.EvalSymlinks(clean)
	if err != nil {
		// Missing (not created yet), not ours to look into, or a symlink
		// loop: keyed by the path as given, which is all a key needs.
		return clean, nil
	}
	if !utf8.ValidString(real) {
		return "", domain.Invalidf("path", "%q resolves to %q, which is not valid UTF-8", p, real)
	}
	return real, nil
}
