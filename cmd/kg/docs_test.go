package main

// The docs name only what the binary has: every `kg …` command in README.md
// and docs/ parses as this binary's command line (its command, flags and
// arguments), every route they name is served, and docs/kg.service is a
// unit systemd accepts that runs `kg serve` with flags it has.

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docFiles are the documents a reader follows: the README and everything
// under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join("..", "..", "README.md")}
	err := filepath.WalkDir(filepath.Join("..", "..", "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// docCommand is one `kg …` command found in a document.
type docCommand struct {
	where string // file:line
	line  string
	// inText: a code span in the text, which may name a command without
	// the arguments it needs ("`kg import` validates…"); a line of a code
	// block is a command to run, whole.
	inText bool
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// kgCommands finds the kg commands of a markdown text: code spans that
// start with "kg", and lines of code blocks that do (after a "$ " prompt).
func kgCommands(name string, text string) []docCommand {
	var out []docCommand
	sc := bufio.NewScanner(strings.NewReader(text))
	fenced, n, cont := false, 0, ""
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		where := name + ":" + strconv.Itoa(n)
		if fenced {
			l := strings.TrimPrefix(strings.TrimSpace(cont+line), "$ ")
			if strings.HasSuffix(l, "\\") {
				cont = strings.TrimSuffix(l, "\\") + " "
				continue
			}
			cont = ""
			if l == "kg" || strings.HasPrefix(l, "kg ") {
				out = append(out, docCommand{where, strings.Join(strings.Fields(l), " "), false})
			}
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			if s := strings.TrimSpace(m[1]); s == "kg" || strings.HasPrefix(s, "kg ") {
				out = append(out, docCommand{where, s, true})
			}
		}
	}
	return out
}

// shellWords splits a command line as a shell would, closely enough for
// the docs: quotes group, and it stops at a comment, a pipe, a redirection
// or a second command.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in, quote, depth := false, rune(0), 0
	flush := func() {
		if in {
			words = append(words, cur.String())
		}
		cur.Reset()
		in = false
	}
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == '(':
			depth++
			cur.WriteRune(r)
			in = true
		case r == ')':
			depth--
			cur.WriteRune(r)
		case depth == 0 && (r == ' ' || r == '\t'):
			flush()
		case depth == 0 && (r == '#' && !in || r == '>' || r == ';' || r == '&' || r == '|' && !in):
			flush()
			return words
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	flush()
	return words
}

// commandArgs turns a documented command into the arguments it stands for:
// optional parts ([…]) are taken, alternatives (a|b) give their first (or,
// for flags, each), and an ellipsis stands for a value.
func commandArgs(line string) [][]string {
	words := shellWords(strings.NewReplacer("[", "", "]", "", `\|`, "|").Replace(line))
	args := [][]string{nil}
	for _, w := range words[1:] { // words[0] is kg
		switch {
		case w == "…" || w == "...":
			w = "X"
		case strings.HasPrefix(w, "--") && strings.Contains(w, "|"):
			var next [][]string
			for _, alt := range strings.Split(w, "|") {
				for _, a := range args {
					next = append(next, append(slices.Clone(a), alt))
				}
			}
			args = next
			continue
		case strings.Contains(w, "|"):
			w, _, _ = strings.Cut(w, "|")
		}
		for i := range args {
			args[i] = append(args[i], w)
		}
	}
	return args
}

// checkCommand parses args as the binary does, without running anything:
// the command must exist and take these flags and this many arguments. A
// bare name (named) needs only to exist.
func checkCommand(args []string, named bool) error {
	root := newRoot(env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }, home: fakeHome})
	c, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if named && len(rest) == 0 && c != root {
		return nil
	}
	if err := c.ParseFlags(rest); err != nil {
		return err
	}
	return c.ValidateArgs(c.Flags().Args())
}

