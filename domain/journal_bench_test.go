package domain

import (
	"fmt"
	"testing"
)

// BenchmarkPutNode measures the write path of a change to an existing node,
// journal included, a batch of 64 writes at a time over 1,000 nodes:
//
//   - saved: each batch saved (Checkpoint), the common case;
//   - failing: each batch's save failing (Rollback);
//   - upgraded, failing: the same on a graph restored with an upgrade
//     whose save failed, so that every item is pending without a journal
//     entry (restoredPending).
func BenchmarkPutNode(b *testing.B) {
	const nodes, batch = 1_000, 64
	stored := func() GraphData {
		g := NewGraph(UserGraph)
		for i := range nodes {
			if _, err := g.PutNode(NodeInput{ID: fmt.Sprintf("n%d", i), Gist: "gist"}, Stamp{Now: 1}); err != nil {
				b.Fatal(err)
			}
		}
		return g.Data()
	}()
	gists := [2]string{"one gist", "another gist"}
	for _, c := range []struct {
		name     string
		schema   int
		endBatch func(*Graph)
	}{
		{"saved", SchemaVersion, (*Graph).Checkpoint},
		{"failing", SchemaVersion, (*Graph).Rollback},
		{"upgraded, failing", SchemaVersion - 1, (*Graph).Rollback},
	} {
		b.Run(c.name, func(b *testing.B) {
			d := stored
			d.Schema = c.schema
			g, _ := Restore(UserGraph, d, RestoreOptions{})
			ids := make([]string, nodes)
			for i := range ids {
				ids[i] = fmt.Sprintf("n%d", i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				in := NodeInput{ID: ids[i%nodes], Gist: gists[i/nodes%2]}
				if _, err := g.PutNode(in, Stamp{Now: Micros(2 + i)}); err != nil {
					b.Fatal(err)
				}
				if i%batch == batch-1 {
					c.endBatch(g)
				}
			}
		})
	}
}
