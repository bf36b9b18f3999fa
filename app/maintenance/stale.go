package maintenance

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kg-memory/kg/app/filecheck"
	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/stale"
)

// The staleness round of the maintenance tick (docs/design/trust.md#staleness).

// checkRoot is the folder the tick reads graph e's files from: in team
// mode the one a write last named, else the folder of this server's most
// recently active session of the project; otherwise the project's path.
func (mt *Maintainer) checkRoot(e *graphstore.Entry) string {
	if mt.Files == nil || e.Key().Level != domain.LevelProject {
		return ""
	}
	if r := e.FilesRoot.Load(); r != nil {
		return *r
	}
	if mt.Store.Shared == nil && filepath.IsAbs(e.Key().Project) {
		return e.Key().Project
	}
	if mt.Store.Shared != nil {
		return mt.Sessions.RootOf(e.Key().Project)
	}
	return ""
}

// staleRound is where the tick's round of the graphs' recorded files
// stands: the graph it is in and the last (path, hash) it read there.
type staleRound struct {
	graph      string // graphEntry.key.String(); "" before the first tick
	path, hash string
}

// CheckStaleFiles is the staleness duty of a maintenance tick: it reads at
// most StaleFilesPerTick recorded files of the loaded project graphs,
// going on from where the last tick stopped — graph by graph in key order,
// file by file in path order within a graph — so that every file is read
// in turn, and sets the marks of the nodes whose files it read. It returns
// how many files it read. A graph whose root cannot be read loses its
// marks: kg cannot tell (unverifiable, never stale).
func (mt *Maintainer) CheckStaleFiles(ctx context.Context) int {
	if mt.Files == nil {
		return 0
	}
	var entries []*graphstore.Entry
	for _, e := range mt.Store.Loaded() {
		if e.Key().Level == domain.LevelProject {
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return 0
	}
	slices.SortFunc(entries, func(a, b *graphstore.Entry) int { return strings.Compare(a.Key().String(), b.Key().String()) })
	mt.staleMu.Lock()
	defer mt.staleMu.Unlock()
	round := mt.staleRound
	start, _ := slices.BinarySearchFunc(entries, round.graph, func(e *graphstore.Entry, k string) int { return strings.Compare(e.Key().String(), k) })
	if start == len(entries) || entries[start].Key().String() != round.graph {
		round = staleRound{} // that graph is gone: start the next one afresh
	}
	budget := max(mt.StaleFilesPerTick, 1)
	read := 0
	for i := range entries {
		e := entries[(start+i)%len(entries)]
		from := staleRound{}
		if e.Key().String() == round.graph {
			from = round
		}
		n, done := mt.checkGraphFiles(ctx, e, from, budget-read)
		read += n.files
		if !done {
			mt.staleRound = n.round(e, from)
			return read
		}
		if ctx.Err() != nil {
			return read
		}
		// The next graph is where the next tick starts, if this one ends
		// the budget exactly.
		mt.staleRound = staleRound{graph: entries[(start+i+1)%len(entries)].Key().String()}
		if read >= budget {
			return read
		}
	}
	return read
}

// checkGraphFiles reads up to budget of e's recorded files after from and
// applies what it found. done reports that it reached the graph's last
// file (or the graph has none to read).
func (mt *Maintainer) checkGraphFiles(ctx context.Context, e *graphstore.Entry, from staleRound, budget int) (n readCount, done bool) {
	root := mt.checkRoot(e)
	e.RLock()
	var checks []filecheck.Check
	if root != "" {
		checks = filecheck.Stamped(e.Graph())
	}
	hasMarks := len(stale.Nodes(e.Graph())) > 0
	e.RUnlock()
	if root == "" {
		if hasMarks {
			mt.clearMarks(e)
		}
		return readCount{}, true
	}
	i := 0
	if from.path != "" || from.hash != "" {
		i, _ = slices.BinarySearchFunc(checks, from, func(c filecheck.Check, r staleRound) int {
			return cmp.Or(strings.Compare(c.Path, r.path), strings.Compare(c.Hash, r.hash))
		})
		if i < len(checks) && checks[i].Path == from.path && checks[i].Hash == from.hash {
			i++ // read last tick
		}
	}
	batch := checks[i:min(len(checks), i+budget)]
	done = i+len(batch) == len(checks)
	if done && hasMarks {
		defer mt.pruneMarks(e, checks)
	}
	if len(batch) == 0 {
		return readCount{}, done
	}
	js, err := filecheck.Read(ctx, mt.Files, root, batch)
	if err != nil {
		if ctx.Err() == nil {
			// The root cannot be read (moved, deleted, unmounted): kg
			// cannot tell, so nothing of it is stale.
			mt.Log.Debug("project root not read for staleness", "graph", e.Key().String(), "root", root, "err", err)
			mt.clearMarks(e)
		}
		return readCount{}, true
	}
	mt.applyMarks(e, js)
	last := batch[len(batch)-1]
	return readCount{files: len(batch), lastPath: last.Path, lastHash: last.Hash}, done
}

// readCount is how many files checkGraphFiles read, and the last one.
type readCount struct {
	files              int
	lastPath, lastHash string
}

func (r readCount) round(e *graphstore.Entry, from staleRound) staleRound {
	if r.files == 0 {
		return staleRound{graph: e.Key().String(), path: from.path, hash: from.hash}
	}
	return staleRound{graph: e.Key().String(), path: r.lastPath, hash: r.lastHash}
}

// applyMarks sets, on each node that recorded a file of js, the mark of that
// file as found: stale when changed or vanished, none otherwise; the node's
// marks for files not read keep what the last read found. A node whose
// stamp of the file changed since the read (written again meanwhile) is
// left to the next round.
func (mt *Maintainer) applyMarks(e *graphstore.Entry, js []filecheck.Judged) {
	e.Lock()
	defer e.Unlock()
	type found struct {
		hash   string
		change domain.FileChange
	}
	byNode := map[string]map[string]found{}
	for _, j := range js {
		for _, id := range j.Check.Nodes {
			m := byNode[id]
			if m == nil {
				m = map[string]found{}
				byNode[id] = m
			}
			m[j.Check.Path] = found{hash: j.Check.Hash, change: j.Change}
		}
	}
	for id, files := range byNode {
		n, ok := e.Graph().Node(id)
		if !ok {
			continue
		}
		var marks []domain.StaleFile
		for _, st := range n.Stale {
			if _, read := files[st.Path]; !read {
				marks = append(marks, st)
			}
		}
		for path, f := range files {
			if !recordedAs(n, path, f.hash) {
				continue
			}
			if f.change != "" {
				marks = append(marks, domain.StaleFile{Path: path, Change: f.change, Recorded: f.hash})
			}
		}
		e.Graph().SetStale(id, marks)
	}
}

// recordedAs reports whether n's stamp of path is hash.
func recordedAs(n *domain.Node, path, hash string) bool {
	i, ok := slices.BinarySearchFunc(n.Files, path, func(s domain.FileStamp, p string) int { return strings.Compare(s.Path, p) })
	return ok && n.Files[i].Hash == hash
}

// pruneMarks drops, at the end of a round of e's graph, the marks of files
// its nodes no longer record as checked (an edge naming the file deleted
// since): checks are every file the round read.
func (mt *Maintainer) pruneMarks(e *graphstore.Entry, checks []filecheck.Check) {
	type key struct{ id, path, hash string }
	live := map[key]bool{}
	for _, c := range checks {
		for _, id := range c.Nodes {
			live[key{id, c.Path, c.Hash}] = true
		}
	}
	e.Lock()
	defer e.Unlock()
	for _, id := range stale.Nodes(e.Graph()) {
		n, _ := e.Graph().Node(id)
		marks := slices.DeleteFunc(slices.Clone(n.Stale), func(m domain.StaleFile) bool {
			return !live[key{id, m.Path, m.Recorded}]
		})
		e.Graph().SetStale(id, marks)
	}
}

// clearMarks drops every stale mark of e's graph.
func (mt *Maintainer) clearMarks(e *graphstore.Entry) {
	e.Lock()
	defer e.Unlock()
	for _, id := range stale.Nodes(e.Graph()) {
		e.Graph().SetStale(id, nil)
	}
}
