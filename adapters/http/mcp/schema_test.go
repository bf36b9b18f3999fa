package mcp

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
	for _, tl := range kgTools() {
		tool := tl.declaration()
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

// argNames returns the argument names of a tool's argument struct in field
// order, and which of them are required. A field that is not an argument
// type, or has no name, is reported as a problem.
func (t tool[A]) argNames() (names, required, problems []string) {
	at := reflect.TypeFor[A]()
	argType := reflect.TypeFor[argument]()
	for i := range at.NumField() {
		f := at.Field(i)
		name := f.Tag.Get("arg")
		if name == "" || !reflect.PointerTo(f.Type).Implements(argType) {
			problems = append(problems, fmt.Sprintf("field %s (%s, arg %q) is not a named argument", f.Name, f.Type, name))
			continue
		}
		names = append(names, name)
		switch reflect.New(f.Type).Interface().(type) {
		case *requiredStr, *requiredLevel, *requiredList:
			required = append(required, name)
		}
	}
	return names, required, problems
}

// TestArgumentStructs ties each tool's argument struct to its declared input
// schema: every field is an argument type with a name, the names are the
// schema's properties, and the required ones are the schema's required
// list, in the same order. Without it, an argument could be declared and
// never read, or read and never declared.
func TestArgumentStructs(t *testing.T) {
	for _, tl := range kgTools() {
		decl := tl.declaration()
		t.Run(decl.Name, func(t *testing.T) {
			names, required, problems := tl.(interface {
				argNames() ([]string, []string, []string)
			}).argNames()
			for _, p := range problems {
				t.Error(p)
			}
			props := slices.Sorted(maps.Keys(decl.InputSchema.Properties))
			if diff := cmp.Diff(props, slices.Sorted(slices.Values(names))); diff != "" {
				t.Errorf("argument struct and input schema differ (-schema +struct):\n%s", diff)
			}
			if diff := cmp.Diff(decl.InputSchema.Required, required, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("required arguments differ (-schema +struct):\n%s", diff)
			}
		})
	}
}
