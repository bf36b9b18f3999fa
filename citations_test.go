package kg_test

// Every document the repository points to is in the repository: each
// `docs/….md#anchor` a source comment cites names a file and a heading that
// exist, no comment cites a behaviour document by a bare name (the
// specification kg was built from is not shipped; docs/design/ is), and every
// relative link of the Markdown files resolves to a file and a heading.
// External links are not fetched.

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// TestCommentCitationsResolve checks the citations in the comments of every
// Go file and of the scripts, Makefile and JavaScript of the repository.
func TestCommentCitationsResolve(t *testing.T) {
	files := repoFiles(t, ".")
	if len(files.source) < 100 {
		t.Fatalf("found only %d source files; the walk is broken", len(files.source))
	}
	c := newChecker(".")
	var problems []string
	cited := 0
	for _, f := range files.source {
		p, n := c.citations(f)
		problems = append(problems, p...)
		cited += n
	}
	t.Logf("%d citations in the comments of %d source files", cited, len(files.source))
	if cited < 50 {
		t.Errorf("found only %d citations of a document in comments; the scanner is broken", cited)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestMarkdownLinksResolve checks every relative link (and image) of the
// Markdown files of the repository.
func TestMarkdownLinksResolve(t *testing.T) {
	files := repoFiles(t, ".")
	if !slices.Contains(files.markdown, "README.md") || !slices.Contains(files.markdown, "docs/design/compaction.md") {
		t.Fatalf("the walk missed README.md or docs/design/: found %v", files.markdown)
	}
	c := newChecker(".")
	var problems []string
	links := 0
	for _, f := range files.markdown {
		p, n := c.links(f)
		problems = append(problems, p...)
		links += n
	}
	t.Logf("%d relative links in %d Markdown files", links, len(files.markdown))
	if links < 100 {
		t.Errorf("found only %d relative links in the Markdown files; the scanner is broken", links)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestCitationCheckerCatchesProblems runs the checkers on a small repository
// of inline samples, so that the two tests above cannot pass by finding
// nothing.
func TestCitationCheckerCatchesProblems(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/design/compaction.md", "# Compaction\n\n## Pass 1b\n\n### Rank order\n\n```\n## Not a heading\n```\n\n## Pass 1b\n")
	write("docs/ops.md", "# Ops\n\n## Damaged kg.db\n\n## `GET /api/graph/read?session_id`\n\n## Moves — and reasons\n")
	write("docs/pic.png", "png")

	tests := []struct {
		name, file, text string
		want             []string
	}{
		{name: "a file and a heading that exist", file: "a.go",
			text: "package a\n\n// Compaction (docs/design/compaction.md#pass-1b) and docs/design/compaction.md#rank-order.\nvar x = 1\n"},
		{name: "a whole file", file: "a.go",
			text: "package a\n\n/* See docs/design/compaction.md. */\nvar x = 1\n"},
		{name: "a repeated heading takes a suffix", file: "a.go",
			text: "package a\n\n// docs/design/compaction.md#pass-1b-1\nvar x = 1\n"},
		{name: "headings with code, punctuation and a dash", file: "a.go",
			text: "package a\n\n// docs/ops.md#damaged-kgdb docs/ops.md#get-apigraphreadsession_id docs/ops.md#moves--and-reasons\nvar x = 1\n"},
		{name: "a missing heading", file: "a.go",
			text: "package a\n\nvar x = 1 // docs/design/compaction.md#pass-2\n",
			want: []string{"a.go:3: docs/design/compaction.md has no heading #pass-2"}},
		{name: "a heading inside a code block is none", file: "a.go",
			text: "package a\n\n// docs/design/compaction.md#not-a-heading\nvar x = 1\n",
			want: []string{"a.go:3: docs/design/compaction.md has no heading #not-a-heading"}},
		{name: "a missing file", file: "a.go",
			text: "package a\n\n// Line one.\n// docs/design/sync.md#sessions\nvar x = 1\n",
			want: []string{"a.go:4: docs/design/sync.md: no such file in the repository"}},
		{name: "a bare name of a behaviour document", file: "a.go",
			text: "package a\n\n// Shown edges (compaction.md, Shown edges).\nvar x = 1\n",
			want: []string{"a.go:3: compaction.md: cite docs/design/compaction.md#<heading> instead of the bare name"}},
		{name: "a bare name the repository does not have", file: "a.go",
			text: "package a\n\n// A one-file change (style.md).\nvar x = 1\n",
			want: []string{"a.go:3: style.md: no such file in the repository"}},
		{name: "a path outside the repository", file: "a.go",
			text: "package a\n\n// ../elsewhere/spec/compaction.md and ../elsewhere/design/, but ../dist\nvar x = 1\n",
			want: []string{
				"a.go:3: ../elsewhere/spec/compaction.md: a path outside the repository",
				"a.go:3: ../elsewhere/: a path out of this folder; name paths from the repository's root",
			}},
		{name: "a section named in words", file: "a.go",
			text: "package a\n\n// Restore it (docs/ops.md, Damaged kg.db).\nvar x = 1\n",
			want: []string{"a.go:3: docs/ops.md, Damaged kg.db: cite the section as docs/ops.md#damaged-kgdb"}},
		{name: "a section named in words on the next line", file: "a.go",
			text: "package a\n\n// Restore it (docs/ops.md,\n// Damaged kg.db).\nvar x = 1\n",
			want: []string{"a.go:3: docs/ops.md, Damaged kg.db: cite the section as docs/ops.md#damaged-kgdb"}},
		{name: "a URL is not fetched", file: "a.go",
			text: "package a\n\n// https://github.com/x/y/blob/main/README.md#usage\nvar x = 1\n"},
		{name: "strings of a test are not looked at", file: "a_test.go",
			text: "package a\n\nvar x = \"compaction.md docs/nope.md\"\n"},
		{name: "a hint in a string", file: "a.go",
			text: "package a\n\nconst hint = \"restore it (docs/ops.md#damaged-kgdb)\"\n\nvar msg = `see\ncompaction.md and docs/ops.md, Damaged kg.db`\n",
			want: []string{
				"a.go:6: compaction.md: cite docs/design/compaction.md#<heading> instead of the bare name",
				"a.go:6: docs/ops.md, Damaged kg.db: cite the section as docs/ops.md#damaged-kgdb",
			}},
		{name: "a JavaScript comment", file: "web/app.js",
			text: "// The API (docs/ops.md#nope).\nconst u = 'docs/other.md'; // and sync.md\n",
			want: []string{
				"web/app.js:1: docs/ops.md has no heading #nope",
				"web/app.js:2: sync.md: cite docs/design/sync.md#<heading> instead of the bare name",
			}},
		{name: "a shell comment", file: "run.sh",
			text: "#!/bin/sh\n# held to docs/conformance.md\necho docs/x.md\n",
			want: []string{"run.sh:2: docs/conformance.md: no such file in the repository"}},
		{name: "a Makefile comment", file: "Makefile",
			text: "## test: see docs/ops.md#damaged-kgdb\ntest:\n\tgo test ./... # docs/design/model.md\n",
			want: []string{"Makefile:3: docs/design/model.md: no such file in the repository"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			write(tc.file, tc.text)
			got, _ := newChecker(root).citations(tc.file)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("citations (-want +got):\n%s", diff)
			}
		})
	}

	links := []struct {
		name, text string
		want       []string
	}{
		{name: "links that resolve",
			text: "# Doc\n\n## Here\n\n[a](design/compaction.md#pass-1b), ![pic](pic.png), [b](#here), [c](ops.md), [d](design/),\n[e](https://example.com/x.md#y) [f](mailto:a@b.c)\n\n[ref]: design/compaction.md#rank-order\n"},
		{name: "a missing file",
			text: "# Doc\n\nSee [the spec](spec/compaction.md).\n",
			want: []string{"docs/doc.md:3: spec/compaction.md: no such file in the repository"}},
		{name: "a missing image",
			text: "# Doc\n\n![shot](ui.png \"the page\")\n",
			want: []string{"docs/doc.md:3: ui.png: no such file in the repository"}},
		{name: "a missing heading in another file and in this one",
			text: "# Doc\n\n[a](design/compaction.md#pass-3) and [b](#there)\n",
			want: []string{
				"docs/doc.md:3: design/compaction.md has no heading #pass-3",
				"docs/doc.md:3: docs/doc.md has no heading #there",
			}},
		{name: "a reference definition",
			text: "# Doc\n\n[x][r]\n\n[r]: ../../elsewhere/spec/README.md\n",
			want: []string{"docs/doc.md:5: ../../elsewhere/spec/README.md: a path outside the repository"}},
		{name: "a behaviour document named in prose",
			text: "# Doc\n\nAs storage.md says, and [storage.md](design/compaction.md) and `sync.md` and docs/ops.md do not.\n",
			want: []string{"docs/doc.md:3: storage.md: link docs/design/storage.md#<heading> instead of the bare name"}},
		{name: "links in code are not links",
			text: "# Doc\n\n`[a](nope.md)`\n\n```md\n[b](nope.md)\n```\n"},
	}
	for _, tc := range links {
		t.Run(tc.name, func(t *testing.T) {
			write("docs/doc.md", tc.text)
			got, _ := newChecker(root).links("docs/doc.md")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("links (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSlug pins the heading anchors to GitHub's.
func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Pass 1b":                              "pass-1b",
		"kg_read":                              "kg_read",
		"Damaged kg.db":                        "damaged-kgdb",
		"MCP (`/`)":                            "mcp-",
		"Damaged journal or sessions (json)":   "damaged-journal-or-sessions-json",
		"Security: what kg defends, and whom":  "security-what-kg-defends-and-whom",
		"HTTP side: health, REST, WebSocket":   "http-side-health-rest-websocket",
		"Operations: the `kg` command":         "operations-the-kg-command",
		"See [decision 0001](d/0001.md) first": "see-decision-0001-first",
		"Moves — and reasons":                  "moves--and-reasons",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

// repoTree is what the checks read: source files (Go and the rest) and
// Markdown files, as slash paths relative to the root.
type repoTree struct {
	source, markdown []string
}

// skippedDirs hold no source of the project: dependencies, build output and
// generated bundles.
var skippedDirs = map[string]bool{".git": true, "node_modules": true, "bin": true, "dist": true, "testdata": true}

func repoFiles(t *testing.T, root string) repoTree {
	t.Helper()
	var tree repoTree
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skippedDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasSuffix(rel, ".md"):
			tree.markdown = append(tree.markdown, rel)
		case commentStyle(rel) != noComments:
			tree.source = append(tree.source, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

type style int

const (
	noComments style = iota
	goComments
	slashComments // JavaScript, CSS: // and /* */
	hashComments  // shell, Makefile
)

func commentStyle(rel string) style {
	base := filepath.Base(rel)
	switch ext := filepath.Ext(rel); {
	case ext == ".go":
		return goComments
	case ext == ".js" || ext == ".mjs" || ext == ".jsx" || ext == ".ts" || ext == ".css":
		return slashComments
	case ext == ".sh" || base == "Makefile" || (ext == "" && (strings.HasPrefix(rel, ".ci/") || strings.HasPrefix(rel, "scripts/"))):
		return hashComments
	}
	return noComments
}

// checker resolves paths and anchors against one repository root, reading
// each Markdown file's headings once.
type checker struct {
	root    string
	anchors map[string]map[string]bool
}

func newChecker(root string) *checker {
	return &checker{root: root, anchors: map[string]map[string]bool{}}
}

// commentLine is one line of comment text and where it is.
type commentLine struct {
	line int
	text string
}

// comments returns the comment text of a source file, line by line, and,
// outside Go test files, the text of its string literals.
func (c *checker) comments(rel string) ([]commentLine, error) {
	src, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	var out []commentLine
	switch commentStyle(rel) {
	case goComments:
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, rel, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, group := range f.Comments {
			for _, cm := range group.List {
				first := fset.Position(cm.Slash).Line
				for i, text := range strings.Split(cm.Text, "\n") {
					out = append(out, commentLine{first + i, text})
				}
			}
		}
		if strings.HasSuffix(rel, "_test.go") || strings.HasSuffix(f.Name.Name, "test") {
			break // test files and test packages hold made-up paths as data
		}
		// Messages and hints send a person to the docs too.
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				first := fset.Position(lit.Pos()).Line
				for i, text := range strings.Split(lit.Value, "\n") {
					out = append(out, commentLine{first + i, text})
				}
			}
			return true
		})
	case slashComments:
		for i, line := range strings.Split(string(src), "\n") {
			trimmed := strings.TrimSpace(line)
			if strings.HasPrefix(trimmed, "//") || strings.HasPrefix(trimmed, "/*") || strings.HasPrefix(trimmed, "*") {
				out = append(out, commentLine{i + 1, trimmed})
			} else if at := strings.Index(line, " //"); at >= 0 {
				out = append(out, commentLine{i + 1, line[at:]})
			}
		}
	case hashComments:
		for i, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "#") {
				out = append(out, commentLine{i + 1, line})
			} else if at := strings.Index(line, " #"); at >= 0 {
				out = append(out, commentLine{i + 1, line[at:]})
			}
		}
	}
	return out, nil
}

var (
	// mdPath is a path to a Markdown file, with its anchor if it has one.
	mdPath = regexp.MustCompile(`[A-Za-z0-9_./~-]*[A-Za-z0-9_-]\.md\b(?:#[\p{L}\p{N}_-]+)?`)
	// upAndDown is a path that climbs out of a folder and into another, so
	// that it names something outside the repository or, read from the
	// root, a file it does not mean ("../dist" alone is a folder's sibling).
	upAndDown = regexp.MustCompile(`(?:^|[^.\w/])((?:\.\./)+[\w-]+/)`)
	// inWords is a section named after the file instead of by its anchor:
	// "(<file>.md, Section name)" where the file has a heading "Section name".
	inWords = regexp.MustCompile("^, ([^),;`\"]+)")
)

// citations returns the problems of the document citations in the comments
// of one source file, and how many citations it has.
func (c *checker) citations(rel string) (problems []string, n int) {
	lines, err := c.comments(rel)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", rel, err)}, 0
	}
	for k, l := range lines {
		at := fmt.Sprintf("%s:%d", rel, l.line)
		// A section named in words may go on on the next line.
		rest := func(from int) string {
			tail := l.text[from:]
			if k+1 < len(lines) && lines[k+1].line == l.line+1 && strings.TrimSpace(tail) == "," {
				tail = ", " + strings.TrimLeft(lines[k+1].text, "/#* \t")
			}
			return tail
		}
		reported := map[int]bool{}
		for _, m := range mdPath.FindAllStringIndex(l.text, -1) {
			if m[0] > 0 && l.text[m[0]-1] == ':' {
				continue // a URL's path: external links are not fetched
			}
			ref := l.text[m[0]:m[1]]
			n++
			file, anchor, _ := strings.Cut(ref, "#")
			if msg := c.resolveFromRoot(file, anchor); msg != "" {
				problems = append(problems, at+": "+msg)
				reported[m[0]] = true
				continue
			}
			if anchor == "" {
				if words := inWords.FindStringSubmatch(rest(m[1])); words != nil && c.headings(file)[slug(words[1])] {
					problems = append(problems, fmt.Sprintf("%s: %s, %s: cite the section as %s#%s", at, file, words[1], file, slug(words[1])))
				}
			}
		}
		for _, m := range upAndDown.FindAllStringSubmatchIndex(l.text, -1) {
			// A Markdown path is reported once, above.
			if !overlapsReported(l.text, m[2], reported) {
				problems = append(problems, fmt.Sprintf("%s: %s: a path out of this folder; name paths from the repository's root", at, l.text[m[2]:m[3]]))
			}
		}
	}
	return problems, n
}

// overlapsReported tells whether the match at start lies inside a Markdown
// path already reported on the line.
func overlapsReported(text string, start int, reported map[int]bool) bool {
	for _, m := range mdPath.FindAllStringIndex(text, -1) {
		if reported[m[0]] && m[0] <= start && start < m[1] {
			return true
		}
	}
	return false
}

// designDocs are the behaviour documents; a comment that names one without
// its folder means docs/design/.
var designDocs = []string{"model.md", "compaction.md", "mcp.md", "sync.md", "http.md", "storage.md", "operations.md", "benchmarks.md"}

// resolveFromRoot checks a path cited from a comment, which is relative to
// the repository's root, and returns what is wrong with it, or "".
func (c *checker) resolveFromRoot(file, anchor string) string {
	if strings.HasPrefix(file, "../") || strings.HasPrefix(file, "/") || strings.HasPrefix(file, "~") {
		return file + ": a path outside the repository"
	}
	if !strings.Contains(file, "/") && slices.Contains(designDocs, file) {
		return fmt.Sprintf("%s: cite docs/design/%s#<heading> instead of the bare name", file, file)
	}
	return c.resolve(file, anchor, file)
}

// resolve checks that file (a slash path from the root) exists and, when
// anchor is not empty, has that heading. shown is the path as written.
func (c *checker) resolve(file, anchor, shown string) string {
	full := filepath.Join(c.root, filepath.FromSlash(file))
	if rel, err := filepath.Rel(c.root, full); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return shown + ": a path outside the repository"
	}
	info, err := os.Stat(full)
	if err != nil {
		return shown + ": no such file in the repository"
	}
	if anchor == "" {
		return ""
	}
	if info.IsDir() || !strings.HasSuffix(file, ".md") {
		return fmt.Sprintf("%s: an anchor (#%s) on a file that has no headings", shown, anchor)
	}
	if !c.headings(file)[anchor] {
		return fmt.Sprintf("%s has no heading #%s", shown, anchor)
	}
	return ""
}

var (
	// mdLink is an inline link or image: [text](target "title").
	mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// mdRefDef is a reference definition: [label]: target.
	mdRefDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	// codeSpan is inline code, whose brackets are not links.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	// scheme starts an external link, which is not fetched.
	scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// links returns the problems of the relative links of one Markdown file,
// and how many relative links it has.
func (c *checker) links(rel string) (problems []string, n int) {
	lines, err := c.markdownLines(rel)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", rel, err)}, 0
	}
	dir := filepath.ToSlash(filepath.Dir(rel))
	for i, line := range lines {
		if line == "" {
			continue
		}
		text := codeSpan.ReplaceAllString(line, "")
		var targets []string
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			targets = append(targets, m[1])
		}
		if m := mdRefDef.FindStringSubmatch(text); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if scheme.MatchString(target) {
				continue
			}
			n++
			file, anchor, _ := strings.Cut(target, "#")
			path := rel
			if file != "" {
				path = filepath.ToSlash(filepath.Join(dir, file))
			}
			shown := file
			if shown == "" {
				shown = rel
			}
			if msg := c.resolve(path, anchor, shown); msg != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: %s", rel, i+1, msg))
			}
		}
		if strings.HasPrefix(rel, "docs/design/") {
			continue // there a bare name is a sibling
		}
		// Elsewhere a behaviour document named in prose, not linked, is
		// the specification's, which the repository does not ship.
		prose := mdLink.ReplaceAllString(text, "")
		for _, m := range bareDesignDoc.FindAllStringSubmatch(prose, -1) {
			problems = append(problems, fmt.Sprintf("%s:%d: %s: link docs/design/%s#<heading> instead of the bare name", rel, i+1, m[1], m[1]))
		}
	}
	return problems, n
}

