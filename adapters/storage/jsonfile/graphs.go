package jsonfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/kg-memory/kg/adapters/storage/jsonfile/codec"
	"github.com/kg-memory/kg/adapters/storage/record"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var (
	_ ports.GraphCheckpointer = (*Store)(nil)
	_ ports.GraphReleaser     = (*Store)(nil)
)

// graphState is what the store knows of one graph's files between calls.
// mu serialises the graph's file operations: Load, Commit, Checkpoint.
type graphState struct {
	mu sync.Mutex
	// scanned is set once the journal was read in this process, so that
	// j.size is its length; cleared when the journal vanished.
	scanned bool
	j       journal
	// fileSize is the size of <stem>.json as last read or written; -1 when
	// it is missing or its content is not the graph's (a .prev was loaded
	// instead): the next commit then writes the file whole.
	fileSize int64
	nodes    codec.NodeCache
	// released is set when Release dropped the state: a caller that
	// waited for mu takes the state that replaced it (lockState).
	released bool
	// hist is what the store knows of the graph's change log (history.go).
	hist historyState
}

// lockStoredGraph finds the stored graph of key, locks its state and
// prepares it (its journal read, its files known), for a call that has
// nothing to do on a graph never stored: then st is nil and so is err.
// The caller unlocks st.mu.
func (s *Store) lockStoredGraph(ctx context.Context, key domain.GraphKey) (graphTarget, *graphState, error) {
	f, err := s.graphFile(ctx, key, false)
	if errors.Is(err, errNoFolder) {
		return f, nil, nil
	}
	if err != nil {
		return f, nil, err
	}
	st := s.lockState(f.file)
	if err := s.prepare(st, f.file); err != nil {
		st.mu.Unlock()
		return f, nil, err
	}
	return f, st, nil
}

// lockState returns the state of the graph stored in f, its mu held. A
// state that Release dropped while the caller waited for it is passed
// over for the one that replaced it, so that two states never serve one
// file.
func (s *Store) lockState(f file) *graphState {
	for {
		s.gmu.Lock()
		st, ok := s.graphs[f.path()]
		if !ok {
			st = &graphState{j: journal{path: f.journal()}, fileSize: -1}
			s.graphs[f.path()] = st
		}
		s.gmu.Unlock()
		st.mu.Lock()
		if !st.released {
			return st
		}
		st.mu.Unlock()
	}
}

// Release implements ports.GraphReleaser: the app unloaded the graph, so
// what the store keeps of it between calls goes — the encoded bytes of its
// nodes (half its file's size), what it knows of its journal, and the
// folder its project resolved to. The next call reads them again from the
// files. A journal that holds a failed write not yet cut off is kept
// known, since only this process knows where its good records end.
func (s *Store) Release(key domain.GraphKey) {
	f := file{dir: s.root, stem: "user"}
	if key.Level == domain.LevelProject {
		s.mu.Lock()
		name, ok := s.folders[key.Project]
		delete(s.folders, key.Project)
		s.mu.Unlock()
		if !ok {
			return
		}
		f = s.folderFile(name)
	}
	s.gmu.Lock()
	st := s.graphs[f.path()]
	s.gmu.Unlock()
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.released || st.j.dirty {
		return
	}
	st.released = true
	s.gmu.Lock()
	if s.graphs[f.path()] == st {
		delete(s.graphs, f.path())
	}
	s.gmu.Unlock()
}

// projectPathOf is the project path the file of a graph records: a project
// graph's file names the project it is stored for.
func projectPathOf(key domain.GraphKey, g *domain.Graph) string {
	if key.Level == domain.LevelProject {
		return key.Project
	}
	return g.ProjectPath()
}

