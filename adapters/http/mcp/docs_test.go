package mcp

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// countWords are the number words the docs write a count of tools in.
var countWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"}

// toolCount matches a count of tools: "eight tools", "the 8 MCP tools".
var toolCount = regexp.MustCompile(`(?i)\b(` + strings.Join(countWords, "|") + `|\d+) (?:MCP )?tools\b`)

// TestDocsNameEveryTool holds the docs that list the tools (the how-to of
// docs/architecture.md names them) to kgTools(), the one list: a count of
// tools they write is its length, README.md names every tool, docs/api.md
// has a row for each, and docs/design/mcp.md a section. Adding a tool then
// fails here until those docs say so, and nowhere else.
func TestDocsNameEveryTool(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	n := len(kgTools())
	for _, doc := range []string{"README.md", "docs/design/mcp.md", "docs/design/README.md", "docs/api.md",
		"docs/conformance.md", "docs/migrating.md", "docs/clients.md"} {
		for _, m := range toolCount.FindAllStringSubmatch(read(doc), -1) {
			got, err := strconv.Atoi(m[1])
			if err != nil {
				got = slices.Index(countWords, strings.ToLower(m[1]))
			}
			if got != n {
				t.Errorf("%s says %q; kgTools() has %d tools", doc, m[0], n)
			}
		}
	}
	readme, api, design := read("README.md"), read("docs/api.md"), read("docs/design/mcp.md")
	for _, tl := range kgTools() {
		name := tl.declaration().Name
		if !strings.Contains(readme, "`"+name+"`") {
			t.Errorf("README.md does not name the tool %s", name)
		}
		if !strings.Contains(api, "\n| `"+name+"` |") {
			t.Errorf("docs/api.md has no row for the tool %s in its tool table", name)
		}
		if !regexp.MustCompile(`(?m)^### ` + regexp.QuoteMeta(name) + `\b`).MatchString(design) {
			t.Errorf("docs/design/mcp.md has no section ### %s", name)
		}
	}
}
