package jsonfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/adapters/storage/jsonfile/codec"
	"github.com/kg-memory/kg/adapters/storage/record"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.HistoryRepository = (*Store)(nil)

// The change log (docs/design/trust.md#the-json-change-log). Beside a graph's
// file lies its history: history.jsonl for a project graph, user.history.jsonl
// for the user graph, framed as the journal frames its records, one line per
// committed batch that logged something:
//
//	{"batch":<record.MarshalHistoryBatch of the batch>,"crc32c":"<8 hex>"}\n
//
// Rotated segments are kept as <history>.<last seq>-<newest entry µs>, both
// numbers zero-padded to 20 digits so that names sort as they number.
//
// Durability: a batch's entries travel in its journal record (its "history"
// member), so they become durable with the change by the same append and the
// same fsync, and a write costs no second fsync. The member leaves out each
// after the record holds (inRecord), so that a line carries each body once;
// a load puts it back (journalBatch). A checkpoint appends the
// entries of the journal's records to the history file, fsyncs it, and only
// then writes the graph file and empties the journal; after a crash between
// the two, the journal still holds the records, and their entries are not
// appended twice: each line carries its batch's last seq, and a load takes
// from the journal only the records past the history's last line. A batch
// written as a whole file instead of a record (a graph's first save, a
// large batch) has its entries appended before the file is written; a crash
// between the two leaves a line whose seq lies past the graph's, which the
// next load cuts off (dropPast): no entry outlives its change.

const (
	// historyRotate is the size from which a history file is rotated at
	// the next checkpoint; so is a file whose first entry is a day older
	// than the entries being appended.
	historyRotate = 4 << 20
	segDigits     = 20
)

// historyBatch is one batch's entries waiting in the journal for the next
// checkpoint: their stored form and the batch's last seq.
type historyBatch struct {
	payload []byte
	seq     uint64
	newest  domain.Micros
	oldest  domain.Micros
}

// historyState is what the store knows of a graph's history files.
type historyState struct {
	scanned bool
	last    uint64        // the last seq of the last batch in the history files
	size    int64         // bytes of whole lines in the current file
	first   domain.Micros // the time of the current file's oldest entry; 0 when it is empty
	newest  domain.Micros // the time of the current file's newest entry
	pending []historyBatch
}

func historyPath(f file) string {
	if f.stem == "graph" {
		return filepath.Join(f.dir, "history.jsonl")
	}
	return filepath.Join(f.dir, f.stem+".history.jsonl")
}

// segmentName is the name a rotated history file takes.
func segmentName(f file, last uint64, newest domain.Micros) string {
	return fmt.Sprintf("%s.%0*d-%0*d", historyPath(f), segDigits, last, segDigits, max(int64(newest), 0))
}

type segment struct {
	path   string
	last   uint64
	newest domain.Micros
}