// Load implements ports.GraphRepository: the graph file (or its .prev),
// then every journal record above the file's seq.
func (s *Store) Load(ctx context.Context, key domain.GraphKey) (domain.GraphData, error) {
	f, err := s.graphFile(ctx, key, false)
	if errors.Is(err, errNoFolder) {
		return domain.GraphData{ProjectPath: key.Project}, nil
	}
	if err != nil {
		return domain.GraphData{}, err
	}
	st := s.lockState(f.file)
	defer st.mu.Unlock()
	d, err := s.readGraph(ctx, st, f.file)
	if err != nil {
		return domain.GraphData{}, err
	}
	if key.Level == domain.LevelProject {
		d.ProjectPath = key.Project
	}
	return d, nil
}

// collectAfter is the size of a graph file past which a load runs the
// garbage collector once the file is decoded (readGraph).
const collectAfter = 16 << 20

// readGraph reads the graph stored in f: its file, or the .prev, with the
// journal replayed on it. A torn record at the end of the journal is
// dropped; a damaged whole line makes the graph unavailable, the journal
// kept as <stem>.journal.corrupt-<unix time>.
func (s *Store) readGraph(ctx context.Context, st *graphState, f file) (domain.GraphData, error) {
	var d domain.GraphData
	size, err := s.load(ctx, f, func(b []byte) error {
		got, notes, err := codec.DecodeGraph(b)
		if err != nil {
			return err
		}
		for _, n := range notes {
			s.log.Warn("storage: "+n, "file", f.path())
		}
		d = got
		return nil
	})
	if size > collectAfter {
		// The file and the decoder's scaffolding died as decode returned,
		// but the collector set its next goal while they were alive: at
		// twice the file plus the graph. One collection here costs a mark
		// of the decoded graph and sets the goal from what is kept
		// (docs/decisions/0041-loading-a-large-graph.md).
		runtime.GC()
	}
	missing := errors.Is(err, errMissing)
	if missing {
		d, err = domain.GraphData{}, nil
	}
	if err != nil {
		return domain.GraphData{}, err
	}
	b, err := s.fs.ReadFile(f.journal())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		err = linkErr(f.journal(), err)
		return domain.GraphData{}, domain.Unavailable(err, "read %s: %v", f.journal(), err)
	}
	if st.scanned && st.j.dirty && int64(len(b)) > st.j.size {
		// A failed append this process could not cut off: its batch was
		// refused, so it is not part of the graph.
		b = b[:st.j.size]
	}
	records, good, err := scanJournal(b)
	var applied int
	if err == nil {
		applied, err = replayGraph(&d, records)
	}
	if err != nil {
		return domain.GraphData{}, s.journalDamaged(f, b, err)
	}
	dirty := st.scanned && st.j.dirty
	st.fileSize, st.j.size, st.scanned = size, int64(good), true
	if err := s.scanHistory(st, f, records, d.Seq); err != nil {
		return domain.GraphData{}, err
	}
	if dirty {
		return d, nil
	}
	s.dropTornTail(&st.j, f.journal(), good, len(b))
	if applied > 0 {
		s.log.Info("storage: replayed the journal", "journal", f.journal(), "records", applied)
	}
	switch {
	case missing && applied > 0:
		// Only the journal is left: the writes since the last checkpoint
		// are served (and the next save writes the file whole from them);
		// what only the file held is gone.
		s.log.Error("storage: the graph file and its .prev are missing; the graph is rebuilt from its journal alone, "+
			"without what was saved before the journal's first record", "file", f.path(), "journal", f.journal(),
			"records", applied, "hint", "what only the missing file held can come back only from a backup (docs/operations.md#backup-and-restore)")
	case size < 0 && applied > 0:
		s.log.Warn("storage: the journal was replayed on the previous version of the file", "file", f.path())
	}
	return d, nil
}

