// Package importing is an import of a document into a graph
// (docs/design/http.md#export-and-import): the modes (Mode), the check of a
// document against the limits of docs/design/model.md#identifiers-and-limits
// (Validate), and what an import writes (Import): which nodes and progress
// states differ from what the graph holds, with which tier, times and use.
// The graph's bulk write for it, Graph.WriteImport, does the deletions of a
// replace and the writes themselves (docs/decisions/0108-importing-a-room.md).
// Like domain it is pure: no I/O, no goroutines, no wall clock
// (docs/decisions/0101-compaction-a-room.md).
package importing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// Mode says what an import does with the items of the graph that the
// imported document does not hold.
type Mode string

// The import modes.
const (
	// Merge keeps the items the document does not hold.
	Merge Mode = "merge"
	// Replace deletes them: the graph ends up holding exactly the
	// document's nodes, edges and progress.
	Replace Mode = "replace"
)

// ParseMode checks an import mode named by a client.
func ParseMode(field, s string) (Mode, error) {
	switch Mode(s) {
	case Merge, Replace:
		return Mode(s), nil
	}
	return "", domain.Invalidf(field, "%q is not one of merge, replace", s)
}

// Validate checks every item of an imported document against the limits
// of docs/design/model.md#identifiers-and-limits before anything is changed,
// and returns the document with its gists trimmed and its notes' CR LF line
// breaks made LF. An error names the item and the field, e.g.
// `nodes[3].gist: 1204 chars, limit 1000`. The document's seqs, version
// numbers, sessions, tombstones and metadata are the bookkeeping of the graph
// it came from and are not looked at.
//
// The document given is left as it was; its lists are copied only when an
// item has to change, so checking a document of 500,000 nodes costs no
// second copy of it (an import checks it twice: before the graph is loaded,
// and as it is applied).
func Validate(d domain.GraphData) (domain.GraphData, error) {
	nodes := d.Nodes
	for i, n := range d.Nodes {
		at := domain.ItemField("nodes", i)
		in, err := domain.NodeInput{ID: n.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches}.Validate()
		if err != nil {
			return d, domain.Within(at, err)
		}
		if n.Tier > domain.Orphaned {
			return d, domain.Invalidf(at+".tier", "%s is not one of active, archived, orphaned", n.Tier)
		}
		for _, t := range []struct {
			name string
			v    domain.Micros
		}{{"created_ts", n.Created}, {"last_read_ts", n.LastRead}, {"last_write_ts", n.Version.TS}, {"orphaned_ts", n.OrphanedAt}} {
			if t.v < 0 {
				return d, domain.Invalidf(at+"."+t.name, "must not be negative")
			}
		}
		if in.Gist != n.Gist || !slices.Equal(in.Notes, n.Notes) {
			if &nodes[0] == &d.Nodes[0] {
				nodes = slices.Clone(d.Nodes)
			}
			nodes[i].Gist, nodes[i].Notes = in.Gist, in.Notes
		}
	}
	if i, j, dup := firstDuplicate(len(d.Nodes), func(i int) string { return d.Nodes[i].ID }, strings.Compare); dup {
		return d, domain.Invalidf(domain.ItemField("nodes", j)+".id", "%q is also nodes[%d]; a document names each node once", d.Nodes[j].ID, i)
	}
	edges := d.Edges
	for i, e := range d.Edges {
		at := domain.ItemField("edges", i)
		in, err := (domain.EdgeInput{From: e.From, To: e.To, Rel: e.Rel, Notes: e.Notes}).Validate()
		if err != nil {
			return d, domain.Within(at, err)
		}
		if e.Version.TS < 0 {
			return d, domain.Invalidf(at+".last_write_ts", "must not be negative")
		}
		if !slices.Equal(in.Notes, e.Notes) {
			if &edges[0] == &d.Edges[0] {
				edges = slices.Clone(d.Edges)
			}
			edges[i].Notes = in.Notes
		}
	}
	if i, j, dup := firstDuplicate(len(d.Edges), func(i int) domain.EdgeKey { return d.Edges[i].Key() }, domain.EdgeKey.Compare); dup {
		return d, domain.Invalidf(domain.ItemField("edges", j), "%s is also edges[%d]; a document names each edge once", d.Edges[j].Key(), i)
	}
	tasks := make([]string, 0, len(d.Progress))
	for task := range d.Progress {
		tasks = append(tasks, task)
	}
	slices.Sort(tasks) // the first bad task reported is the same every time
	for _, task := range tasks {
		at := "progress[" + fmt.Sprintf("%q", task) + "]"
		if err := domain.ValidateID(at, task); err != nil {
			return d, err
		}
		if err := domain.ValidateProgressState(at, d.Progress[task]); err != nil {
			return d, err
		}
	}
	d.Nodes, d.Edges = nodes, edges
	return d, nil
}

