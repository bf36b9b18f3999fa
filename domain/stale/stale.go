// Package stale judges the files nodes recorded against the files as they
// are now, and names the nodes they make stale: a room of domain
// (docs/decisions/0088-domain-rooms.md).
package stale

import (
	"encoding/json"
	"iter"
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/render"
)

// Staleness (docs/design/trust.md#staleness), what builds on the hashes and
// the marks the graph keeps with each node (domain.FileStamp,
// domain.StaleFile): the files a node names, the judgement of a file an
// adapter read, the nodes marked and the mark a person and the model read.
// It never reads a file itself.

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
func JudgeFile(recorded domain.FileStamp, now FileHash) (domain.FileChange, bool) {
	switch now.State {
	case FileMissing:
		return domain.FileVanished, true
	case FileTooLarge:
		// Recorded at 1 MiB or less, now bigger: its content changed.
		return domain.FileChanged, true
	case FileFound:
		if now.Hash != recorded.Hash {
			return domain.FileChanged, true
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
func NamedFiles(g *domain.Graph, id string) []string {
	n, ok := g.Node(id)
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

// Nodes returns the ids of the nodes that carry a stale mark, sorted.
func Nodes(g *domain.Graph) []string {
	var out []string
	for id, n := range allNodes(g) {
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
func StampedFiles(g *domain.Graph, yield func(id string, stamps []domain.FileStamp) bool) {
	for id, n := range allNodes(g) {
		if len(n.Files) == 0 {
			continue
		}
		named := NamedFiles(g, id)
		var live []domain.FileStamp
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

// Mark is a node's stale marks as the reads show them after its id,
// written by render.StaleMark (the one writer of model-facing lines); ""
// for a node without marks.
func Mark(marks []domain.StaleFile) string {
	if len(marks) == 0 {
		return ""
	}
	files := make([]render.StaleFile, len(marks))
	for i, m := range marks {
		files[i] = render.StaleFile{Path: m.Path, Change: string(m.Change)}
	}
	return render.StaleMark(files)
}

// FileStampMap returns stamps in their stored form, path to hash; nil for
// none.
func FileStampMap(stamps []domain.FileStamp) map[string]string {
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
func StampsOfMap(m map[string]string) []domain.FileStamp {
	var out []domain.FileStamp
	for p, h := range m {
		if s := (domain.FileStamp{Path: p, Hash: h}); p != "" && s.Scheme() != "" {
			out = append(out, s)
		}
	}
	return domain.SortedStamps(out)
}

// ParseFileStamps reads stamps from their stored JSON form, an object of
// path to hash; a value that is not one reads as no stamps (the node is
// then unverifiable, never stale), never as an error: a damaged hash must
// not keep a graph from loading.
func ParseFileStamps(raw []byte) []domain.FileStamp {
	var m map[string]string
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return StampsOfMap(m)
}

// allNodes yields each node of g with its id.
func allNodes(g *domain.Graph) iter.Seq2[string, *domain.Node] {
	return func(yield func(string, *domain.Node) bool) {
		for n := range g.AllNodes() {
			if !yield(n.ID, n) {
				return
			}
		}
	}
}
