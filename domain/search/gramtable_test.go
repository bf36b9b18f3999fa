package search

import (
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestGramTablePropMatchesMap drives a GramTable and a built-in map through
// the same puts and removes, with keys from a small range so that probe
// runs collide, wrap round the end and are cut by removals.
func TestGramTablePropMatchesMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tab GramTable
		want := map[uint32]int32{}
		key := rapid.Uint32Range(0, 1<<24-1)
		if rapid.Bool().Draw(t, "few-keys") {
			key = rapid.Uint32Range(0, 40)
		}
		for range rapid.IntRange(0, 400).Draw(t, "steps") {
			k := key.Draw(t, "key")
			if rapid.IntRange(0, 2).Draw(t, "op") == 0 {
				tab.Remove(k)
				delete(want, k)
			} else {
				v := rapid.Int32().Draw(t, "val")
				tab.Put(k, v)
				want[k] = v
			}
			for k, v := range want {
				if got, ok := tab.Get(k); !ok || got != v {
					t.Fatalf("get(%d) = %d, %v; want %d", k, got, ok, v)
				}
			}
			if _, ok := tab.Get(k); ok != hasKey(want, k) {
				t.Fatalf("get(%d) found %v", k, ok)
			}
			got := map[uint32]int32{}
			tab.All(func(k uint32, v int32) { got[k] = v })
			if !maps.Equal(want, got) || tab.used != len(want) {
				t.Fatalf("table holds %d (-want +got):\n%s", tab.used, cmp.Diff(want, got))
			}
		}
	})
}

func hasKey(m map[uint32]int32, k uint32) bool { _, ok := m[k]; return ok }
