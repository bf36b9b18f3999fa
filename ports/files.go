package ports

import (
	"context"

	"github.com/kg-memory/kg/domain/stale"
)

// FileHasher reads the files of a project for the staleness check
// (docs/design/trust.md#staleness): reading files is I/O, so it sits behind a
// port.
type FileHasher interface {
	// HashFiles hashes each file of files under the project folder root: a
	// relative path is taken from root, an absolute one must lie inside it.
	// A file is read only inside root (links resolved) and only up to
	// stale.MaxHashedFileBytes. Scheme says how: domain.HashGit,
	// domain.HashSHA256, or "" for the project's own (git blob ids in a git
	// work tree, else SHA-256). The result holds one FileHash per file, in
	// order. An error says root cannot be read (missing, not a folder): every
	// file is then unverifiable.
	HashFiles(ctx context.Context, root string, files []FileQuery) ([]stale.FileHash, error)
}

// FileQuery is one file to hash: its path as a node names it and the hash
// scheme ("" for the project's own).
type FileQuery struct {
	Path   string
	Scheme string
}