// journalDamaged keeps a damaged journal, whose bytes are b, as
// <stem>.journal.corrupt-<unix time> (once: a later load finds the copy) and
// returns the unavailable error of its graph, naming the damaged line. The
// journal stays in place, so the graph stays unavailable until someone
// repairs or removes that line; nothing is guessed
// (docs/decisions/0043-damaged-last-journal-record.md).
func (s *Store) journalDamaged(f file, b []byte, cause error) error {
	kept, err := s.keepCopy(f.journal(), b)
	if err != nil {
		kept = "(not kept: " + err.Error() + ")"
	}
	line := "the damaged line"
	var jd *JournalDamage
	if errors.As(cause, &jd) {
		line = fmt.Sprintf("line %d", jd.Line)
	}
	s.log.Error("storage: the journal is damaged; the graph is unavailable", "journal", f.journal(), "err", cause,
		"kept_as", kept, "hint", "see docs/operations.md#damaged-journal-or-sessions-json")
	return domain.Unavailable(cause, "%s is damaged: %v; kept as %s; the graph is unavailable until %s is repaired or removed from the journal",
		f.journal(), cause, kept, line)
}

// keepCopy keeps the bytes b of the file at path as <name>.corrupt-<unix
// time>, unless a copy with those bytes is already there, and returns its
// name. It writes a copy rather than a hard link: the damaged file stays in
// place for a person to repair, and an editor that writes in place would
// change a linked copy with it.
func (s *Store) keepCopy(path string, b []byte) (string, error) {
	dir, prefix := filepath.Dir(path), filepath.Base(path)+".corrupt-"
	if entries, err := s.fs.ReadDir(dir); err == nil {
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), prefix) {
				continue
			}
			name := filepath.Join(dir, e.Name())
			if kb, err := s.fs.ReadFile(name); err == nil && bytes.Equal(kb, b) {
				return name, nil
			}
		}
	}
	base := path + ".corrupt-" + strconv.FormatInt(s.now().Unix(), 10)
	name := base
	for i := 2; ; i++ {
		if _, err := s.fs.Stat(name); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if i > 100 {
			return "", fmt.Errorf("too many copies named %s-*", base)
		}
		name = base + "-" + strconv.Itoa(i)
	}
	w, err := s.fs.Create(name)
	if err != nil {
		return "", err
	}
	_, err = w.Write(b)
	if err == nil {
		err = w.Sync()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = s.fs.SyncDir(dir)
	}
	if err != nil {
		_ = s.fs.Remove(name)
		return "", err
	}
	return name, nil
}

// prepare checks the files of the graph before a commit or checkpoint:
// that no folder on the way is a link, and that the journal and the file
// are still those the store knows (a folder deleted while the server runs
// takes them away: they are then written again). It reads the journal if
// this process has not yet.
func (s *Store) prepare(st *graphState, f file) error {
	if err := s.safeDir(f.dir); err != nil {
		return err
	}
	if err := s.noLinks(f.path(), f.prev(), f.journal()); err != nil {
		return err
	}
	lost := false
	if _, err := s.fs.Stat(st.j.path); st.scanned && (errors.Is(err, fs.ErrNotExist) || s.replaced(&st.j)) {
		// The journal went, and with it any record it held: the file
		// lacks them, so it is written whole before anything else.
		st.j.forget()
		st.scanned, lost = false, st.j.size > 0
	}
	defer func() {
		if lost {
			st.fileSize = -1
		}
	}()
	if _, err := s.fs.Stat(f.path()); err != nil {
		st.fileSize = -1
	}
	if st.scanned {
		if !st.hist.scanned {
			return s.scanHistoryOfJournal(st, f)
		}
		return nil
	}
	st.j.size, st.j.dirty = 0, false
	b, err := s.fs.ReadFile(f.journal())
	var records []journalRecord
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		err = linkErr(f.journal(), err)
		return domain.Unavailable(err, "read %s: %v", f.journal(), err)
	default:
		var good int
		records, good, err = scanJournal(b)
		if err != nil {
			return s.journalDamaged(f, b, err)
		}
		st.j.size = int64(good)
		if good < len(b) {
			if err := s.truncateJournal(&st.j, int64(good)); err != nil {
				st.j.dirty = true
			}
		}
	}
	if fi, err := s.fs.Stat(f.path()); err == nil {
		st.fileSize = fi.Size()
	}
	st.scanned = true
	return s.scanHistory(st, f, records, math.MaxUint64)
}