// firstDuplicate finds two of n items with the same key: the pair (i, j),
// i < j, with the smallest j, the one a scan in order meets first. It sorts
// the items' indexes rather than filling a map of every key: 4 bytes an
// item instead of a map entry, for a document of hundreds of thousands.
func firstDuplicate[K any](n int, key func(int) K, cmp func(a, b K) int) (i, j int, dup bool) {
	ix := make([]int32, n)
	for k := range ix {
		ix[k] = int32(k)
	}
	slices.SortStableFunc(ix, func(a, b int32) int { return cmp(key(int(a)), key(int(b))) })
	j = -1
	for k := 1; k < n; k++ {
		// Stable: among equal keys, indexes stay in order, so ix[k-1] is the
		// earlier of a pair and ix[k] the later.
		if cmp(key(int(ix[k-1])), key(int(ix[k]))) == 0 && (j < 0 || int(ix[k]) < j) {
			i, j = int(ix[k-1]), int(ix[k])
		}
	}
	return i, j, j >= 0
}

// Import writes an imported document into g
// (docs/design/http.md#export-and-import). The document is validated first
// (Validate); a document that fails changes nothing.
//
// Each node, edge and progress state of the document whose content differs
// from what g holds is written as a change made at `at`: it takes the next
// version and seq, like a put, so sessions hear of it through kg_sync.
// Unlike a put, a node written keeps the document's tier and times (created,
// last read, last write, orphaned), which is what lets a graph move between
// machines without losing what compaction knows of it; a time later than
// at.Now is taken as at.Now, a missing last write as at.Now, other missing
// times stay unknown. An item whose content g already holds — a node's
// gist, notes and touches, an edge's notes, a progress state as JSON — is
// left alone, whatever tier and times the document gives it: compaction may
// have moved it since the document was made, and g's tier is the newer
// word. So importing the same document twice changes nothing the second
// time (docs/design/http.md#export-and-import).
//
// With Replace, the nodes (with their edges), edges and progress states the
// document does not hold are deleted first, leaving tombstones. The nodes
// and progress states a replace keeps are those of the document, so what
// is decided of them before the deletions stays true after.
func Import(g *domain.Graph, d domain.GraphData, mode Mode, at domain.Stamp) (domain.ImportResult, error) {
	if _, err := ParseMode("mode", string(mode)); err != nil {
		return domain.ImportResult{}, err
	}
	d, err := Validate(d)
	if err != nil {
		return domain.ImportResult{}, err
	}
	w := domain.ImportWrite{Replace: mode == Replace, Doc: d}
	slices.SortFunc(d.Nodes, func(a, b domain.Node) int { return strings.Compare(a.ID, b.ID) })
	for i := range d.Nodes {
		if n := importedNode(g, &d.Nodes[i], at); n != nil {
			w.Nodes = append(w.Nodes, n)
		} else {
			w.Unchanged++
		}
	}
	tasks := make([]string, 0, len(d.Progress))
	for task := range d.Progress {
		tasks = append(tasks, task)
	}
	slices.Sort(tasks)
	for _, task := range tasks {
		if old, ok := g.Progress(task); ok && sameJSON(old, d.Progress[task]) {
			w.Unchanged++
			continue
		}
		w.Progress = append(w.Progress, task)
	}
	return g.WriteImport(w, at), nil
}

// importedNode is the document's node as an import writes it, but for its
// version, or nil if g holds it unchanged.
func importedNode(g *domain.Graph, in *domain.Node, at domain.Stamp) *domain.Node {
	clamp := func(t domain.Micros) domain.Micros { return min(t, at.Now) }
	n := &domain.Node{
		ID: in.ID, Gist: in.Gist, Notes: slices.Clone(in.Notes), Touches: slices.Clone(in.Touches),
		Tier: in.Tier, Created: clamp(in.Created), LastRead: clamp(in.LastRead),
		Files: slices.Clone(in.Files), // the document's file stamps (docs/design/trust.md#staleness)
	}
	if n.Tier == domain.Orphaned {
		n.OrphanedAt = clamp(in.OrphanedAt)
		if n.OrphanedAt == 0 {
			n.OrphanedAt = at.Now
		}
	}
	old, had := g.Node(in.ID)
	if had && sameContent(old, n) {
		return nil
	}
	n.Use = importedUse(in, old, at.Now)
	written := clamp(in.Version.TS)
	if written == 0 {
		written = at.Now
	}
	n.Version.TS = written // Graph.WriteImport gives it its version and seq
	return n
}

// importedUse is the use count of a node an import writes
// (docs/design/compaction.md#the-use-count): the document's, its day taken as
// today when it is later, like its times; for a document without one, the
// count the graph holds of the node (a better word than a guess), else the
// default from the document's times, as a node loaded without one gets. It
// is never counted as a use: imports are not sessions.
func importedUse(in, old *domain.Node, now domain.Micros) domain.Use {
	switch {
	case in.Use.Known:
		u := in.Use
		u.Day = min(u.Day, domain.UseDay(now))
		return u
	case old != nil:
		return old.Use
	}
	return domain.DefaultUse(min(max(in.Version.TS, in.LastRead), now))
}

// sameContent reports whether an imported node says nothing new about a
// stored one: the same gist, notes and touches. Its tier and times are what
// compaction knows of it, and the stored ones are the newer: comparing them
// made every import after a compaction write back every node it had moved.
func sameContent(old, n *domain.Node) bool {
	return old.Gist == n.Gist && slices.Equal(old.Notes, n.Notes) && slices.Equal(old.Touches, n.Touches)
}

// sameJSON reports whether two stored JSON values are the same value
// written with the same member order, whatever the white space.
func sameJSON(a, b domain.RawJSON) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}
