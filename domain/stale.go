package domain

import (
	"slices"
	"strings"
)

// Staleness (docs/design/trust.md#staleness): when a node names files of
// its project — in its touches, or as the file-path end of one of its
// edges — the content hash of each file is recorded with the node when it
// (or the edge) is written. A later check that finds a recorded file
// changed or vanished marks the node possibly stale. The graph keeps the
// hashes and the marks; the room domain/stale judges a file from what an
// adapter read (docs/decisions/0088-domain-rooms.md). Neither reads a file.

// FileStamp is a project file a node names and its content hash when the
// node, or the edge that names the file, was last written. Hash carries
// its scheme: "git:" and a git blob id in a git work tree, else "sha256:"
// and the file's SHA-256, both in lower-case hex.
type FileStamp struct {
	Path string // as the node names it: the touch or the edge end
	Hash string
}

// The hash schemes of a FileStamp.
const (
	HashGit    = "git"
	HashSHA256 = "sha256"
)

// Scheme returns the scheme of the stamp's hash ("git", "sha256"); "" for
// a hash kg cannot read.
func (s FileStamp) Scheme() string {
	scheme, _, ok := strings.Cut(s.Hash, ":")
	if !ok || (scheme != HashGit && scheme != HashSHA256) {
		return ""
	}
	return scheme
}

// FileChange is how a recorded file differs from what was recorded.
type FileChange string

// The changes a check reports.
const (
	FileChanged  FileChange = "changed"  // its content hash differs
	FileVanished FileChange = "vanished" // it is no longer a file at its path
)

// StaleFile is a recorded file that changed or vanished since the node
// recorded it. Recorded is the hash the check compared with, so that a mark
// judged before the node recorded a new hash is not shown against the new one.
type StaleFile struct {
	Path     string
	Change   FileChange
	Recorded string
}

// RecordFiles replaces the file stamps of node id with stamps (sorted here)
// and drops its stale marks: what a write of the node records. It changes
// no version and takes no seq; the stamps are saved with the batch. False
// when the node does not exist.
func (g *Graph) RecordFiles(id string, stamps []FileStamp) bool {
	n, ok := g.node(id)
	if !ok {
		return false
	}
	if len(stamps) == 0 && n.Files == nil && n.Stale == nil {
		return true
	}
	c := n.clone()
	c.Files = SortedStamps(stamps)
	c.Stale = nil
	g.setNode(id, c)
	return true
}

// RecordFile records one file stamp of node id, as a write of an edge that
// names the file does, and drops the node's stale mark for that path. It
// changes no version and takes no seq. False when the node does not exist.
func (g *Graph) RecordFile(id string, stamp FileStamp) bool {
	n, ok := g.node(id)
	if !ok {
		return false
	}
	i, found := slices.BinarySearchFunc(n.Files, stamp.Path, func(s FileStamp, p string) int { return strings.Compare(s.Path, p) })
	if found && n.Files[i].Hash == stamp.Hash && !slices.ContainsFunc(n.Stale, func(s StaleFile) bool { return s.Path == stamp.Path }) {
		return true
	}
	c := n.clone()
	c.Files = slices.Clone(n.Files)
	if found {
		c.Files[i] = stamp
	} else {
		c.Files = slices.Insert(c.Files, i, stamp)
	}
	c.Stale = slices.DeleteFunc(slices.Clone(n.Stale), func(s StaleFile) bool { return s.Path == stamp.Path })
	if len(c.Stale) == 0 {
		c.Stale = nil
	}
	g.setNode(id, c)
	return true
}

// SetStale sets the stale marks of node id as a check found them, sorted by
// path. A mark is derived from the files, not stored: this changes nothing
// to save, no version and no seq, and is not journaled (a rollback may drop
// it; the next check finds it again). It counts as a change of the graph, so
// that what is kept from its nodes' lines (a preload's order) is redone.
// False when the node does not exist or its marks are already those.
func (g *Graph) SetStale(id string, marks []StaleFile) bool {
	n, ok := g.node(id)
	if !ok {
		return false
	}
	if len(marks) == 0 {
		marks = nil
	}
	marks = slices.Clone(marks)
	slices.SortFunc(marks, func(a, b StaleFile) int { return strings.Compare(a.Path, b.Path) })
	if slices.Equal(marks, n.Stale) {
		return false
	}
	c := n.clone()
	c.Stale = marks
	g.putNode(id, c)
	return true
}

// SortedStamps returns stamps sorted by path, one per path (the last
// given wins); nil for none.
func SortedStamps(stamps []FileStamp) []FileStamp {
	if len(stamps) == 0 {
		return nil
	}
	out := slices.Clone(stamps)
	slices.SortStableFunc(out, func(a, b FileStamp) int { return strings.Compare(a.Path, b.Path) })
	w := 0
	for i := range out {
		if w > 0 && out[w-1].Path == out[i].Path {
			out[w-1] = out[i]
			continue
		}
		out[w] = out[i]
		w++
	}
	return out[:w]
}
