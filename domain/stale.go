package domain

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Staleness (docs/design/trust.md#staleness): when a node names files of
// its project — in its touches, or as the file-path end of one of its
// edges — the content hash of each file is recorded with the node when it
// (or the edge) is written. A later check that finds a recorded file
// changed or vanished marks the node possibly stale. The domain keeps the
// hashes and the marks and judges a file from what an adapter read; it
// never reads a file itself.

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

// FileState is what reading a project file found.
type FileState uint8

// The states of a file as an adapter reads it.
const (
	// FileUnverifiable: kg cannot tell (outside the project, a URL, a
	// link out of the root, unreadable, the root missing). Never stale.
	FileUnverifiable FileState = iota
	// FileFound: a regular file of at most MaxHashedFileBytes, hashed.
	FileFound
	// FileMissing: nothing at the path, or not a regular file.
	FileMissing
	// FileTooLarge: a regular file over MaxHashedFileBytes, not read.
	FileTooLarge
)

// MaxHashedFileBytes is the largest file kg reads to hash it (1 MiB): a
// bigger one is not recorded (it is unverifiable), and a recorded file
// grown past it has changed.
const MaxHashedFileBytes = 1 << 20

// FileHash is what reading one file found: its state and, when found, its
// hash with its scheme ("git:…", "sha256:…").
type FileHash struct {
	State FileState
	Hash  string
}

// JudgeFile compares what a check read of a file with the stamp recorded:
// the change, if the file changed or vanished, and whether it did.
// Unverifiable is never stale.
func JudgeFile(recorded FileStamp, now FileHash) (FileChange, bool) {
	switch now.State {
	case FileMissing:
		return FileVanished, true
	case FileTooLarge:
		// Recorded at 1 MiB or less, now bigger: its content changed.
		return FileChanged, true
	case FileFound:
		if now.Hash != recorded.Hash {
			return FileChanged, true
		}
	}
	return "", false
}

// IsURL reports whether a reference is a URL (scheme://…) rather than a
// path: a URL is never a project file.
func IsURL(ref string) bool {
	i := strings.Index(ref, "://")
	if i <= 0 {
		return false
	}
	for _, r := range ref[:i] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// NamedFiles returns the references node id names that may be project files:
// its touches and the ends of its edges that name no node of this graph,
// URLs left out, each once, sorted. Nil for a node that does not exist.
func (g *Graph) NamedFiles(id string) []string {
	n, ok := g.node(id)
	if !ok {
		return nil
	}
	var out []string
	for _, t := range n.Touches {
		if !IsURL(t) {
			out = append(out, t)
		}
	}
	for _, e := range g.EdgesOf(id) {
		other := e.To
		if e.To == id {
			other = e.From
		}
		if other != id && !IsURL(other) && !g.IsNode(other) {
			out = append(out, other)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
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
	c.Files = sortedStamps(stamps)
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

// StaleNodes returns the ids of the nodes that carry a stale mark, sorted.
func (g *Graph) StaleNodes() []string {
	var out []string
	for id, n := range g.allNodes() {
		if len(n.Stale) > 0 {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// StampedFiles yields, for every node that has file stamps, the stamps whose
// path the node still names (NamedFiles): the files a check reads. A stamp
// of a file the node no longer names (an edge deleted since) is not checked.
func (g *Graph) StampedFiles(yield func(id string, stamps []FileStamp) bool) {
	for id, n := range g.allNodes() {
		if len(n.Files) == 0 {
			continue
		}
		named := g.NamedFiles(id)
		var live []FileStamp
		for _, s := range n.Files {
			if _, ok := slices.BinarySearch(named, s.Path); ok {
				live = append(live, s)
			}
		}
		if len(live) > 0 && !yield(id, live) {
			return
		}
	}
}

// StaleMark renders a node's stale marks as the reads show them after its
// id: "[stale: src/auth/refresh.py changed]", at most three files named and
// the rest counted ("[stale: a changed, b vanished, c changed and 2 more]");
// "" for a node without marks.
func StaleMark(marks []StaleFile) string {
	if len(marks) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("[stale: ")
	for i, m := range marks {
		if i == 3 {
			b.WriteString(" and ")
			b.WriteString(strconv.Itoa(len(marks) - 3))
			b.WriteString(" more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.Path)
		b.WriteByte(' ')
		b.WriteString(string(m.Change))
	}
	b.WriteByte(']')
	return b.String()
}

// sortedStamps returns stamps sorted by path, one per path (the last
// given wins); nil for none.
func sortedStamps(stamps []FileStamp) []FileStamp {
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

// FileStampMap returns stamps in their stored form, path to hash; nil for
// none.
func FileStampMap(stamps []FileStamp) map[string]string {
	if len(stamps) == 0 {
		return nil
	}
	m := make(map[string]string, len(stamps))
	for _, s := range stamps {
		m[s.Path] = s.Hash
	}
	return m
}

// StampsOfMap reads stamps from their stored form, sorted by path. A stamp
// whose hash kg cannot read is dropped: the node reads without it, so that
// file is unverifiable, never stale.
func StampsOfMap(m map[string]string) []FileStamp {
	var out []FileStamp
	for p, h := range m {
		if s := (FileStamp{Path: p, Hash: h}); p != "" && s.Scheme() != "" {
			out = append(out, s)
		}
	}
	return sortedStamps(out)
}

// ParseFileStamps reads stamps from their stored JSON form, an object of
// path to hash; a value that is not one reads as no stamps (the node is
// then unverifiable, never stale), never as an error: a damaged hash must
// not keep a graph from loading.
func ParseFileStamps(raw []byte) []FileStamp {
	var m map[string]string
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return StampsOfMap(m)
}
