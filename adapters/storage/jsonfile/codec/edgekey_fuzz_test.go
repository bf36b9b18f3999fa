package codec

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

// FuzzEdgeKey checks the "<from>-><to>:<rel>" keys of the graph file
// (docs/design/storage.md#node-ids-and-edge-keys) with three edges and three
// edge tombstones whose ends and rels are fuzzed, legacy values included (any
// text, "->", ":" and "#2" inside ends):
//   - every edge and tombstone gets its own map key, "#2", "#3"… added to
//     the ones that share a string, and the keys are sorted;
//   - a key of an edge whose from is a node id and whose rel is valid parses
//     back to that edge, with or without its suffix;
//   - the file written reads back with the same edges, each with its own
//     version entry, and the same tombstones, whatever their ends hold.
func FuzzEdgeKey(f *testing.F) {
	f.Add("a", "b", "r", "a", "b", "r2", "b", "a", "r")
	f.Add("a", "b->c", "r", "a->b", "c", "r", "a-", ">b:r", "x")
	f.Add("auth", "src/auth/refresh.py:12", "touches", "auth", "src/auth/refresh.py", "12:touches", "x", "y#2", "r")
	f.Add("a", "b:r#2", "s", "a", "b", "r#2", "a", "b:r", "#2")
	f.Add(" ", " ", " ", " ", "  ", " ", "é", "\u2028", "\x1b[0m")
	f.Add("a", "b", "r", "a", "b", "r", "a", "b", "r")
	f.Fuzz(func(t *testing.T, f1, t1, r1, f2, t2, r2, f3, t3, r3 string) {
		for _, s := range []string{f1, t1, r1, f2, t2, r2, f3, t3, r3} {
			// The file is UTF-8 (invalid bytes read back as U+FFFD), and no
			// edge with an empty end or rel is read from it.
			if !utf8.ValidString(s) || s == "" {
				return
			}
		}
		keys := []domain.EdgeKey{{From: f1, To: t1, Rel: r1}, {From: f2, To: t2, Rel: r2}, {From: f3, To: t3, Rel: r3}}
		// The tombstones are the same identities turned round, so that they
		// collide with the edges' strings in every way the edges do.
		tombKeys := []domain.EdgeKey{{From: t1, To: f1, Rel: r1}, {From: f2, To: t2, Rel: r3}, {From: f3, To: t2, Rel: r1}}
		keys, tombKeys = unique(keys), unique(tombKeys)

		names := edgeNames(len(keys), func(i int) domain.EdgeKey { return keys[i] })
		seen := map[string]bool{}
		for j, nm := range names {
			base, suffix := nm.key, ""
			if i := strings.LastIndexByte(nm.key, '#'); i >= 0 && nm.key != edgeKeyString(keys[nm.i]) {
				base, suffix = nm.key[:i], nm.key[i:]
			}
			if base != edgeKeyString(keys[nm.i]) {
				t.Fatalf("key %q of %#v is not its string %q plus a suffix", nm.key, keys[nm.i], edgeKeyString(keys[nm.i]))
			}
			if n, err := strconv.Atoi(strings.TrimPrefix(suffix, "#")); suffix != "" && (err != nil || n < 2) {
				t.Fatalf("suffix %q of key %q is not #2, #3…", suffix, nm.key)
			}
			if seen[nm.key] {
				t.Fatalf("two edges share the key %q", nm.key)
			}
			seen[nm.key] = true
			if j > 0 && names[j-1].key >= nm.key {
				t.Fatalf("keys not sorted: %q before %q", names[j-1].key, nm.key)
			}
			k := keys[nm.i]
			if domain.ValidateID("from", k.From) == nil && domain.ValidateRel("rel", k.Rel) == nil {
				if got, ok := parseEdgeKey(nm.key); !ok || got != k {
					t.Fatalf("key %q parses to %#v, %v; want %#v", nm.key, got, ok, k)
				}
			}
		}

		d := domain.GraphData{Schema: domain.SchemaVersion, Seq: 100, EdgeTombstones: map[domain.EdgeKey]domain.Tombstone{}}
		for i, k := range keys {
			d.Edges = append(d.Edges, domain.Edge{From: k.From, To: k.To, Rel: k.Rel, Notes: []string{"n" + strconv.Itoa(i)},
				Version: domain.Version{V: uint64(i + 1), TS: domain.Micros(i+1) * domain.Second, Seq: uint64(i + 1)}})
		}
		for i, k := range tombKeys {
			d.EdgeTombstones[k] = domain.Tombstone{V: uint64(10 + i), TS: domain.Micros(10+i) * domain.Second, Seq: uint64(10 + i), Pruned: i == 1}
		}
		back, notes, err := DecodeGraph(EncodeGraph(d))
		if err != nil || len(notes) > 0 {
			t.Fatalf("the file written does not read back: %v %q", err, notes)
		}
		byKey := func(a, b domain.Edge) int { return cmpKeys(a.Key(), b.Key()) }
		slices.SortFunc(d.Edges, byKey)
		slices.SortFunc(back.Edges, byKey)
		if diff := cmp.Diff(d.Edges, back.Edges); diff != "" {
			t.Fatalf("edges (-written +read):\n%s", diff)
		}
		if diff := cmp.Diff(d.EdgeTombstones, back.EdgeTombstones); diff != "" {
			t.Fatalf("edge tombstones (-written +read):\n%s", diff)
		}
	})
}

func unique(ks []domain.EdgeKey) []domain.EdgeKey {
	var out []domain.EdgeKey
	for _, k := range ks {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func cmpKeys(a, b domain.EdgeKey) int {
	if c := strings.Compare(a.From, b.From); c != 0 {
		return c
	}
	if c := strings.Compare(a.To, b.To); c != 0 {
		return c
	}
	return strings.Compare(a.Rel, b.Rel)
}