// bareDesignDoc is a behaviour document named without its folder.
var bareDesignDoc = regexp.MustCompile(`(?:^|[^\w./-])((?:model|compaction|mcp|sync|http|storage|operations|benchmarks)\.md)\b`)

// markdownLines returns the lines of a Markdown file, with the lines of
// fenced code blocks blanked (their line numbers kept).
func (c *checker) markdownLines(rel string) ([]string, error) {
	f, err := os.Open(filepath.Join(c.root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	fence := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			line = ""
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			line = ""
		}
		lines = append(lines, line)
	}
	return lines, sc.Err()
}

var atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$`)

// headings returns the anchors of a Markdown file's headings, as GitHub
// makes them (a repeated heading gets -1, -2, …).
func (c *checker) headings(file string) map[string]bool {
	if got, ok := c.anchors[file]; ok {
		return got
	}
	set := map[string]bool{}
	c.anchors[file] = set
	lines, err := c.markdownLines(file)
	if err != nil {
		return set
	}
	seen := map[string]int{}
	for _, line := range lines {
		m := atxHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if k := seen[s]; k > 0 {
			set[fmt.Sprintf("%s-%d", s, k)] = true
		} else {
			set[s] = true
		}
		seen[s]++
	}
	return set
}

var linkText = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's anchor for a heading: its text without link targets,
// lower-cased, spaces turned into -, and everything but letters, digits, -
// and _ dropped.
func slug(heading string) string {
	heading = linkText.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
