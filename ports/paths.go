package ports

// PathResolver makes project paths canonical
// (docs/design/model.md#levels-and-graphs): the real path when it exists, else
// the cleaned path. Resolving symlinks is file-system I/O, so it sits behind a
// port.
type PathResolver interface {
	// Canonical returns the canonical form of the absolute path p. A relative
	// p is an error of kind invalid.
	Canonical(p string) (string, error)
}
