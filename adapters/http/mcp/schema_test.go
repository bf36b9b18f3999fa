package mcp

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale; review the change and run go test -update\n--- got:\n%s", path, got)
	}
}

// TestToolSchemas snapshots every tool's declaration — name, description,
// input and output schema, annotations — so that a change to what clients
// see is a reviewed change to a file.
func TestToolSchemas(t *testing.T) {
	for _, tool := range declarations() {
		t.Run(tool.Name, func(t *testing.T) {
			raw, err := json.Marshal(tool)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := json.Indent(&buf, raw, "", "  "); err != nil {
				t.Fatal(err)
			}
			buf.WriteByte('\n')
			golden(t, filepath.Join("tools", tool.Name+".json"), buf.Bytes())
		})
	}
}
