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

// ProjectKeys names a project independently of where it is checked out
// (team mode, docs/design/team.md#project-keys): reading a folder is I/O, so
// it sits behind a port.
type ProjectKeys interface {
	// ProjectKey returns the key of the project whose root is the
	// canonical folder root; found is false when the folder gives none
	// (no .kg/project, no git origin) or cannot be read.
	ProjectKey(root string) (key string, found bool, err error)
}
