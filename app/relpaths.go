package app

import (
	"path/filepath"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// Repository-relative paths (docs/design/team.md#repository-relative-paths):
// in a shared graph, a touch or an edge end that is an absolute file path
// under the folder the request (or its session) named the project by is
// stored relative to that folder, so that it means the same file in every
// developer's checkout.

// rootOf is the folder a project was named by, when it is one and the
// graphs are shared: path, given as an absolute path and resolved to the
// project p. It is "" on a server of one person, whose paths are its own,
// and for a project named by its key.
func (r *resolver) rootOf(p, path string) string {
	if r.store.Shared == nil || p == "" || !filepath.IsAbs(path) {
		return ""
	}
	return filepath.Clean(path)
}

// relativeTo returns end relative to root, with forward slashes, when end
// is an absolute path inside root (root itself is "."); else end as given.
func relativeTo(root, end string) string {
	if root == "" || !filepath.IsAbs(end) {
		return end
	}
	rel, err := filepath.Rel(root, filepath.Clean(end))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return end // outside the project: kept as it is
	}
	return filepath.ToSlash(rel)
}

// relativeNode makes the touches of in relative to t's root, for a write
// to the project graph k.
func (t target) relativeNode(k domain.GraphKey, in domain.NodeInput) domain.NodeInput {
	if t.root == "" || k.Level != domain.LevelProject || in.Touches == nil {
		return in
	}
	touches := make([]string, len(in.Touches))
	for i, p := range in.Touches {
		touches[i] = relativeTo(t.root, p)
	}
	in.Touches = touches
	return in
}

// relativeEdge makes the file-path ends of in relative to t's root, for a
// write to the project graph k.
func (t target) relativeEdge(k domain.GraphKey, in domain.EdgeInput) domain.EdgeInput {
	if t.root == "" || k.Level != domain.LevelProject {
		return in
	}
	in.From, in.To = relativeTo(t.root, in.From), relativeTo(t.root, in.To)
	return in
}

// relativeEdgeKey makes the file-path ends of key relative to t's root, for
// the project graph k: an edge is named for a deletion as it is for a put,
// so the absolute path it was put with deletes it.
func (t target) relativeEdgeKey(k domain.GraphKey, key domain.EdgeKey) domain.EdgeKey {
	if t.root == "" || k.Level != domain.LevelProject {
		return key
	}
	key.From, key.To = relativeTo(t.root, key.From), relativeTo(t.root, key.To)
	return key
}
