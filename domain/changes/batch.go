package changes

import (
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// Writer is one write of a committed batch as a change log built
// from the batch's items names it: who made it, as what, and its seqs.
type Writer struct {
	Session, Principal string
	Op                 domain.HistoryOp
	FirstSeq, LastSeq  uint64
}

// BatchEntries builds the change log entries of one committed batch from
// its items before and after (team mode keeps no entries of its own: the
// changes table holds each batch's items, docs/design/trust.md#team-mode):
// each item's entry is the write whose seqs hold the item's change seq,
// stamped with the item's own time (at for a move). Entries come in seq
// order. A batch in which two writes changed one item shows it once, as
// the last write left it.
func BatchEntries(before, after domain.Delta, writers []Writer, at domain.Micros) []domain.HistoryEntry {
	var out []domain.HistoryEntry
	writerOf := func(seq uint64) *Writer {
		for i := range writers {
			if seq >= writers[i].FirstSeq && seq <= writers[i].LastSeq {
				return &writers[i]
			}
		}
		return nil
	}
	add := func(e domain.HistoryEntry, ok bool, ts domain.Micros) {
		if !ok {
			return
		}
		e.Time = at
		if e.Op != domain.HistoryMove && ts != 0 {
			e.Time = ts
		}
		if w := writerOf(e.Seq); w != nil {
			e.Session, e.Principal = w.Session, w.Principal
			e.Op = domain.LoggedAs(w.Op, e.Op)
		}
		out = append(out, e)
	}
	for id, a := range after.Nodes {
		tomb := after.NodeTombstones[id]
		// A read that promoted is a write of op domain.HistoryMove: its new
		// version is a move, not a put.
		recall := false
		if a != nil {
			w := writerOf(a.Version.Seq)
			recall = w != nil && w.Op == domain.HistoryMove
		}
		e, ok := domain.NodeChangeEntry(id, before.Nodes[id], a, tomb, recall)
		ts := domain.Micros(0)
		if a != nil {
			ts = a.Version.TS
		} else if tomb != nil {
			ts = tomb.TS
		}
		add(e, ok, ts)
	}
	for k, a := range after.Edges {
		tomb := after.EdgeTombstones[k]
		e, ok := domain.EdgeChangeEntry(k, before.Edges[k], a, tomb)
		ts := domain.Micros(0)
		if a != nil {
			ts = a.Version.TS
		} else if tomb != nil {
			ts = tomb.TS
		}
		add(e, ok, ts)
	}
	out = foldReplaceImports(out, writers, at)
	sortEntries(out)
	return out
}

// foldReplaceImports folds the entries of each import with replace among
// writers into one entry of the whole graph (moves aside).
func foldReplaceImports(out []domain.HistoryEntry, writers []Writer, at domain.Micros) []domain.HistoryEntry {
	for _, w := range writers {
		if w.Op != domain.HistoryImportReplace {
			continue
		}
		whole := domain.HistoryEntry{Seq: w.LastSeq, Time: at, Session: w.Session, Principal: w.Principal,
			Op: domain.HistoryImportReplace, Graph: true, Detail: "import with replace"}
		kept := out[:0:0]
		for _, e := range out {
			if e.Seq >= w.FirstSeq && e.Seq <= w.LastSeq && e.Op != domain.HistoryMove {
				whole.Items = append(whole.Items, e.ItemChange)
				continue
			}
			kept = append(kept, e)
		}
		if len(whole.Items) > 0 {
			kept = append(kept, whole)
		}
		out = kept
	}
	return out
}

// sortEntries puts entries in seq order, ties by the item's name.
func sortEntries(out []domain.HistoryEntry) {
	slices.SortStableFunc(out, func(a, b domain.HistoryEntry) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return strings.Compare(a.Name(), b.Name())
	})
}
