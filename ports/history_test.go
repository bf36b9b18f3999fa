package ports

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

// sessionIDs is n node ids such as sessions read: a few words of a small
// vocabulary joined by dashes.
func sessionIDs(n int) []string {
	words := []string{"auth", "token", "refresh", "retry", "policy", "cache", "index", "query", "session", "upload",
		"build", "deploy", "config", "route", "handler", "graph", "budget", "search", "prompt", "journal"}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("u:%s-%s-%s-%d", words[i%20], words[(i/20)%20], words[(i/400)%20], i)
	}
	return out
}

// A seen set of 5,000 keys is stored packed, a fraction of its keys'
// length, and reads back as it was; a short one stays readable (issue 28,
// item 8: sessions.json kept about 260 KB a session that read 5,000 ids).
func TestHookStateStoresALongSeenSetPacked(t *testing.T) {
	h := HookState{ClaudeSessionID: "c1", Seen: sessionIDs(5000), Nudges: 2}
	b, err := MarshalHookState(h)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalHookState(b)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(h) {
		t.Fatalf("the state read back differs: %d keys, first %q", len(got.Seen), got.Seen[:min(1, len(got.Seen))])
	}
	raw := 0
	for _, k := range h.Seen {
		raw += len(k)
	}
	if len(b)*3 > raw {
		t.Errorf("the stored state takes %d bytes for %d bytes of keys, want under a third", len(b), raw)
	}
	short, _ := MarshalHookState(HookState{Seen: []string{"u:a", "p:b"}})
	if string(short) != `{"seen":["u:a","p:b"]}` {
		t.Errorf("a short seen set is stored as %s", short)
	}
	if _, err := UnmarshalHookState([]byte(`{"seen_packed":"not base64!"}`)); err == nil {
		t.Error("a damaged packed seen set was read without an error")
	}
}
