package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// portableFormats are the string formats every major model provider
// accepts.
var portableFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// unportableKeywords are keywords some model providers reject or ignore in
// a tool schema.
var unportableKeywords = []string{
	"$ref", "$defs", "definitions", "anyOf", "oneOf", "allOf", "not",
	"if", "then", "else", "patternProperties", "dependentSchemas", "prefixItems", "discriminator",
}

// lintSchema appends to problems what makes the schema s at path
// unportable, the rules of the MCP Inspector's --strict schema check and of
// the providers behind it: every schema an object (no bare true or false)
// with one type given as a string (no type list, such as ["null",
// "array"]); an array with items; no references, definitions or
// combinators; only widely known formats; required naming only properties
// that exist. It walks properties, items and additionalProperties.
func lintSchema(path string, s any, problems *[]string) {
	add := func(format string, args ...any) {
		*problems = append(*problems, path+": "+fmt.Sprintf(format, args...))
	}
	m, ok := s.(map[string]any)
	if !ok {
		add("a bare %v instead of a schema object", s)
		return
	}
	switch ty := m["type"].(type) {
	case string:
	case nil:
		add("no type")
	default:
		add("type is a list, %v; make the field optional instead", ty)
	}
	for _, kw := range unportableKeywords {
		if _, ok := m[kw]; ok {
			add("uses %s", kw)
		}
	}
	if f, ok := m["format"].(string); ok && !portableFormats[f] {
		add("format %q is not widely supported", f)
	}
	if m["type"] == "array" {
		if items, ok := m["items"]; ok {
			lintSchema(path+".items", items, problems)
		} else {
			add("an array without items")
		}
	}
	props, _ := m["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		lintSchema(path+".properties."+name, props[name], problems)
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if _, ok := props[r.(string)]; !ok {
				add("requires %v, which is not a property", r)
			}
		}
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok {
		lintSchema(path+".additionalProperties", ap, problems)
	}
}

// lintTool lints the input and output schemas of a tool as tools/list
// sends them.
func lintTool(tool mcpgo.Tool) []string {
	raw, err := json.Marshal(tool)
	if err != nil {
		return []string{err.Error()}
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return []string{err.Error()}
	}
	var problems []string
	for _, key := range []string{"inputSchema", "outputSchema"} {
		lintSchema(tool.Name+"."+key, doc[key], &problems)
	}
	return problems
}

// TestSchemasArePortable is the portability check of the MCP Inspector's
// --strict mode, as a test: every tool's input and output schema passes
// lintSchema. The schemas as mcp-go generates them fail it (type lists), so
// the check is known to bite.
func TestSchemasArePortable(t *testing.T) {
	for _, tl := range kgTools() {
		tool := tl.declaration()
		t.Run(tool.Name, func(t *testing.T) {
			for _, p := range lintTool(tool) {
				t.Error(p)
			}
		})
	}

	generated := mcpgo.NewTool("generated", mcpgo.WithOutputSchema[readOutput]())
	typeLists := 0
	for _, p := range lintTool(generated) {
		if strings.Contains(p, "type is a list") {
			typeLists++
		}
	}
	if typeLists == 0 {
		t.Error("the lint finds no type list in mcp-go's own schema of readOutput; it would miss a regression")
	}
}

// TestOutputSchemasCompileAndRejectNull compiles every output schema with
// the validator mcp-go uses. mcp-go skips validation, silently, for a
// schema it cannot compile; this makes sure the validation the other tests
// rely on runs. It also shows that the schemas no longer let a list be
// null: an output that holds null where an array belongs is refused.
func TestOutputSchemasCompileAndRejectNull(t *testing.T) {
	compiled := map[string]*jsonschema.Schema{}
	for _, tl := range kgTools() {
		tool := tl.declaration()
		raw, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		url := "mem:///" + tool.Name + "/output.json"
		c := jsonschema.NewCompiler()
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		if compiled[tool.Name], err = c.Compile(url); err != nil {
			t.Errorf("%s: the output schema does not compile, so mcp-go would not validate against it: %v", tool.Name, err)
		}
	}
	sync := compiled["kg_sync"]
	if sync == nil {
		t.Fatal("no kg_sync schema")
	}
	valid := map[string]any{"empty": true, "user": map[string]any{"level": "user", "changes": []any{},
		"nodes_updated": 0, "edges_updated": 0, "nodes_deleted": 0, "edges_deleted": 0,
		"archived": 0, "restored": 0, "orphaned": 0, "pruned": 0}}
	if err := sync.Validate(valid); err != nil {
		t.Fatalf("a valid kg_sync output is refused: %v", err)
	}
	valid["user"].(map[string]any)["changes"] = nil
	if sync.Validate(valid) == nil {
		t.Error(`kg_sync's schema accepts "changes": null`)
	}
	valid["user"].(map[string]any)["changes"] = []any{}
	valid["project"] = nil
	if sync.Validate(valid) == nil {
		t.Error(`kg_sync's schema accepts "project": null`)
	}
}
