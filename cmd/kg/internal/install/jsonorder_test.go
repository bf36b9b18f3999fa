package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A settings file kg edits keeps its keys where they were, its numbers as
// written and its text unescaped: only what kg changed moves.
func TestWriteJSONObjectKeepsTheFilesOrder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "settings.json")
	const before = `{"zeta": 1, "alpha": {"y": true, "b": [{"q": 1, "a": 2}]},
 "big": 12345678901234567890, "cost": 0.1, "cmd": "a <b> && c", "empty": {}, "none": []}`
	if err := os.WriteFile(path, []byte(before), 0o640); err != nil {
		t.Fatal(err)
	}
	doc, order, mode, err := readJSONObject(path)
	if err != nil {
		t.Fatal(err)
	}
	doc["new"] = "added"
	doc["alpha"].(map[string]any)["added"] = 1
	if err := writeJSONObject(path, doc, order, mode); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	const want = `{
  "zeta": 1,
  "alpha": {
    "y": true,
    "b": [
      {
        "q": 1,
        "a": 2
      }
    ],
    "added": 1
  },
  "big": 12345678901234567890,
  "cost": 0.1,
  "cmd": "a <b> && c",
  "empty": {},
  "none": [],
  "new": "added"
}
`
	if got != want {
		t.Errorf("rewritten as\n%s\nwant\n%s", got, want)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v %v, want 0640 kept", st.Mode(), err)
	}
	// Reading it again gives the same order: a second edit moves nothing.
	doc, order, mode, err = readJSONObject(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeJSONObject(path, doc, order, mode); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Errorf("a second rewrite changed the file:\n%s", b)
	}
	if !strings.HasPrefix(got, "{\n  \"zeta\"") {
		t.Errorf("first key moved: %s", got)
	}
}