// segments lists the rotated history files of f, oldest first.
func (s *Store) segments(f file) ([]segment, error) {
	entries, err := s.fs.ReadDir(f.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	prefix := filepath.Base(historyPath(f)) + "."
	var out []segment
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || len(rest) != 2*segDigits+1 || rest[segDigits] != '-' {
			continue
		}
		last, err1 := strconv.ParseUint(rest[:segDigits], 10, 64)
		newest, err2 := strconv.ParseInt(rest[segDigits+1:], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, segment{path: filepath.Join(f.dir, e.Name()), last: last, newest: domain.Micros(newest)})
	}
	slices.SortFunc(out, func(a, b segment) int { return cmpUint(a.last, b.last) })
	return out, nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// historyHead reads the seq range of a stored batch without decoding it:
// the payload starts {"seq":[<before>,<after>].
func historyHead(p []byte) (uint64, bool) {
	rest, ok := bytes.CutPrefix(p, []byte(`{"seq":[`))
	if !ok {
		return 0, false
	}
	comma := bytes.IndexByte(rest, ',')
	end := bytes.IndexByte(rest, ']')
	if comma < 0 || end < comma {
		return 0, false
	}
	v, err := strconv.ParseUint(string(rest[comma+1:end]), 10, 64)
	return v, err == nil
}

// entryTimes returns the times of the oldest and newest entry of a batch.
func entryTimes(h domain.HistoryBatch) (oldest, newest domain.Micros) {
	if len(h.Entries) == 0 {
		return 0, 0
	}
	return h.Entries[0].Time, h.Entries[len(h.Entries)-1].Time
}

// scanHistory reads what the store must know of the graph's history files:
// it cuts a torn last line off the current file, and the lines of batches
// past graphSeq (a whole-file save the crash stopped before its file was
// in place), and takes as pending the entries of the journal's records
// that the files lack. graphSeq is the graph's seq as loaded, or
// math.MaxUint64 when the graph itself is not read (a commit that comes
// before any load). A damaged whole line is logged and skipped: the graph
// stays available, and its change log loses that line alone.
func (s *Store) scanHistory(st *graphState, f file, records []journalRecord, graphSeq uint64) error {
	hs := &st.hist
	*hs = historyState{}
	path := historyPath(f)
	b, err := s.fs.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		err = linkErr(path, err)
		return domain.Unavailable(err, "read %s: %v", path, err)
	}
	lines, good := historyLines(b, func(line int, why string) {
		s.log.Error("storage: a line of the change log is damaged and skipped", "file", path, "line", line, "reason", why)
	})
	cut := good
	if i := slices.IndexFunc(lines, func(l historyLine) bool { return l.seq > graphSeq }); i >= 0 {
		cut = lines[i].offset
		s.dropPast(path, b, len(lines)-i, lines[i].seq, graphSeq)
		lines = lines[:i]
	}
	if cut < len(b) {
		if err := s.cutFile(path, int64(cut)); err != nil {
			return domain.Unavailable(err, "cut %s to its durable lines: %v", path, err)
		}
	}
	hs.size = int64(cut)
	// The lines of the last seq: a batch that takes no seq (a migration's
	// entry, a project move's) ends at the seq of the one before it, so a
	// journal record at that seq is in the file only if its payload is.
	atLast := map[string]bool{}
	for i := len(lines) - 1; i >= 0 && lines[i].seq == lines[len(lines)-1].seq; i-- {
		atLast[string(lines[i].payload)] = true
	}
	if len(lines) > 0 {
		hs.last = lines[len(lines)-1].seq
		if h, err := record.UnmarshalHistoryBatch(lines[0].payload); err == nil {
			hs.first, _ = entryTimes(h)
		}
		if h, err := record.UnmarshalHistoryBatch(lines[len(lines)-1].payload); err == nil {
			_, hs.newest = entryTimes(h)
		}
	} else {
		segs, err := s.segments(f)
		if err != nil {
			return domain.Unavailable(err, "list the change log of %s: %v", f.path(), err)
		}
		if len(segs) > 0 {
			hs.last = segs[len(segs)-1].last
		}
	}
	for _, rec := range records {
		var head struct {
			Seq     [2]uint64       `json:"seq"`
			History json.RawMessage `json:"history"`
		}
		if err := json.Unmarshal(rec.payload, &head); err != nil || len(head.History) == 0 {
			continue // replay names a record that does not decode
		}
		if head.Seq[1] < hs.last || head.Seq[1] > graphSeq {
			continue
		}
		h, payload, err := journalBatch(rec.payload, head.History)
		if err != nil || (head.Seq[1] == hs.last && (atLast[string(payload)] || len(lines) == 0)) {
			continue
		}
		oldest, newest := entryTimes(h)
		hs.pending = append(hs.pending, historyBatch{payload: payload, seq: head.Seq[1], oldest: oldest, newest: newest})
	}
	hs.scanned = true
	return nil
}

// dropPast reports the n lines of the history file at path (whose bytes
// are b) that lie past the graph's seq, from seq on, which the caller cuts
// off. One line, the last, is what a crash leaves of a batch written as a
// whole file (its entries appended and fsynced first, its file never put
// in place): its change was never acknowledged, and dropping its entries
// is the recovery, not damage. More lines mean the graph file went back by
// more than one batch — put back from a backup, or deleted, by hand — and a
// copy of the file as it was is kept for a person to look at
// (docs/design/trust.md#the-json-change-log).
func (s *Store) dropPast(path string, b []byte, n int, seq, graphSeq uint64) {
	if n == 1 {
		s.log.Warn("storage: dropped the change log entries of a save a crash stopped before its graph file was in place",
			"file", path, "seq", seq, "graph_seq", graphSeq)
		return
	}
	kept, err := s.keepCopy(path, b)
	if err != nil {
		kept = "(not kept: " + err.Error() + ")"
	}
	s.log.Warn("storage: dropped change log entries past the graph's seq: the graph file was replaced or deleted by hand",
		"file", path, "lines", n, "from_seq", seq, "graph_seq", graphSeq, "kept_as", kept)
}