// scanHistoryOfJournal reads the journal's records for scanHistory when
// the journal itself is known already.
func (s *Store) scanHistoryOfJournal(st *graphState, f file) error {
	b, err := s.fs.ReadFile(f.journal())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		err = linkErr(f.journal(), err)
		return domain.Unavailable(err, "read %s: %v", f.journal(), err)
	}
	records, _, err := scanJournal(b[:min(int64(len(b)), st.j.size)])
	if err != nil {
		return s.journalDamaged(f, b, err)
	}
	return s.scanHistory(st, f, records, math.MaxUint64)
}

// Commit implements ports.GraphRepository: one record naming what cs
// names, appended to the graph's journal and fsynced. A graph without a
// whole file yet (a new one, or one whose file vanished) is written whole
// instead, which also records the project that owns its folder, and so is
// a batch that names the whole graph (a copy) or half of it (bigBatch).
// When the journal has grown past the file (and at least minCheckpoint),
// it is folded into the file after the append.
func (s *Store) Commit(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet) (err error) {
	return s.commit(ctx, key, g, cs, domain.HistoryBatch{})
}

// commit is Commit with the batch's change log entries h (history.go).
func (s *Store) commit(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet, h domain.HistoryBatch) (err error) {
	if err := ctx.Err(); err != nil {
		return domain.Unavailable(err, "save %s graph: %v", key, err)
	}
	f, err := s.graphFile(ctx, key, true)
	if err == nil && key.Level == domain.LevelProject && !s.isDirPath(f.dir) {
		// The folder this project owns has vanished: claim one again.
		f.done(nil)
		s.forget(key.Project)
		f, err = s.graphFile(ctx, key, true)
	}
	if err != nil {
		if domain.KindOf(err) == domain.KindUnavailable {
			return err
		}
		return domain.Unavailable(err, "save %s graph: %v", key, err)
	}
	defer func() { f.done(err) }()
	st := s.lockState(f.file)
	defer st.mu.Unlock()
	if err := s.prepare(st, f.file); err != nil {
		return err
	}
	projectPath := projectPathOf(key, g)
	var hist []byte
	if len(h.Entries) > 0 {
		if hist, err = record.MarshalHistoryBatch(h); err != nil {
			return domain.Unavailable(err, "save %s graph: change log: %v", key, err)
		}
	}
	pending := len(st.hist.pending)
	if hist != nil {
		oldest, newest := entryTimes(h)
		st.hist.pending = append(st.hist.pending, historyBatch{payload: hist, seq: h.SeqAfter, oldest: oldest, newest: newest})
	}
	if st.fileSize < 0 || st.j.dirty || wholeGraph(g, cs) || bigBatch(g, cs) {
		if written, err := s.checkpoint(ctx, st, f.file, g, projectPath); !written {
			st.hist.pending = st.hist.pending[:min(pending, len(st.hist.pending))]
			return domain.Unavailable(err, "save %s graph to %s: %v", key, f.path(), err)
		}
		return nil
	}
	payload := codec.GraphRecord(g, cs, g.DurableSeq(), projectPath)
	if hist != nil {
		// The entries travel in the record: durable with the change, by
		// the same append and fsync. An after the record holds is left to
		// it, so that the line carries each body once (history.go).
		beside, err := record.MarshalHistoryBatchBeside(h, inRecord(g, cs))
		if err != nil {
			return domain.Unavailable(err, "save %s graph: change log: %v", key, err)
		}
		payload = append(append(append(payload[:len(payload)-1], `,"history":`...), beside...), '}')
	}
	rec := frameRecord(nil, payload)
	if err := s.appendRecord(&st.j, rec); err != nil {
		st.hist.pending = st.hist.pending[:pending]
		return domain.Unavailable(err, "save %s graph to %s: %v", key, f.journal(), err)
	}
	if st.j.size > max(st.fileSize, minCheckpoint) {
		if _, err := s.checkpoint(ctx, st, f.file, g, projectPath); err != nil {
			s.log.Error("storage: checkpoint failed; the journal keeps every record", "graph", key.String(), "err", err)
		}
	}
	return nil
}

