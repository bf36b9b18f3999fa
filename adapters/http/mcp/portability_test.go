package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
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

// lintTool lints the input schema of a tool as tools/list sends it, and
// the output schema if it had one.
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
	lintSchema(tool.Name+".inputSchema", doc["inputSchema"], &problems)
	if out, ok := doc["outputSchema"]; ok {
		lintSchema(tool.Name+".outputSchema", out, &problems)
	}
	return problems
}

// TestSchemasArePortable is the portability check of the MCP Inspector's
// --strict mode, as a test: every tool's input schema passes lintSchema. A
// schema as jsonschema-go generates it for a slice fails it (a type list),
// so the check is known to bite.
func TestSchemasArePortable(t *testing.T) {
	for _, tl := range kgTools() {
		tool := tl.declaration()
		t.Run(tool.Name, func(t *testing.T) {
			for _, p := range lintTool(tool) {
				t.Error(p)
			}
		})
	}

	// What jsonschema-go generates for a slice: the lint must bite on it.
	var problems []string
	lintSchema("generated", map[string]any{"type": "object", "properties": map[string]any{
		"ids": map[string]any{"type": []any{"null", "array"}, "items": map[string]any{"type": "string"}}}}, &problems)
	if len(problems) != 1 || !strings.Contains(problems[0], "type is a list") {
		t.Errorf("the lint of a type list says %q; it would miss a regression", problems)
	}
}
