// Package transcript reads the tail of a Claude Code transcript file, and
// only one inside the user's home folder
// (docs/design/hooks.md#session-binding): a hook route names the path, and
// nothing in a request may make the server read elsewhere.
package transcript

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kg-memory/kg/ports"
)

var _ ports.Transcripts = Home{}

// Home reads transcripts under Dir, the user's home folder; an empty Dir
// is the current user's ($HOME), read at each call.
type Home struct{ Dir string }

// Tail implements ports.Transcripts.
func (h Home) Tail(path string, max int64) ([]byte, error) {
	home := h.Dir
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return nil, fmt.Errorf("no home folder to read transcripts in: %w", err)
		}
	}
	if !filepath.IsAbs(path) {
		return nil, errors.New("the transcript path is not absolute")
	}
	root, err := filepath.EvalSymlinks(home)
	if err != nil {
		return nil, fmt.Errorf("home folder %s: %w", home, err)
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(path))
	if err != nil {
		return nil, err
	}
	if !within(root, real) {
		return nil, fmt.Errorf("%s is outside the home folder %s", path, root)
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > max {
		if _, err := f.Seek(fi.Size()-max, io.SeekStart); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(io.LimitReader(f, max))
}

// within reports whether path is root or below it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
