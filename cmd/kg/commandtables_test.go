package main

// The docs' lists of commands are held to the command tree newRoot builds:
// the command table of README.md names every command one can run, and
// docs/architecture.md's table of the command line names every command with
// the file that declares it.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
)

func TestReadmeCommandTableListsEveryCommand(t *testing.T) {
	t.Parallel()
	root := docsRoot()
	rows := docTable(t, filepath.Join("..", "..", "README.md"), "## Commands")
	var named []string
	for _, row := range rows {
		named = append(named, documentedCommands(root, row[0])...)
	}
	want := runnableCommands(root)
	if len(want) < 15 {
		t.Fatalf("the command tree has %d commands one can run; the walk is broken", len(want))
	}
	for _, p := range commandDiff(want, named, "README.md's command table") {
		t.Error(p)
	}
}

func TestArchitectureListsEveryCommandAndItsFile(t *testing.T) {
	t.Parallel()
	root := docsRoot()
	rows := docTable(t, filepath.Join("..", "..", "docs", "architecture.md"), "## The command line")
	var named []string
	for _, row := range rows {
		cmds := documentedCommands(root, row[0])
		named = append(named, cmds...)
		if len(row) < 2 {
			t.Errorf("docs/architecture.md's command table: row %q names no file", row[0])
			continue
		}
		for _, c := range cmds {
			if !slices.ContainsFunc(codeSpans(row[1]), func(f string) bool { return declaresCommand(t, f, c) }) {
				t.Errorf("docs/architecture.md's command table says %s is in %s, which declares no such command", c, row[1])
			}
		}
	}
	var want []string
	for _, sub := range root.Commands() {
		if sub.IsAvailableCommand() {
			want = append(want, sub.CommandPath())
		}
	}
	for _, p := range commandDiff(want, named, "docs/architecture.md's command table") {
		t.Error(p)
	}
}

// TestCommandTableReadersCatchMistakes runs the readers on a sample.
func TestCommandTableReadersCatchMistakes(t *testing.T) {
	t.Parallel()
	doc := "# T\n\n## Commands\n\n| command | does |\n| --- | --- |\n" +
		"| `kg serve` (or plain `kg`) | x |\n| `kg hook session-start\\|prompt` · `kg project mv OLD NEW` | y |\n" +
		"| `kg project` | z |\n\n## Next\n\n| `kg status` |\n"
	root := docsRoot()
	var named []string
	for _, row := range markdownRows(markdownSection(doc, "## Commands")) {
		named = append(named, documentedCommands(root, row[0])...)
	}
	if d := cmp.Diff([]string{"kg serve", "kg hook", "kg project mv", "kg project"}, named); d != "" {
		t.Errorf("documented commands (-want +got):\n%s", d)
	}
	got := commandDiff([]string{"kg serve", "kg hook", "kg project mv", "kg status"}, named, "the table")
	want := []string{"the table does not list kg status", "the table lists kg project, which is not among the commands it should list"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("commandDiff (-want +got):\n%s", d)
	}
}

// docsRoot is the command tree, built as the binary builds it.
func docsRoot() *cobra.Command {
	return newRoot(env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }, home: fakeHome})
}

// runnableCommands returns the path of every command of root one can run,
// root itself aside: the leaves, and the parents that do something alone
// (kg migrate --to), not those that only group others (their RunE is
// wantSubcommand, or they have none).
func runnableCommands(root *cobra.Command) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() {
				continue
			}
			if sub.Runnable() && !onlyGroups(sub) {
				out = append(out, sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(root)
	return out
}

// onlyGroups reports whether c's RunE is wantSubcommand: called alone, it
// only says which of its subcommands to call.
func onlyGroups(c *cobra.Command) bool {
	return c.RunE != nil && reflect.ValueOf(c.RunE).Pointer() == reflect.ValueOf(wantSubcommand).Pointer()
}

// documentedCommands returns the commands of root that the `kg …` code
// spans of a table cell name, by their path, in order; plain `kg` names
// none.
func documentedCommands(root *cobra.Command, cell string) []string {
	var out []string
	for _, span := range codeSpans(cell) {
		if span != "kg" && !strings.HasPrefix(span, "kg ") {
			continue
		}
		for _, args := range commandArgs(span) {
			c, _, err := root.Find(args)
			if err != nil || c == root {
				continue
			}
			if p := c.CommandPath(); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// commandDiff returns one line per command of want the table does not
// list and per command it lists that want lacks.
func commandDiff(want, named []string, table string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(named, w) {
			out = append(out, table+" does not list "+w)
		}
	}
	for _, n := range named {
		if !slices.Contains(want, n) {
			out = append(out, table+" lists "+n+", which is not among the commands it should list")
		}
	}
	return out
}

// declaresCommand reports whether the file of this package named file
// declares a cobra.Command whose Use starts with the last word of path.
func declaresCommand(t *testing.T, file, path string) bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return false
	}
	name := path[strings.LastIndex(path, " ")+1:]
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			if key, ok := kv.Key.(*ast.Ident); ok && key.Name == "Use" {
				use := leadingString(kv.Value)
				found = found || use == name || strings.HasPrefix(use, name+" ")
			}
		}
		return !found
	})
	return found
}

// leadingString returns the string literal an expression starts with
// ("migrate --to " + …), or "".
func leadingString(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.BinaryExpr:
			e = x.X
		case *ast.BasicLit:
			s, _ := strconv.Unquote(x.Value)
			return s
		default:
			return ""
		}
	}
}

// docTable returns the rows of the first table under heading in the
// markdown file name.
func docTable(t *testing.T, name, heading string) [][]string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	rows := markdownRows(markdownSection(string(b), heading))
	if len(rows) == 0 {
		t.Fatalf("%s has no table under %q", name, heading)
	}
	return rows
}

// codeSpans returns the code spans of a markdown text.
func codeSpans(text string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

// markdownSection returns the part of a markdown document from the heading
// line to the next heading of the same or a higher level, or "".
func markdownSection(doc, heading string) string {
	start := strings.Index(doc, "\n"+heading+"\n")
	if start < 0 {
		return ""
	}
	level := strings.Count(strings.Fields(heading)[0], "#")
	lines := strings.Split(doc[start+1:], "\n")
	fenced := false
	for i, l := range lines[1:] {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
		}
		n := len(l) - len(strings.TrimLeft(l, "#"))
		if !fenced && n > 0 && n <= level && strings.HasPrefix(l[n:], " ") {
			return strings.Join(lines[:i+1], "\n")
		}
	}
	return strings.Join(lines, "\n")
}

// markdownRows returns the body rows of the first table in text, each as
// its trimmed cells; an escaped \| stays in its cell, escaped.
func markdownRows(text string) [][]string {
	var rows [][]string
	header := true
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 || !header {
				break
			}
			continue
		}
		if header || strings.HasPrefix(line, "| ---") {
			header = false
			continue
		}
		cells := strings.Split(strings.ReplaceAll(strings.Trim(line, "|"), `\|`, "\x00"), "|")
		for i, c := range cells {
			cells[i] = strings.TrimSpace(strings.ReplaceAll(c, "\x00", `\|`))
		}
		rows = append(rows, cells)
	}
	return rows
}