func TestDocsNameOnlyCommandsTheBinaryHas(t *testing.T) {
	t.Parallel()
	var cmds []docCommand
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, kgCommands(strings.TrimPrefix(f, "../../"), string(b))...)
	}
	seen := map[string]bool{}
	for _, c := range cmds {
		if strings.Contains(c.line, "<") { // a pattern such as `kg <command> --help`
			continue
		}
		if w := strings.Fields(c.line); len(w) > 1 && strings.HasSuffix(w[1], ":") {
			continue // a message the command prints ("kg serve: port … is already in use")
		}
		for _, args := range commandArgs(c.line) {
			if len(args) > 0 {
				seen[args[0]] = true
			}
			if err := checkCommand(args, c.inText); err != nil {
				t.Errorf("%s: `%s`: %v", c.where, c.line, err)
			}
		}
	}
	// Every command is shown in the docs, and the finder found them.
	for _, want := range []string{"serve", "mcp", "status", "compact", "export", "import", "migrate", "project", "doctor", "version"} {
		if !seen[want] {
			t.Errorf("no document shows `kg %s`", want)
		}
	}
}

// The checker above catches what it is there to catch.
func TestDocCommandCheckerCatchesMistakes(t *testing.T) {
	t.Parallel()
	if checkCommand([]string{"import"}, true) != nil || checkCommand([]string{"frobnicate"}, true) == nil {
		t.Error("a command named in the text needs only to exist")
	}
	for _, line := range []string{"kg frobnicate", "kg compact --frob", "kg project mv /only/one", "kg version now", "kg import"} {
		for _, args := range commandArgs(line) {
			if checkCommand(args, false) == nil {
				t.Errorf("`%s` passes the check", line)
			}
		}
	}
	for _, line := range []string{"kg", "kg --port 9000", "kg import FILE [--merge|--replace]", `kg import FILE [--merge\|--replace]`, "kg migrate --to bolt|json",
		`kg serve --host 0.0.0.0 --auth-token "$(openssl rand -hex 32)"`, "kg doctor   # a comment", "kg export -o app.json > /dev/null"} {
		for _, args := range commandArgs(line) {
			if err := checkCommand(args, false); err != nil {
				t.Errorf("`%s` (%q): %v", line, args, err)
			}
		}
	}
	got := kgCommands("x.md", "text `kg status` and `kgb`\n```sh\n$ kg project mv \\\n    /a /b\nmake run\n```\n")
	want := []docCommand{{"x.md:1", "kg status", true}, {"x.md:4", "kg project mv /a /b", false}}
	if !slices.Equal(got, want) {
		t.Errorf("kgCommands = %+v, want %+v", got, want)
	}
}

var (
	methodRoute = regexp.MustCompile(`\b(GET|POST|DELETE|PUT|PATCH) (/[^\s` + "`" + `?)]*)`)
	spanRoute   = regexp.MustCompile("`(/(?:api|health|ws|ui|metrics)[^`\\s?]*)")
	urlRoute    = regexp.MustCompile(`(?:https?|ws)://127\.0\.0\.1:8765(/[^\s'"` + "`" + `?)>]*)`)
)