// inRecord reports which changes of a batch committed as a journal record
// the record holds as the change log keeps them: the last write of an item
// in the batch, which the record holds as the graph now has it. A version
// with a principal is never left to the record, which does not store one.
func inRecord(g *domain.Graph, cs domain.ChangeSet) func(c *domain.ItemChange) bool {
	return func(c *domain.ItemChange) bool {
		if c.Edge {
			if _, named := cs.Edges[c.Key]; !named || c.AfterEdge == nil || c.AfterEdge.Version.Principal != "" {
				return false
			}
			e, ok := g.Edge(c.Key)
			return ok && record.SameLoggedEdge(c.AfterEdge, e)
		}
		if _, named := cs.Nodes[c.ID]; !named || c.AfterNode == nil || c.AfterNode.Version.Principal != "" {
			return false
		}
		n, ok := g.Node(c.ID)
		return ok && record.SameLoggedNode(c.AfterNode, n)
	}
}

// journalBatch is the change log batch a journal record carries in its
// "history" member, and its stored form as history.jsonl keeps it: with
// every after the record holds put back (the record carried it once), the
// bytes MarshalHistoryBatch wrote at the commit. A record of a kg before
// that carries the whole batch, which is kept as it is.
func journalBatch(payload, hist []byte) (domain.HistoryBatch, []byte, error) {
	if !bytes.Contains(hist, []byte(`"after_in_record":true`)) {
		h, err := record.UnmarshalHistoryBatch(hist)
		return h, slices.Clone(hist), err
	}
	items := codec.NewReplay()
	if err := items.Add(payload); err != nil {
		return domain.HistoryBatch{}, nil, err
	}
	h, err := record.UnmarshalHistoryBatchBeside(hist, items)
	if err != nil {
		return h, nil, err
	}
	whole, err := record.MarshalHistoryBatch(h)
	return h, whole, err
}

type historyLine struct {
	payload []byte
	seq     uint64
	offset  int
}

// historyLines splits a history file into its good lines; good is the
// length of the prefix whole lines fill (what follows is a torn tail).
// Damaged whole lines are reported to bad and skipped.
func historyLines(b []byte, bad func(line int, why string)) (lines []historyLine, good int) {
	for n := 1; good < len(b); n++ {
		end := bytes.IndexByte(b[good:], '\n')
		if end < 0 {
			return lines, good
		}
		p, why := parseRecord(b[good : good+end])
		var seq uint64
		if why == "" {
			var ok bool
			if seq, ok = historyHead(p); !ok {
				why = "it does not start with its seq range"
			}
		}
		if why != "" {
			if bad != nil {
				bad(n, why)
			}
		} else {
			lines = append(lines, historyLine{payload: p, seq: seq, offset: good})
		}
		good += end + 1
	}
	return lines, good
}

