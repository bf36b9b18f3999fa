package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/cmd/kg/internal/config"
)

// settingDocs are the documents with a configuration table: each lists
// every setting, and nothing else, under its "## Configuration" heading.
var settingDocs = []string{"README.md", "docs/operations.md", "docs/design/operations.md"}

// TestConfigurationTablesListEverySetting checks that the configuration
// table of each of settingDocs names exactly the flags and environment
// variables of settings(), so that a new setting cannot ship undocumented
// and a removed one cannot stay in the docs.
func TestConfigurationTablesListEverySetting(t *testing.T) {
	t.Parallel()
	var want []string
	for _, s := range settings(func() (string, error) { return "/home/u", nil }) {
		want = append(want, "--"+s.Flag, s.Env)
	}
	want = append(want, config.EnvDatabaseURL) // the one setting without a flag
	slices.Sort(want)
	for _, doc := range settingDocs {
		t.Run(doc, func(t *testing.T) {
			got := documentedSettings(t, filepath.Join("..", "..", filepath.FromSlash(doc)))
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("the configuration table of %s (-settings() +table):\n%s", doc, d)
			}
		})
	}
}

// TestDocumentedSettingsFinder runs the table reader on a sample, so the
// test above cannot pass by reading nothing.
func TestDocumentedSettingsFinder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "doc.md")
	doc := "# Doc\n\n`--not-in-a-table`\n\n## Configuration\n\n| flag | environment | default |\n| --- | --- | --- |\n" +
		"| `--host` | `KG_HTTP_HOST` | `127.0.0.1` |\n| `--log-level`, `--log-format` | `KG_LOG_LEVEL`, `KG_LOG_FORMAT` | `info` |\n\n" +
		"Text that names `--other` and `KG_OTHER`.\n\n## Next\n\n| `--later` | `KG_LATER` |\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"--host", "--log-format", "--log-level", "KG_HTTP_HOST", "KG_LOG_FORMAT", "KG_LOG_LEVEL"}
	if d := cmp.Diff(want, documentedSettings(t, path)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

var settingName = regexp.MustCompile("`(--[a-z-]+|KG_[A-Z_]+)`")

// documentedSettings returns, sorted, the flags and variables named in the
// table rows of a document's "## Configuration" section.
func documentedSettings(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Configuration"
			continue
		}
		if !in || !strings.HasPrefix(line, "|") {
			continue
		}
		for _, m := range settingName.FindAllStringSubmatch(line, -1) {
			names = append(names, m[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
