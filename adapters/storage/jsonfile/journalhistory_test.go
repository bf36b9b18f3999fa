package jsonfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/adapters/storage/record"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// A logged write's journal record carries the item once: the change log
// entry it travels with leaves out the after the record holds beside it
// (issue 29: a new node's gist was written twice into one journal line),
// and a restart that reads the entry from the journal gives it back whole.
func TestAJournalRecordCarriesAnItemOnce(t *testing.T) {
	e := newJournalEnv(t)
	gist := "refresh tokens rotate every hour; the old one stays valid 30 s"
	at := domain.Stamp{Now: 1716400200_000000, Session: "0b912bef252c4300"}
	before := e.g.DurableSeq()
	e.g.StartChangeLog()
	if _, err := e.g.PutNode(domain.NodeInput{ID: "refresh", Gist: gist, Notes: []string{"a note of its own"}}, at); err != nil {
		t.Fatal(err)
	}
	if _, err := e.g.PutEdge(domain.EdgeInput{From: "refresh", To: "j1", Rel: "uses", Notes: []string{"an edge note"}}, at); err != nil {
		t.Fatal(err)
	}
	h := domain.HistoryBatch{SeqBefore: before, SeqAfter: e.g.Seq(), Entries: e.g.TakeChangeLog(at, domain.HistoryPut)}
	if err := e.s.CommitLogged(t.Context(), domain.UserGraph, e.g, e.g.Pending(), h); err != nil {
		t.Fatal(err)
	}
	e.g.Checkpoint()
	recs := e.records()
	last := recs[len(recs)-1]
	for _, body := range []string{gist, "a note of its own", "an edge note"} {
		if n := bytes.Count(last, []byte(body)); n != 1 {
			t.Errorf("the journal record holds %q %d times, want once:\n%s", body, n, last)
		}
	}

	e.reopen()
	got, err := e.s.History(t.Context(), domain.UserGraph, ports.HistoryQuery{SinceSeq: before})
	if err != nil {
		t.Fatal(err)
	}
	// What the log keeps of each item (record.MarshalHistoryBatch), newest first.
	b, err := record.MarshalHistoryBatch(h)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := record.UnmarshalHistoryBatch(b)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(kept.Entries)
	slices.Reverse(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the entries read back after a restart differ (-want +got):\n%s", diff)
	}
}

// A journal an older kg wrote carries whole batches in its records: it
// loads as it did, its entries read back whole.
func TestAJournalRecordWithAWholeBatchLoads(t *testing.T) {
	e := newJournalEnv(t)
	at := domain.Stamp{Now: 1716400200_000000, Session: "0b912bef252c4300"}
	before := e.g.DurableSeq()
	e.g.StartChangeLog()
	if _, err := e.g.PutNode(domain.NodeInput{ID: "refresh", Gist: "refresh tokens rotate"}, at); err != nil {
		t.Fatal(err)
	}
	h := domain.HistoryBatch{SeqBefore: before, SeqAfter: e.g.Seq(), Entries: e.g.TakeChangeLog(at, domain.HistoryPut)}
	if err := e.s.CommitLogged(t.Context(), domain.UserGraph, e.g, e.g.Pending(), h); err != nil {
		t.Fatal(err)
	}
	recs := e.records()
	payload, why := parseRecord(bytes.TrimSuffix(recs[len(recs)-1], []byte("\n")))
	at0 := bytes.Index(payload, []byte(`,"history":`))
	if why != "" || at0 < 0 {
		t.Fatalf("the last record does not parse (%s) or has no history:\n%s", why, recs[len(recs)-1])
	}
	whole, err := record.MarshalHistoryBatch(h)
	if err != nil {
		t.Fatal(err)
	}
	old := append(append(append(slices.Clone(payload[:at0]), `,"history":`...), whole...), '}')
	recs[len(recs)-1] = frameRecord(nil, old)
	if err := os.WriteFile(e.journal(), bytes.Join(recs, nil), 0o600); err != nil {
		t.Fatal(err)
	}

	e.reopen()
	got, err := e.s.History(t.Context(), domain.UserGraph, ports.HistoryQuery{SinceSeq: before})
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := record.UnmarshalHistoryBatch(whole)
	if diff := cmp.Diff(kept.Entries, got); diff != "" {
		t.Errorf("the entries of an older kg's record differ (-want +got):\n%s", diff)
	}
}

// A graph file put back by hand from a backup several batches old leaves
// change log lines past its seq: they are cut, so that no entry outlives
// its change, and the file as it was is kept as history.jsonl's .corrupt
// copy for a person to look at. (One line past the seq is what a crash
// leaves of a batch written whole, and is cut without a copy: the
// step-crash suite's FirstSaveOfAProject and CommitOfTheWholeGraph.)
func TestAGraphFilePutBackByHandKeepsTheCutLog(t *testing.T) {
	e := newJournalEnv(t)
	ctx := t.Context()
	if err := e.s.Checkpoint(ctx, domain.UserGraph, e.g); err != nil {
		t.Fatal(err)
	}
	backup, err := os.ReadFile(filepath.Join(e.root, "user.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		at := domain.Stamp{Now: 1716400200_000000 + domain.Micros(i), Session: "0b912bef252c4300"}
		before := e.g.DurableSeq()
		e.g.StartChangeLog()
		if _, err := e.g.PutNode(domain.NodeInput{ID: fmt.Sprintf("later%d", i), Gist: "written after the backup"}, at); err != nil {
			t.Fatal(err)
		}
		h := domain.HistoryBatch{SeqBefore: before, SeqAfter: e.g.Seq(), Entries: e.g.TakeChangeLog(at, domain.HistoryPut)}
		if err := e.s.CommitLogged(ctx, domain.UserGraph, e.g, e.g.Pending(), h); err != nil {
			t.Fatal(err)
		}
		e.g.Checkpoint()
	}
	if err := e.s.Checkpoint(ctx, domain.UserGraph, e.g); err != nil {
		t.Fatal(err)
	}
	histPath := filepath.Join(e.root, "user.history.jsonl")
	logged, err := os.ReadFile(histPath)
	if err != nil || bytes.Count(logged, []byte("\n")) != 3 {
		t.Fatalf("user.history.jsonl holds %q (%v), want the 3 batches' lines", logged, err)
	}
	if err := os.WriteFile(filepath.Join(e.root, "user.json"), backup, 0o600); err != nil {
		t.Fatal(err)
	}

	e.reopen()
	if _, err := e.s.Load(ctx, domain.UserGraph); err != nil {
		t.Fatal(err)
	}
	got, err := e.s.History(ctx, domain.UserGraph, ports.HistoryQuery{})
	if err != nil || len(got) != 0 {
		t.Errorf("history after the backup was put back: %d entries (%v), want none past the graph's seq", len(got), err)
	}
	kept, _ := filepath.Glob(histPath + ".corrupt-*")
	if len(kept) != 1 {
		t.Fatalf("copies of the cut change log: %q, want one", kept)
	}
	if b, err := os.ReadFile(kept[0]); err != nil || !bytes.Equal(b, logged) {
		t.Errorf("%s holds %d bytes (%v), want the change log as it was (%d bytes)", kept[0], len(b), err, len(logged))
	}
	if !strings.Contains(e.logs.String(), "replaced or deleted by hand") {
		t.Errorf("the log does not say why the change log was cut:\n%s", e.logs)
	}
}
