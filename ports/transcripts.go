package ports

import "context"

// Transcripts reads the transcripts Claude Code keeps of its conversations,
// from which a session start with no binding finds the kg session the
// conversation used (docs/design/hooks.md#session-binding).
type Transcripts interface {
	// Tail returns at most max bytes from the end of the transcript at
	// path. A path it must not read — one outside the user's home folder
	// once symlinks are resolved, or not a regular file — is an error, as
	// is one that cannot be read, or not within ctx's deadline or the
	// reader's own; the caller then reads nothing. Nothing that is not a
	// regular file is opened for read: the path comes from a request.
	Tail(ctx context.Context, path string, max int64) ([]byte, error)
}
