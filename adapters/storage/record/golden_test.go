package record

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
)

// goldenBatch is a change log batch with every kind of entry: a put of a
// node, a delete of an edge, a graph entry of two items, and a run of moves.
func goldenBatch() domain.HistoryBatch {
	v := func(n, seq uint64) domain.Version {
		return domain.Version{V: n, Seq: seq, TS: 1_700_000_000_000_000 + domain.Micros(seq), Session: "0b912bef252c4300", Principal: "alice"}
	}
	node := &domain.Node{ID: "auth-refresh", Gist: "refresh tokens rotate", Notes: []string{"see \"auth.py\" <x>"},
		Touches: []string{"src/auth.py"}, Tier: domain.Archived, Version: v(2, 11)}
	before := &domain.Node{ID: "auth-refresh", Gist: "refresh", Tier: domain.Active, Version: v(1, 4)}
	edge := &domain.Edge{From: "auth-refresh", To: "retry", Rel: "uses", Notes: []string{"é"}, Version: v(1, 5)}
	moves := func(seq uint64, id, from, to string) domain.HistoryEntry {
		return domain.HistoryEntry{Seq: seq, Time: 9, Op: domain.HistoryMove,
			ItemChange: domain.ItemChange{ID: id, Tier: &domain.TierChange{From: from, To: to}}}
	}
	return domain.HistoryBatch{SeqBefore: 10, SeqAfter: 16, Entries: []domain.HistoryEntry{
		{Seq: 11, Time: 7, Session: "0b912bef252c4300", Principal: "alice", Op: domain.HistoryPut,
			ItemChange: domain.ItemChange{ID: "auth-refresh", BeforeNode: before, AfterNode: node}},
		{Seq: 12, Time: 7, Session: "0b912bef252c4300", Op: domain.HistoryDelete,
			ItemChange: domain.ItemChange{Edge: true, Key: domain.EdgeKey{From: "auth-refresh", To: "retry", Rel: "uses"}, BeforeEdge: edge}},
		{Seq: 13, Time: 8, Op: domain.HistoryImportReplace, Graph: true, Detail: "replace", Items: []domain.ItemChange{
			{ID: "auth-refresh", BeforeNode: node},
			{ID: "x", Tier: &domain.TierChange{From: "active", To: "orphaned"}},
		}},
		moves(14, "a", "active", "archived"), moves(15, "b", "active", "orphaned"), moves(16, "c", "active", "archived"),
	}}
}

// The change log's stored form is on disk in every json root's
// history.jsonl and journal and every bolt file's history bucket: it
// encodes exactly as it did when it lived in ports (before issue 29).
func TestHistoryBatchEncodesAsBefore(t *testing.T) {
	const want = `{"seq":[10,16],"entries":[{"seq":11,"ts_us":7,"session":"0b912bef252c4300","principal":"alice","op":"put","item":{"node":"auth-refresh","before":{"gist":"refresh","tier":"active","v":1,"seq":4,"ts_us":1700000000000004,"session":"0b912bef252c4300","principal":"alice"},"after":{"gist":"refresh tokens rotate","notes":["see \"auth.py\" \u003cx\u003e"],"touches":["src/auth.py"],"tier":"archived","v":2,"seq":11,"ts_us":1700000000000011,"session":"0b912bef252c4300","principal":"alice"}}},{"seq":12,"ts_us":7,"session":"0b912bef252c4300","op":"delete","item":{"edge":["auth-refresh","retry","uses"],"before":{"notes":["é"],"v":1,"seq":5,"ts_us":1700000000000005,"session":"0b912bef252c4300","principal":"alice"}}},{"seq":13,"ts_us":8,"op":"import_replace","graph":true,"detail":"replace","items":[{"node":"auth-refresh","before":{"gist":"refresh tokens rotate","notes":["see \"auth.py\" \u003cx\u003e"],"touches":["src/auth.py"],"tier":"archived","v":2,"seq":11,"ts_us":1700000000000011,"session":"0b912bef252c4300","principal":"alice"}},{"node":"x","tier":{"from":"active","to":"orphaned"}}]},{"seq":16,"ts_us":9,"op":"move","moves":{"tiers":["active\u003earchived","active\u003eorphaned"],"nodes":[["a",0],["b",1],["c",0]],"seqs":[14]}}]}`
	b, err := MarshalHistoryBatch(goldenBatch())
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Fatalf("the batch encodes as\n%s\nwant\n%s", b, want)
	}
}

// recordOf holds the items a journal record would: the golden batch's put
// node and edge as the graph has them after it.
type recordOf struct {
	nodes map[string]*domain.Node
	edges map[domain.EdgeKey]*domain.Edge
}

func (r recordOf) Node(id string) *domain.Node        { return r.nodes[id] }
func (r recordOf) Edge(k domain.EdgeKey) *domain.Edge { return r.edges[k] }

// A batch written beside a record leaves out the afters the record holds,
// and reads back into the very bytes MarshalHistoryBatch writes; an after
// left to a record that lacks it is an error naming the item.
func TestHistoryBatchBesideARecord(t *testing.T) {
	h := goldenBatch()
	after := h.Entries[0].AfterNode
	inRecord := func(c *domain.ItemChange) bool {
		return !c.Edge && c.ID == after.ID && SameLoggedNode(c.AfterNode, after)
	}
	beside, err := MarshalHistoryBatchBeside(h, inRecord)
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := MarshalHistoryBatch(h)
	// The put's after is gone; the import's before of the same node stays.
	if gist := []byte("refresh tokens rotate"); bytes.Count(beside, gist) != bytes.Count(whole, gist)-1 {
		t.Fatalf("the batch beside its record still holds the after:\n%s", beside)
	}
	got, err := UnmarshalHistoryBatchBeside(beside, recordOf{nodes: map[string]*domain.Node{after.ID: after}})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := MarshalHistoryBatch(got)
	if !bytes.Equal(again, whole) {
		t.Errorf("read back beside its record, the batch encodes as\n%s\nwant\n%s", again, whole)
	}
	if _, err := UnmarshalHistoryBatchBeside(beside, recordOf{}); err == nil || !strings.Contains(err.Error(), `"auth-refresh"`) {
		t.Errorf("an after left to a record without it: err = %v, want one naming the node", err)
	}
}