// cutFile truncates the file at path to size and fsyncs it.
func (s *Store) cutFile(path string, size int64) error {
	f, err := s.fs.Append(path)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// flushHistory appends the pending entries to the current history file and
// fsyncs it (rotating the file first when it is large or old). On error the
// file is cut back to what it held and nothing is pending any less. It
// returns the size to cut back to should the save they belong to fail.
func (s *Store) flushHistory(st *graphState, f file) (undo func(), err error) {
	hs := &st.hist
	if len(hs.pending) == 0 {
		return func() {}, nil
	}
	path := historyPath(f)
	if hs.size > 0 && (hs.size >= historyRotate || hs.first < hs.pending[len(hs.pending)-1].newest-domain.Day) {
		if err := s.rotateHistory(st, f); err != nil {
			return nil, err
		}
	}
	var buf []byte
	for _, p := range hs.pending {
		buf = frameRecord(buf, p.payload)
	}
	_, statErr := s.fs.Stat(path)
	created := errors.Is(statErr, fs.ErrNotExist)
	w, err := s.fs.Append(path)
	if err != nil {
		return nil, err
	}
	was := hs.size
	_, err = w.Write(buf)
	if err == nil {
		err = w.Sync()
	}
	if err == nil && created {
		err = s.fs.SyncDir(f.dir)
	}
	if err != nil {
		_ = w.Truncate(was)
		_ = w.Close()
		return nil, err
	}
	if cerr := w.Close(); cerr != nil {
		s.log.Warn("storage: closing the change log failed", "file", path, "err", cerr)
	}
	saved := *hs
	if hs.first == 0 {
		hs.first = hs.pending[0].oldest
	}
	hs.newest = hs.pending[len(hs.pending)-1].newest
	hs.last = hs.pending[len(hs.pending)-1].seq
	hs.size += int64(len(buf))
	hs.pending = nil
	return func() {
		// The save failed after its entries were appended: they go,
		// and wait in the journal (or nowhere, for a batch refused).
		if err := s.cutFile(path, was); err != nil {
			s.log.Error("storage: could not cut the entries of a failed save off the change log; the next load does",
				"file", path, "err", err)
		}
		*hs = saved
	}, nil
}

// rotateHistory renames the current history file to a segment.
func (s *Store) rotateHistory(st *graphState, f file) error {
	hs := &st.hist
	if err := s.fs.Rename(historyPath(f), segmentName(f, hs.last, hs.newest)); err != nil {
		return err
	}
	if err := s.fs.SyncDir(f.dir); err != nil {
		return err
	}
	hs.size, hs.first, hs.newest = 0, 0, 0
	return nil
}

// CommitLogged implements ports.HistoryRepository: Commit with the batch's
// entries in its journal record (or, for a batch written whole, appended to
// the history file before the file is written).
func (s *Store) CommitLogged(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet, h domain.HistoryBatch) error {
	return s.commit(ctx, key, g, cs, h)
}

// History implements ports.HistoryRepository: the entries still in the
// journal, then the current history file, then its segments, newest first.
func (s *Store) History(ctx context.Context, key domain.GraphKey, q ports.HistoryQuery) ([]domain.HistoryEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, domain.Unavailable(err, "read the history of the %s graph: %v", key, err)
	}
	f, st, err := s.lockStoredGraph(ctx, key)
	if st == nil || err != nil {
		return nil, err
	}
	defer st.mu.Unlock()
	col := ports.NewHistoryCollector(q)
	add := func(p []byte) (bool, error) {
		h, err := record.UnmarshalHistoryBatch(p)
		if err != nil {
			return false, err
		}
		return col.Add(h), nil
	}
	for _, p := range slices.Backward(st.hist.pending) {
		if more, err := add(p.payload); err != nil || !more {
			return col.Entries(), err
		}
	}
	files := []string{historyPath(f.file)}
	segs, err := s.segments(f.file)
	if err != nil {
		return nil, domain.Unavailable(err, "list the change log of %s: %v", f.path(), err)
	}
	for _, sg := range slices.Backward(segs) {
		if q.NotBefore != 0 && sg.newest < q.NotBefore {
			break
		}
		files = append(files, sg.path)
	}
	for _, path := range files {
		b, err := s.fs.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			err = linkErr(path, err)
			return nil, domain.Unavailable(err, "read %s: %v", path, err)
		}
		if path == files[0] {
			b = b[:min(int64(len(b)), st.hist.size)]
		}
		lines, _ := historyLines(b, nil)
		for _, l := range slices.Backward(lines) {
			more, err := add(l.payload)
			if err != nil {
				s.log.Error("storage: a line of the change log does not decode; skipped", "file", path, "err", err)
				continue
			}
			if !more {
				return col.Entries(), nil
			}
		}
	}
	return col.Entries(), nil
}

// PruneHistory implements ports.HistoryRepository: a current file that
// holds an entry older than cutoff is rotated, and every segment whose
// newest entry is older than cutoff is removed.
func (s *Store) PruneHistory(ctx context.Context, key domain.GraphKey, cutoff domain.Micros) error {
	f, st, err := s.lockStoredGraph(ctx, key)
	if st == nil || err != nil {
		return err
	}
	defer st.mu.Unlock()
	if st.hist.size > 0 && st.hist.first < cutoff {
		if err := s.rotateHistory(st, f.file); err != nil {
			return domain.Unavailable(err, "rotate %s: %v", historyPath(f.file), err)
		}
	}
	segs, err := s.segments(f.file)
	if err != nil {
		return domain.Unavailable(err, "list the change log of %s: %v", f.path(), err)
	}
	removed := false
	for _, sg := range segs {
		if sg.newest >= cutoff {
			break
		}
		if err := s.fs.Remove(sg.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return domain.Unavailable(err, "remove %s: %v", sg.path, err)
		}
		removed = true
	}
	if removed {
		if err := s.fs.SyncDir(f.dir); err != nil {
			return domain.Unavailable(err, "sync %s: %v", f.dir, err)
		}
	}
	return nil
}