// bigBatchItems is the size of a batch, in items, from which it may be
// written as a whole file rather than a journal record (bigBatch).
const bigBatchItems = 4096

// bigBatch reports whether cs changes at least half of g's items (and
// bigBatchItems): an import, a first compaction of a large graph. Its
// record would be about as large as the file, built whole in memory and
// written twice (now, and at the next checkpoint); the file is written
// whole instead, streamed from the graph in small chunks, which is as
// durable (docs/design/storage.md#the-json-journal).
func bigBatch(g *domain.Graph, cs domain.ChangeSet) bool {
	n := cs.Size()
	return n >= bigBatchItems && n >= (g.NodeCount()+g.EdgeCount())/2
}

// wholeGraph reports whether cs names every node and edge of g and its
// metadata, as a copy between backends does: journaling it would only
// write the graph twice over time.
func wholeGraph(g *domain.Graph, cs domain.ChangeSet) bool {
	return cs.Meta && g.NodeCount()+g.EdgeCount() > 0 && len(cs.Nodes) >= g.NodeCount() && len(cs.Edges) >= g.EdgeCount()
}

// Checkpoint implements ports.GraphCheckpointer: when the graph's journal
// holds records, the file is written whole from g and the journal emptied.
func (s *Store) Checkpoint(ctx context.Context, key domain.GraphKey, g *domain.Graph) error {
	f, st, err := s.lockStoredGraph(ctx, key)
	if st == nil || err != nil {
		return err
	}
	defer st.mu.Unlock()
	if st.fileSize >= 0 && st.j.size == 0 && !st.j.dirty {
		return nil
	}
	if _, err := s.checkpoint(ctx, st, f.file, g, projectPathOf(key, g)); err != nil {
		return domain.Unavailable(err, "checkpoint %s graph to %s: %v", key, f.path(), err)
	}
	return nil
}

// checkpoint writes the graph file whole from g (tmp, fsync, .prev by a
// hard link, rename, fsync the folder), then empties the journal (truncate,
// fsync). written reports whether the file was written: then g is durable
// even if emptying the journal failed, since replay skips the records the
// file already holds.
func (s *Store) checkpoint(ctx context.Context, st *graphState, f file, g *domain.Graph, projectPath string) (written bool, err error) {
	if err := s.mkdirs(f.dir); err != nil {
		return false, fmt.Errorf("create %s: %w", f.dir, err)
	}
	// The change log first: the journal (or, for a batch written whole,
	// nothing else) holds its pending entries until the file is in place.
	undoHistory, err := s.flushHistory(st, f)
	if err != nil {
		return false, fmt.Errorf("append to %s: %w", historyPath(f), err)
	}
	src := codec.SourceOfGraph(g)
	src.ProjectPath = projectPath
	src.Cache = &st.nodes
	var size int64
	err = s.writeAtomic(ctx, f, func(w io.Writer) error {
		cw := &countingWriter{w: w}
		err := codec.WriteGraph(cw, src)
		size = cw.n
		return err
	})
	if err != nil {
		undoHistory()
		return false, err
	}
	st.fileSize = size
	if st.j.size > 0 || st.j.dirty {
		if err := s.truncateJournal(&st.j, 0); err != nil {
			return true, fmt.Errorf("empty %s: %w", f.journal(), err)
		}
	}
	return true, nil
}

// rewrite writes the graph file whole from d and empties the journal, as a
// checkpoint does from a graph.
func (s *Store) rewrite(ctx context.Context, st *graphState, f file, d domain.GraphData) error {
	st.j.forget()
	st.scanned = false
	if err := s.prepare(st, f); err != nil {
		return err
	}
	data := codec.EncodeGraph(d)
	undoHistory, err := s.flushHistory(st, f)
	if err != nil {
		return err
	}
	if err := s.writeAtomic(ctx, f, writeBytes(data)); err != nil {
		undoHistory()
		return err
	}
	st.fileSize = int64(len(data))
	if st.j.size > 0 || st.j.dirty {
		return s.truncateJournal(&st.j, 0)
	}
	return nil
}

// countingWriter counts what passes through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
