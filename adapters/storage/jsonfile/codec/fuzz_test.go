package codec

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports/porttest"
)

// FuzzDecodeGraph checks the one-pass parser (DecodeGraph) against a typed
// encoding/json decoder (typedDecodeGraph, typed_test.go) on every input:
// both refuse it, or both decode it to the same data with the same notes
// (docs/decisions/0010-json-md). What is decoded must also write
// back: the restored graph, encoded and decoded again, is the same graph.
// Whatever the bytes, neither panics.
func FuzzDecodeGraph(f *testing.F) {
	f.Add(EncodeGraph(porttest.RichData("/home/dev/kg")))
	for _, p := range []string{"../testdata/schema1/user.json", "../testdata/schema1/projects/api/graph.json", "../testdata/golden/schema1-user-upgraded.json"} {
		if b, err := os.ReadFile(filepath.FromSlash(p)); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{`null`, `{}`, `{"nodes": {"a": {"gist": "x\ud800", "notes": ["a", null]}}}`, `{"nodes": {"a": {"gist": "\x"}}}`,
		`{"_meta": {"versions": {"node:a": {"V": 1, "ts": 1.5}}}}`, `{"edges": {"k": {"from": "a", "to": "b", "rel": "r", "w": [1, {"x": null}]}}}`,
		`{"nodes": {"b": {"id": "a", "gist": "1"}, "a": {"gist": "2"}}, "NODES": {"c": null}}`,
		`{"_meta": {"tombstones": {"edge:a->b:r#2": {"v": 1, "from": "x"}, "other": {}}, "seq": 1e3}}`,
		`{"nodes": {"a": {"_tier_seq": -0, "_archived": false, "_orphaned_ts": "1"}}}`,
		`{"nodes": {"a": {"_use": 98303, "_use_day": 19865}, "b": {"_use": -1, "_use_day": 2}, "c": {"_use": 1.5, "_use_day": "2"},
		 "d": {"_use": 18446744073709551616, "_use_day": 106751992}, "e": {"_use": 1, "_use": null, "_use_day": 1}, "f": {"_use_day": 3}}}`} {
		f.Add([]byte(s))
	}
	opts := cmpopts.EquateEmpty()
	f.Fuzz(func(t *testing.T, b []byte) {
		d, notes, err := DecodeGraph(b)
		td, tnotes, terr := typedDecodeGraph(b)
		if (err == nil) != (terr == nil) {
			t.Fatalf("one-pass error %v, typed error %v, on %q", err, terr, b)
		}
		if err != nil {
			return
		}
		if diff := cmp.Diff(td, d, opts); diff != "" {
			t.Fatalf("decoders differ on %q (-typed +one-pass):\n%s", b, diff)
		}
		slices.Sort(notes)
		slices.Sort(tnotes)
		if !slices.Equal(notes, tnotes) {
			t.Fatalf("notes differ: one-pass %q, typed %q", notes, tnotes)
		}

		g, _ := domain.Restore(domain.UserGraph, d, domain.RestoreOptions{})
		want := g.Data()
		back, notes, err := DecodeGraph(EncodeGraph(want))
		if err != nil || len(notes) > 0 {
			t.Fatalf("the decoded graph does not read back: %v %q", err, notes)
		}
		g2, _ := domain.Restore(domain.UserGraph, back, domain.RestoreOptions{})
		if diff := cmp.Diff(want, g2.Data(), opts); diff != "" {
			t.Fatalf("decode → encode → decode changed the graph (-want +got):\n%s", diff)
		}
	})
}
