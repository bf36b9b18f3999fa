package record

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

// movesBatch is one compaction run of n moves and one promotion by read,
// as a commit logs them, around a put.
func movesBatch(n int) domain.HistoryBatch {
	h := domain.HistoryBatch{SeqBefore: 100}
	seq := uint64(100)
	next := func() uint64 { seq++; return seq }
	h.Entries = append(h.Entries, domain.HistoryEntry{Seq: next(), Time: 5, Session: "0b912bef252c4300", Op: domain.HistoryPut,
		ItemChange: domain.ItemChange{ID: "kept", AfterNode: &domain.Node{ID: "kept", Gist: "a put", Version: domain.Version{V: 1, Seq: seq, TS: 5}}}})
	h.Entries = append(h.Entries, domain.HistoryEntry{Seq: next(), Time: 6, Session: "0b912bef252c4300", Op: domain.HistoryMove,
		ItemChange: domain.ItemChange{ID: "read-me", Tier: &domain.TierChange{From: "archived", To: "active"}}})
	for i := range n {
		to := "archived"
		if i%7 == 0 {
			to = "orphaned"
		}
		h.Entries = append(h.Entries, domain.HistoryEntry{Seq: next(), Time: 7, Op: domain.HistoryMove,
			ItemChange: domain.ItemChange{ID: fmt.Sprintf("lesson-about-subsystem-%05d", i), Tier: &domain.TierChange{From: "active", To: to}}})
	}
	h.SeqAfter = seq
	return h
}

// The moves of one write are stored as one compact entry and read back as
// the entries they were (issue 28, item 8): a compaction run that archives
// 1,000 nodes costs about what their ids and seqs cost, not an entry each.
func TestMovesAreStoredCompactly(t *testing.T) {
	h := movesBatch(1000)
	b, err := MarshalHistoryBatch(h)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalHistoryBatch(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(h, got); diff != "" {
		t.Fatalf("the batch read back differs (-want +got):\n%s", diff)
	}
	// An id of 28 characters and a seq of 4 or 5 digits: 40 bytes a move
	// leaves room for the quotes and commas, and none for a wrapper.
	if per := float64(len(b)) / 1000; per > 40 {
		t.Errorf("the batch takes %.0f bytes a move, want at most 40:\n%.600s", per, b)
	}
}
