package jsonfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/kg-memory/kg/ports/porttest"
)

// FuzzDecodeGraph checks the hand-written parser against encoding/json's
// idea of valid JSON: whatever the bytes, decoding does not panic, and a
// file that is not JSON is refused (so that a damaged file falls back to
// its .prev rather than loading half a graph).
func FuzzDecodeGraph(f *testing.F) {
	f.Add(encodeGraph(porttest.RichData("/home/dev/kg")))
	for _, p := range []string{"testdata/schema1/user.json", "testdata/schema1/projects/api/graph.json", "testdata/golden/schema1-user-upgraded.json"} {
		if b, err := os.ReadFile(filepath.FromSlash(p)); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{`null`, `{}`, `{"nodes": {"a": {"gist": "x\ud800", "notes": ["a", null]}}}`, `{"nodes": {"a": {"gist": "\x"}}}`,
		`{"_meta": {"versions": {"node:a": {"V": 1, "ts": 1.5}}}}`, `{"edges": {"k": {"from": "a", "to": "b", "rel": "r", "w": [1, {"x": null}]}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, err := decodeGraph(b)
		if err == nil && !json.Valid(b) {
			t.Fatalf("decoded a file that is not valid JSON: %q", b)
		}
	})
}
