package jsonfile

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kg-memory/kg/adapters/storage/jsonfile/codec"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports/porttest"
)

// FuzzJournal reads arbitrary bytes as a graph's journal, on the rich
// graph as its file: scanning and replay never panic, a damaged journal is
// reported as such, and whatever replays is a graph that writes and reads
// back the same.
func FuzzJournal(f *testing.F) {
	g, _ := domain.Restore(domain.UserGraph, porttest.RichData(""), domain.RestoreOptions{})
	var journal []byte
	at := domain.Stamp{Now: 1716500000_000000, Session: "fz"}
	for i, step := range []func() error{
		func() error {
			_, err := g.PutNode(domain.NodeInput{ID: "fz", Gist: "fuzz \"seed\"", Notes: []string{"n"}}, at)
			return err
		},
		func() error { _, err := g.PutEdge(domain.EdgeInput{From: "fz", To: "alpha", Rel: "r"}, at); return err },
		func() error { _, err := g.DeleteNode("beta", at); return err },
		func() error { return g.SetProgress("t", domain.RawJSON(`{"x":[1]}`)) },
	} {
		before := g.Seq()
		if err := step(); err != nil {
			f.Fatal(i, err)
		}
		journal = frameRecord(journal, codec.GraphRecord(g, g.Pending(), before, ""))
		g.Checkpoint()
	}
	f.Add(journal)
	f.Add(journal[:len(journal)-7])
	f.Add([]byte(`{"batch":{"seq":[0,1]},"crc32c":"00000000"}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		payloads, good, err := scanJournal(b)
		if good > len(b) {
			t.Fatalf("good %d past the end %d", good, len(b))
		}
		if err != nil {
			return
		}
		d := porttest.RichData("")
		if _, err := replayGraph(&d, payloads); err != nil {
			return
		}
		rg, _ := domain.Restore(domain.UserGraph, d, domain.RestoreOptions{})
		want := rg.Data()
		back, _, err := codec.DecodeGraph(codec.EncodeGraph(want))
		if err != nil {
			t.Fatalf("a replayed graph does not read back: %v", err)
		}
		g2, _ := domain.Restore(domain.UserGraph, back, domain.RestoreOptions{})
		if diff := cmp.Diff(want, g2.Data(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("a replayed graph does not write back the same (-want +got):\n%s", diff)
		}
	})
}