// TestDocsNameOnlyRoutesTheServerHas asks a real server for every route the
// user-facing docs name (README.md and docs/*.md; docs/design/ states the
// behaviour kg is built to, and docs/decisions/ records history): none may
// get the router's "no such route", nor a 405 for the method the docs give
// it (GET / and DELETE / are documented as 405).
func TestDocsNameOnlyRoutesTheServerHas(t *testing.T) {
	t.Parallel()
	type route struct{ method, path, where string }
	var routes []route
	for _, f := range docFiles(t) {
		if strings.Contains(f, "/docs/design/") || strings.Contains(f, "/docs/decisions/") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			where := strings.TrimPrefix(f, "../../") + ":" + strconv.Itoa(i+1)
			for _, m := range methodRoute.FindAllStringSubmatch(line, -1) {
				routes = append(routes, route{m[1], m[2], where})
			}
			for _, re := range []*regexp.Regexp{spanRoute, urlRoute} {
				for _, m := range re.FindAllStringSubmatch(line, -1) {
					routes = append(routes, route{"GET", m[1], where})
				}
			}
		}
	}
	if len(routes) < 20 {
		t.Fatalf("found %d routes in the docs; the finder is broken", len(routes))
	}
	s := startKG(t, "json", t.TempDir())
	fill := strings.NewReplacer("{level}", "user", "{id}", "x", "{task_id}", "t", "{from}", "a", "{to}", "b", "{rel}", "r")
	checked := map[string]bool{}
	for _, r := range routes {
		p := strings.TrimRight(r.path, ".,:;")
		if strings.ContainsAny(p, "*…") || p == "/api" || p == "/api/" || checked[r.method+" "+p] {
			continue
		}
		checked[r.method+" "+p] = true
		if problem := routeProblem(t, s.Addr, r.method, fill.Replace(p)); problem != "" {
			t.Errorf("%s: %s %s: %s", r.where, r.method, p, problem)
		}
	}
	// The criterion catches what it is there to catch.
	if routeProblem(t, s.Addr, "GET", "/api/no-such-route") == "" || routeProblem(t, s.Addr, "GET", "/api/sync") == "" {
		t.Error("an unknown route or a wrong method passes the check")
	}
}

// routeProblem asks the server at addr for method path and says what is
// wrong: the router has no such route, or the route takes another method
// (GET / and DELETE / are documented as 405).
func routeProblem(t *testing.T, addr, method, path string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, "http://"+addr+path, bytes.NewReader([]byte("{}")))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound && bytes.Contains(body, []byte("no such route")):
		return "the server has no such route"
	case resp.StatusCode == http.StatusMethodNotAllowed && path != "/":
		return "405: the route takes another method"
	}
	return ""
}

// docs/kg.service is a unit systemd accepts, that runs this binary's `kg
// serve` with flags and environment variables it has.
func TestSystemdUnit(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "kg.service"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]map[string][]string{}
	section := ""
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
			sections[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("not a unit line: %q", line)
			}
			sections[section][k] = append(sections[section][k], v)
		}
	}
	svc := sections["Service"]
	if len(sections["Unit"]) == 0 || svc == nil || len(sections["Install"]["WantedBy"]) != 1 {
		t.Fatalf("sections: %v", sections)
	}
	execStart := strings.Fields(svc["ExecStart"][0])
	if filepath.Base(execStart[0]) != "kg" || execStart[1] != "serve" {
		t.Errorf("ExecStart = %q, want …/kg serve …", svc["ExecStart"])
	}
	if err := checkCommand(execStart[1:], false); err != nil {
		t.Errorf("ExecStart %q: %v", svc["ExecStart"], err)
	}
	known := map[string]bool{}
	for _, s := range settings(fakeHome) {
		known[s.Env] = true
	}
	for _, kv := range svc["Environment"] {
		name, _, _ := strings.Cut(kv, "=")
		if !known[name] {
			t.Errorf("Environment=%s: kg has no setting %s", kv, name)
		}
		// The unit must serve what the root holds: a pinned backend stops
		// the service at the first start after kg migrate.
		if name == "KG_STORAGE" {
			t.Errorf("Environment=%s pins the backend; leave it to the root's .backend", kv)
		}
	}
	if strings.Contains(svc["ExecStart"][0], "--storage ") || strings.Contains(svc["ExecStart"][0], "--storage=") {
		t.Errorf("ExecStart %q pins the backend; leave it to the root's .backend", svc["ExecStart"])
	}
	if svc["KillSignal"][0] != "SIGTERM" {
		t.Errorf("KillSignal = %q: kg saves on SIGTERM", svc["KillSignal"])
	}

	// systemd's own check, on the unit with ExecStart pointing at the
	// binary these tests built.
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skipf("no systemd-analyze to verify the unit: %v", err)
	}
	unit := filepath.Join(t.TempDir(), "kg.service")
	if err := os.WriteFile(unit, bytes.Replace(raw, []byte(execStart[0]), []byte(kgBin(t)), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(analyze, "verify", unit)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
