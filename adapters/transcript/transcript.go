// Package transcript reads the tail of a Claude Code transcript file, and
// only one inside the user's home folder
// (docs/design/hooks.md#session-binding): a hook route names the path, and
// nothing in a request may make the server read elsewhere.
package transcript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kg-memory/kg/adapters/namedfile"
	"github.com/kg-memory/kg/ports"
)

var _ ports.Transcripts = Home{}

// Home reads transcripts under Dir, the user's home folder; an empty Dir
// is the current user's ($HOME), read at each call. A transcript is never
// opened for read unless it is a regular file, and its read has a deadline
// (docs/design/trust.md#files-named-by-a-request): a hook names the path,
// and a named pipe there must not hold the request and a thread for ever.
type Home struct {
	Dir string
	// Files opens and reads the transcript; nil reads with the default
	// deadline and no bound on stuck reads.
	Files *namedfile.Reader
}

// Tail implements ports.Transcripts.
func (h Home) Tail(ctx context.Context, path string, max int64) ([]byte, error) {
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
	f, fi, err := namedfile.Open(real, false)
	if err != nil {
		return nil, fmt.Errorf("transcript %s: %w", path, err)
	}
	// The read owns the file and its result until it returns.
	var tail []byte
	err = h.Files.Do(ctx, func() error {
		defer f.Close()
		if fi.Size() > max {
			if _, err := f.Seek(fi.Size()-max, io.SeekStart); err != nil {
				return err
			}
		}
		var err error
		tail, err = io.ReadAll(io.LimitReader(f, max))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("transcript %s: %w", path, err)
	}
	return tail, nil
}

// within reports whether path is root or below it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
