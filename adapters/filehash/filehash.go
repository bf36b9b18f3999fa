// Package filehash reads project files for the staleness check
// (docs/design/trust.md#staleness): the git blob id of a file in a git work
// tree, else its SHA-256, read only inside the project's root and only up
// to stale.MaxHashedFileBytes.
package filehash

import (
	"context"
	"crypto/sha1" //nolint:gosec // git's blob ids are SHA-1: the id is the name git gives the content, not a security measure
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/adapters/namedfile"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/stale"
	"github.com/kg-memory/kg/ports"
)

var _ ports.FileHasher = OS{}

// OS hashes files of the local file system. A file is never opened for
// read unless it is a regular file, and each read has a deadline
// (docs/design/trust.md#files-named-by-a-request): a touch may name a
// named pipe, and the tick reads every touched file again.
type OS struct {
	// Files opens and reads each file; nil reads with the default
	// deadline and no bound on stuck reads.
	Files *namedfile.Reader
}

// HashFiles implements ports.FileHasher. The root is resolved once (its
// links followed) and every file must resolve inside it: a touch that is a
// link to a file elsewhere is unverifiable, as kg reads nothing outside the
// project. A file's hash is of its bytes on disk: in a git work tree the id
// `git hash-object --no-filters` gives, which is the id git stores unless a
// filter (core.autocrlf, an eol or LFS attribute) rewrites the file as git
// adds it (docs/design/trust.md#what-is-hashed).
func (h OS) HashFiles(ctx context.Context, root string, files []ports.FileQuery) ([]stale.FileHash, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("project root %q: not an absolute path", root)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("project root %q: %w", root, err)
	}
	if st, err := os.Stat(real); err != nil {
		return nil, fmt.Errorf("project root %q: %w", root, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("project root %q: not a folder", root)
	}
	own := domain.HashSHA256
	if inGitWorkTree(real) {
		own = domain.HashGit
	}
	out := make([]stale.FileHash, len(files))
	var buf []byte // reused from file to file, grown to the largest read
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		scheme := f.Scheme
		if scheme == "" {
			scheme = own
		}
		out[i], buf = hashFile(ctx, h.Files, real, root, f.Path, scheme, buf)
	}
	return out, nil
}

// inGitWorkTree reports whether dir is inside a git work tree: it or a
// folder above it holds .git (a folder, or the file of a linked work tree
// or a submodule).
func inGitWorkTree(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return false
		}
		dir = up
	}
}

// hashFile hashes the file a node names as path, under the resolved root
// real (root as named), read through files. buf is reused between files.
func hashFile(ctx context.Context, files *namedfile.Reader, real, root, path, scheme string, buf []byte) (stale.FileHash, []byte) {
	unverifiable := stale.FileHash{State: stale.FileUnverifiable}
	if stale.IsURL(path) || path == "" {
		return unverifiable, buf
	}
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(real, filepath.FromSlash(path))
	} else if rel, ok := inside(root, full); ok {
		// An absolute path under the root as named: the same file under
		// the resolved root (the root may be reached through a link).
		full = filepath.Join(real, rel)
	}
	resolved, err := resolve(real, full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, ok := inside(real, filepath.Clean(full)); !ok {
			return unverifiable, buf // outside the project: kg cannot tell
		}
		return stale.FileHash{State: stale.FileMissing}, buf
	case err != nil:
		return unverifiable, buf
	}
	if _, ok := inside(real, resolved); !ok {
		return unverifiable, buf // a link out of the project, or a path outside it
	}
	fh, st, err := namedfile.Open(resolved, false)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return stale.FileHash{State: stale.FileMissing}, buf
	case errors.Is(err, namedfile.ErrNotRegular):
		return stale.FileHash{State: stale.FileMissing}, buf // a folder, a pipe, a device: not a file, never opened
	case err != nil:
		return unverifiable, buf
	case st.Size() > stale.MaxHashedFileBytes:
		_ = fh.Close()
		return stale.FileHash{State: stale.FileTooLarge}, buf
	}
	// Read one byte past the limit: a file that grew since the stat is
	// caught too.
	if want := int(st.Size()) + 1; cap(buf) < want {
		buf = make([]byte, 0, want+want/8) // room for a file that grew since the stat
	}
	// The read owns the file and the buffer until it returns: one that
	// outlives its deadline goes on writing into the buffer, so the
	// buffer is then given up, not reused.
	var got []byte
	err = files.Do(ctx, func() error {
		defer fh.Close()
		var err error
		got, err = readUpTo(fh, buf[:0], stale.MaxHashedFileBytes+1)
		return err
	})
	if err != nil {
		if errors.Is(err, namedfile.ErrTimeout) || ctx.Err() != nil {
			return unverifiable, nil
		}
		return unverifiable, got
	}
	if len(got) > stale.MaxHashedFileBytes {
		return stale.FileHash{State: stale.FileTooLarge}, got
	}
	return stale.FileHash{State: stale.FileFound, Hash: Sum(scheme, got)}, got
}

// resolve is filepath.EvalSymlinks(full) for a full path that may lie under
// the resolved root real: the root's own components are not looked at again
// (one lstat a component below it, not one a component from /), and the
// first link met hands the rest to EvalSymlinks.
func resolve(real, full string) (string, error) {
	rel, ok := inside(real, filepath.Clean(full))
	if !ok || rel == "." {
		return filepath.EvalSymlinks(full)
	}
	cur := real
	parts := strings.Split(rel, string(filepath.Separator))
	for i, p := range parts {
		next := filepath.Join(cur, p)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return filepath.EvalSymlinks(filepath.Join(append([]string{next}, parts[i+1:]...)...))
		}
		cur = next
	}
	return cur, nil
}

// readUpTo appends at most limit bytes of r to buf.
func readUpTo(r io.Reader, buf []byte, limit int) ([]byte, error) {
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		end := min(cap(buf), limit)
		n, err := r.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// Sum is the hash of content in scheme, with its prefix: "git:" and the
// blob id git gives content (SHA-1 of "blob <size>\x00" and the content),
// or "sha256:" and its SHA-256.
func Sum(scheme string, content []byte) string {
	var h hash.Hash
	if scheme == domain.HashGit {
		h = sha1.New() //nolint:gosec // see the import
		h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	} else {
		scheme, h = domain.HashSHA256, sha256.New()
	}
	h.Write(content)
	return scheme + ":" + hex.EncodeToString(h.Sum(nil))
}

// inside returns p relative to dir when p is dir or lies under it.
func inside(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}
