package domain

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkErr asserts err is an invalid-argument *Error with message msg and,
// when limit is not 0, that limit.
func checkErr(t *testing.T, err error, msg string, limit int) {
	t.Helper()
	if msg == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %q", msg)
	}
	if err.Error() != msg {
		t.Errorf("error = %q, want %q", err, msg)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not a *domain.Error", err)
	}
	if e.Kind != KindInvalid {
		t.Errorf("kind = %q, want invalid", e.Kind)
	}
	if e.Limit != limit {
		t.Errorf("limit = %d, want %d", e.Limit, limit)
	}
}

const badPattern = "must start with a letter or digit and contain only letters, digits, '.', '_' and '-'"

func TestValidateID(t *testing.T) {
	tests := []struct {
		name, id, msg string
		limit         int
	}{
		{name: "kebab-case", id: "auth-token-refresh"},
		{name: "dots and underscores", id: "v1.2_final"},
		{name: "one char", id: "a"},
		{name: "at the limit", id: strings.Repeat("a", MaxIDLen)},
		{name: "empty", id: "", msg: "id: must not be empty"},
		{name: "over the limit", id: strings.Repeat("a", MaxIDLen+1), msg: "id: 129 chars, limit 128", limit: MaxIDLen},
		{name: "slash", id: "a/b", msg: `id: "a/b" ` + badPattern},
		{name: "leading dash", id: "-a", msg: `id: "-a" ` + badPattern},
		{name: "space", id: "a b", msg: `id: "a b" ` + badPattern},
		{name: "non-ASCII letter", id: "café", msg: `id: "café" ` + badPattern},
		{name: "NUL", id: "a\x00", msg: "id: must not contain NUL"},
		{name: "invalid UTF-8", id: "a\xc3", msg: "id: must be valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, ValidateID("id", tc.id), tc.msg, tc.limit)
		})
	}
}

func TestValidateRel(t *testing.T) {
	tests := []struct {
		name, rel, msg string
		limit          int
	}{
		{name: "plain", rel: "depends-on"},
		{name: "at the limit", rel: strings.Repeat("r", MaxRelLen)},
		{name: "over the limit", rel: strings.Repeat("r", MaxRelLen+1), msg: "rel: 65 chars, limit 64", limit: MaxRelLen},
		{name: "empty", rel: "", msg: "rel: must not be empty"},
		{name: "arrow", rel: "->", msg: `rel: "->" ` + badPattern},
		{name: "NUL", rel: "\x00", msg: "rel: must not contain NUL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, ValidateRel("rel", tc.rel), tc.msg, tc.limit)
		})
	}
}

func TestValidateEnd(t *testing.T) {
	tests := []struct {
		name, end, msg string
		limit          int
	}{
		{name: "node id", end: "auth-module"},
		{name: "file path", end: "src/auth/refresh.py"},
		{name: "URL", end: "https://example.com/a?b=c"},
		{name: "inner spaces", end: "My Documents/notes.txt"},
		{name: "long id-like reference", end: strings.Repeat("a", MaxIDLen+1)},
		{name: "reference at the limit, in code points", end: strings.Repeat("é", MaxRefLen)},
		{name: "reference over the limit", end: strings.Repeat("é", MaxRefLen+1), msg: "to: 513 chars, limit 512", limit: MaxRefLen},
		{name: "empty", end: "", msg: "to: must not be empty"},
		{name: "control character", end: "a\tb", msg: "to: must not contain control characters"},
		{name: "escape sequence", end: "src/\x1b[31ma.go", msg: "to: must not contain control characters"},
		{name: "next line (C1)", end: "a\u0085b", msg: "to: must not contain control characters"},
		{name: "line separator", end: "a\u2028b", msg: "to: must not contain line or paragraph separators (U+2028, U+2029)"},
		{name: "paragraph separator", end: "docs/a\u2029b.md", msg: "to: must not contain line or paragraph separators (U+2028, U+2029)"},
		{name: "other non-ASCII is fine", end: "docs/café — notes.md"},
		{name: "leading space", end: " a", msg: "to: must not start or end with white space"},
		{name: "trailing space", end: "a.go ", msg: "to: must not start or end with white space"},
		{name: "NUL", end: "a\x00", msg: "to: must not contain NUL"},
		{name: "invalid UTF-8", end: "\xff", msg: "to: must be valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, ValidateEnd("to", tc.end), tc.msg, tc.limit)
		})
	}
}

func TestNormalizeGist(t *testing.T) {
	tests := []struct {
		name, gist, want, msg string
		limit                 int
	}{
		{name: "plain", gist: "JWT refresh uses a sliding window", want: "JWT refresh uses a sliding window"},
		{name: "trimmed", gist: "  \t padded \n", want: "padded"},
		{name: "at the limit after trimming", gist: " " + strings.Repeat("g", MaxGistLen) + " ", want: strings.Repeat("g", MaxGistLen)},
		{name: "limit counts code points", gist: strings.Repeat("ü", MaxGistLen), want: strings.Repeat("ü", MaxGistLen)},
		{name: "the spec's example", gist: strings.Repeat("g", 1204), msg: "gist: 1204 chars, limit 1000", limit: MaxGistLen},
		{name: "one over", gist: strings.Repeat("ü", MaxGistLen+1), msg: "gist: 1001 chars, limit 1000", limit: MaxGistLen},
		{name: "empty", gist: "", msg: "gist: must not be empty"},
		{name: "blank", gist: " \n\t ", msg: "gist: must not be empty"},
		{name: "two lines", gist: "first\nsecond", msg: "gist: must be one line; put details in notes"},
		{name: "carriage return", gist: "first\rsecond", msg: "gist: must be one line; put details in notes"},
		{name: "line separator", gist: "first\u2028second", msg: "gist: must be one line; put details in notes"},
		{name: "paragraph separator", gist: "first\u2029second", msg: "gist: must be one line; put details in notes"},
		{name: "next line", gist: "first\u0085second", msg: "gist: must be one line; put details in notes"},
		{name: "vertical tab", gist: "first\vsecond", msg: "gist: must be one line; put details in notes"},
		{name: "form feed", gist: "first\fsecond", msg: "gist: must be one line; put details in notes"},
		{name: "ANSI escape sequence", gist: "\x1b[31mred\x1b[0m alert", msg: "gist: must not contain control characters (such as tab or escape)"},
		{name: "inner tab", gist: "a\tb", msg: "gist: must not contain control characters (such as tab or escape)"},
		{name: "DEL", gist: "a\x7fb", msg: "gist: must not contain control characters (such as tab or escape)"},
		{name: "C1 control sequence introducer", gist: "a\u009b31mb", msg: "gist: must not contain control characters (such as tab or escape)"},
		{name: "separators at the ends are trimmed", gist: "\u2028padded\u0085", want: "padded"},
		{name: "non-ASCII text", gist: "café — naïve résumé ✓", want: "café — naïve résumé ✓"},
		{name: "NUL", gist: "a\x00b", msg: "gist: must not contain NUL"},
		{name: "invalid UTF-8", gist: "a\xffb", msg: "gist: must be valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NormalizeGist(tc.gist)
			checkErr(t, err, tc.msg, tc.limit)
			if got != tc.want {
				t.Errorf("gist = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNormalizeNotes(t *testing.T) {
	many := func(n int, s string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	tests := []struct {
		name  string
		notes []string
		want  []string // the notes returned, when they differ from those given
		msg   string
		limit int
	}{
		{name: "nil"},
		{name: "empty list", notes: []string{}},
		{name: "multi-line note", notes: []string{"line one\nline two"}},
		{name: "at both limits", notes: many(MaxNotes, strings.Repeat("n", MaxNoteLen))},
		{name: "too many", notes: many(MaxNotes+1, "n"), msg: "notes: 51 items, limit 50", limit: MaxNotes},
		{name: "one too long", notes: []string{"ok", "ok", "ok", strings.Repeat("ñ", MaxNoteLen+1)}, msg: "notes[3]: 4001 chars, limit 4000", limit: MaxNoteLen},
		{name: "empty note", notes: []string{""}, msg: "notes[0]: must not be empty"},
		{name: "NUL", notes: []string{"ok", "\x00"}, msg: "notes[1]: must not contain NUL"},
		{name: "tabs and newlines", notes: []string{"a\tb\n\tc"}},
		{name: "line separators", notes: []string{"a\u2028b\u2029c"}},
		{name: "escape sequence", notes: []string{"ok", "\x1b[2J cleared"}, msg: "notes[1]: must not contain control characters other than newline and tab"},
		{name: "Windows line breaks", notes: []string{"ok", "pasted\r\nfrom\r\n\r\nWindows\r\n"}, want: []string{"ok", "pasted\nfrom\n\nWindows\n"}},
		{name: "Windows line breaks counted as one char", notes: []string{strings.Repeat("a\r\n", MaxNoteLen/2)}, want: []string{strings.Repeat("a\n", MaxNoteLen/2)}},
		{name: "lone carriage return", notes: []string{"ok", "shown\rhidden"}, msg: `notes[1]: must not contain a carriage return (\r) outside a \r\n line break: a lone \r makes a terminal write over the line; break lines with \n`},
		{name: "carriage return at the end", notes: []string{"a\r\nb\r"}, msg: `notes[0]: must not contain a carriage return (\r) outside a \r\n line break: a lone \r makes a terminal write over the line; break lines with \n`},
		{name: "C1", notes: []string{"a\u0085b"}, msg: "notes[0]: must not contain control characters other than newline and tab"},
		{name: "DEL", notes: []string{"a\x7f"}, msg: "notes[0]: must not contain control characters other than newline and tab"},
		{name: "invalid UTF-8", notes: []string{"\xc0"}, msg: "notes[0]: must be valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			given := slices.Clone(tc.notes)
			got, err := NormalizeNotes("notes", tc.notes)
			checkErr(t, err, tc.msg, tc.limit)
			want := tc.want
			if want == nil && tc.msg == "" {
				want = tc.notes
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("notes returned (-want +got):\n%s", d)
			}
			if d := cmp.Diff(given, tc.notes); d != "" {
				t.Errorf("the notes given were modified (-before +after):\n%s", d)
			}
		})
	}
}

func TestValidateTouches(t *testing.T) {
	many := make([]string, MaxTouches+1)
	for i := range many {
		many[i] = "f.go"
	}
	tests := []struct {
		name    string
		touches []string
		msg     string
		limit   int
	}{
		{name: "paths", touches: []string{"src/a.go", "docs/My File.md"}},
		{name: "at both limits", touches: append(many[:MaxTouches:MaxTouches], strings.Repeat("t", MaxTouchLen))[1:]},
		{name: "too many", touches: many, msg: "touches: 51 items, limit 50", limit: MaxTouches},
		{name: "too long", touches: []string{strings.Repeat("t", MaxTouchLen+1)}, msg: "touches[0]: 513 chars, limit 512", limit: MaxTouchLen},
		{name: "empty", touches: []string{"a", ""}, msg: "touches[1]: must not be empty"},
		{name: "control character", touches: []string{"a\nb"}, msg: "touches[0]: must not contain control characters"},
		{name: "NUL", touches: []string{"\x00"}, msg: "touches[0]: must not contain NUL"},
		{name: "escape sequence", touches: []string{"a.go", "\x1b]0;title\x07"}, msg: "touches[1]: must not contain control characters"},
		{name: "next line", touches: []string{"a\u0085b"}, msg: "touches[0]: must not contain control characters"},
		{name: "line separator", touches: []string{"a\u2028b"}, msg: "touches[0]: must not contain line or paragraph separators (U+2028, U+2029)"},
		{name: "paragraph separator", touches: []string{"a\u2029"}, msg: "touches[0]: must not contain line or paragraph separators (U+2028, U+2029)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, ValidateTouches("touches", tc.touches), tc.msg, tc.limit)
		})
	}
}

func TestValidateProjectPath(t *testing.T) {
	tests := []struct {
		name, path, msg string
	}{
		{name: "plain", path: "/home/me/src/app"},
		{name: "spaces and non-ASCII", path: "/home/me/My Projects/café"},
		{name: "NUL", path: "/tmp/a\x00b", msg: "cwd: must not contain NUL"},
		{name: "invalid UTF-8", path: "/tmp/\xff", msg: "cwd: must be valid UTF-8"},
		{name: "escape sequence", path: "/tmp/\x1b[31mred", msg: "cwd: must not contain control characters"},
		{name: "newline", path: "/tmp/a\nb", msg: "cwd: must not contain control characters"},
		{name: "tab", path: "/tmp/a\tb", msg: "cwd: must not contain control characters"},
		{name: "C1", path: "/tmp/a\u0085b", msg: "cwd: must not contain control characters"},
		{name: "line separator", path: "/tmp/a\u2028b", msg: "cwd: must not contain line or paragraph separators (U+2028, U+2029)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, ValidateProjectPath("cwd", tc.path), tc.msg, 0)
		})
	}
}

func TestValidateProgressState(t *testing.T) {
	big := `{"k":"` + strings.Repeat("x", MaxProgressBytes-7) + `"}` // 1 byte over
	tests := []struct {
		name, state, msg string
		limit            int
	}{
		{name: "object", state: `{"step":3,"done":["a"]}`},
		{name: "empty object", state: `{}`},
		{name: "at the limit", state: big[:len(big)-3] + `"}`},
		{name: "over the limit", state: big, msg: "state: 65537 bytes, limit 65536", limit: MaxProgressBytes},
		{name: "array", state: `[1,2]`, msg: "state: must be a JSON object"},
		{name: "null", state: `null`, msg: "state: must be a JSON object"},
		{name: "string", state: `"s"`, msg: "state: must be a JSON object"},
		{name: "not JSON", state: `{step:3}`, msg: "state: must be a JSON object"},
		{name: "empty", state: ``, msg: "state: must be a JSON object"},
		{name: "nested at the limit", state: `{"x":` + strings.Repeat("[", MaxProgressDepth-1) + strings.Repeat("]", MaxProgressDepth-1) + `}`},
		{name: "nested too deep", state: `{"x":` + strings.Repeat("[", 6000) + strings.Repeat("]", 6000) + `}`,
			msg: "state: nested 6001 levels deep, limit 64", limit: MaxProgressDepth},
		{name: "brackets in strings do not nest", state: `{"x":"` + strings.Repeat("[{", 100) + `\"]"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, ValidateProgressState("state", []byte(tc.state)), tc.msg, tc.limit)
		})
	}
}

func TestValidateQuery(t *testing.T) {
	tests := []struct {
		name, q, msg string
		limit        int
	}{
		{name: "words", q: "auth token"},
		{name: "at the limit", q: strings.Repeat("q", MaxQueryLen)},
		{name: "over the limit", q: strings.Repeat("q", MaxQueryLen+1), msg: "query: 1001 chars, limit 1000", limit: MaxQueryLen},
		{name: "empty", q: "", msg: "query: must not be empty"},
		{name: "blank", q: "  ", msg: "query: must not be empty"},
		{name: "NUL", q: "\x00", msg: "query: must not contain NUL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, ValidateQuery("query", tc.q), tc.msg, tc.limit)
		})
	}
}

// seededGraph returns a checkpointed graph with a node, an edge, a deleted
// node and a progress entry, so a rejected write has things to disturb.
func seededGraph(t *testing.T) *Graph {
	t.Helper()
	g := NewGraph(ProjectGraph("/work/app"))
	corePutAt(t, g, coreAt(1, "s"), "keep", "kept gist", []string{"a note"}, []string{"a.go"})
	corePutAt(t, g, coreAt(2, "s"), "gone", "to delete", nil, nil)
	coreEdge(t, g, coreAt(3, "s"), "keep", "uses", "a.go")
	if _, err := g.DeleteNode("gone", coreAt(4, "s")); err != nil {
		t.Fatal(err)
	}
	if err := g.SetProgress("task", RawJSON(`{"step":1}`)); err != nil {
		t.Fatal(err)
	}
	g.Checkpoint()
	return g
}

// assertUntouched fails when g differs from before, when anything is
// pending, or when a seq was handed out.
func assertUntouched(t *testing.T, g *Graph, before GraphData, beforeStats Stats) {
	t.Helper()
	if diff := cmp.Diff(before, g.Data()); diff != "" {
		t.Errorf("a rejected write changed the graph (-before +after):\n%s", diff)
	}
	if !g.Pending().Empty() {
		t.Errorf("a rejected write left pending changes: %+v", g.Pending())
	}
	if g.Stats() != beforeStats {
		t.Errorf("stats = %+v, want %+v", g.Stats(), beforeStats)
	}
}

func TestRejectedWritesChangeNothing(t *testing.T) {
	v1, v9 := uint64(1), uint64(9)
	tests := []struct {
		name  string
		write func(g *Graph) error
		msg   string
		kind  Kind
	}{
		{"bad id", func(g *Graph) error {
			_, err := g.PutNode(NodeInput{ID: "a/b", Gist: "g"}, coreAt(9, "x"))
			return err
		}, `id: "a/b" ` + badPattern, KindInvalid},
		{"long gist on an existing node", func(g *Graph) error {
			_, err := g.PutNode(NodeInput{ID: "keep", Gist: strings.Repeat("g", 1204)}, coreAt(9, "x"))
			return err
		}, "gist: 1204 chars, limit 1000", KindInvalid},
		{"multi-line gist", func(g *Graph) error {
			_, err := g.PutNode(NodeInput{ID: "new", Gist: "a\nb"}, coreAt(9, "x"))
			return err
		}, "gist: must be one line; put details in notes", KindInvalid},
		{"too many notes", func(g *Graph) error {
			_, err := g.PutNode(NodeInput{ID: "keep", Gist: "g", Notes: make([]string, MaxNotes+1)}, coreAt(9, "x"))
			return err
		}, "notes: 51 items, limit 50", KindInvalid},
		{"bad touch", func(g *Graph) error {
			_, err := g.PutNode(NodeInput{ID: "keep", Gist: "g", Touches: []string{"ok", "a\x01"}}, coreAt(9, "x"))
			return err
		}, "touches[1]: must not contain control characters", KindInvalid},
		{"gist with an escape sequence", func(g *Graph) error {
			_, err := g.PutNode(NodeInput{ID: "keep", Gist: "\x1b[1mbold"}, coreAt(9, "x"))
			return err
		}, "gist: must not contain control characters (such as tab or escape)", KindInvalid},
		{"gist over two lines by U+2028", func(g *Graph) error {
			_, err := g.PutNode(NodeInput{ID: "new", Gist: "a\u2028b"}, coreAt(9, "x"))
			return err
		}, "gist: must be one line; put details in notes", KindInvalid},
		{"edge end with a line separator", func(g *Graph) error {
			_, err := g.PutEdge(EdgeInput{From: "keep", To: "a\u2028.go", Rel: "uses"}, coreAt(9, "x"))
			return err
		}, "to: must not contain line or paragraph separators (U+2028, U+2029)", KindInvalid},
		{"version conflict", func(g *Graph) error {
			_, err := g.PutNode(NodeInput{ID: "keep", Gist: "g", ExpectedVersion: &v9}, coreAt(9, "x"))
			return err
		}, `expected_version: node "keep" is at version 1, not 9; read it and retry`, KindConflict},
		{"the old version of a deleted node", func(g *Graph) error {
			_, err := g.PutNode(NodeInput{ID: "gone", Gist: "g", ExpectedVersion: &v1}, coreAt(9, "x"))
			return err
		}, `expected_version: node "gone" was deleted (its last version was 1): it is at version 0, not 1; send 0 to re-create it`, KindConflict},
		{"validation comes before the version check", func(g *Graph) error {
			_, err := g.PutNode(NodeInput{ID: "keep", Gist: "", ExpectedVersion: &v1}, coreAt(9, "x"))
			return err
		}, "gist: must not be empty", KindInvalid},
		{"bad edge end", func(g *Graph) error {
			_, err := g.PutEdge(EdgeInput{From: "keep", To: " a.go", Rel: "uses"}, coreAt(9, "x"))
			return err
		}, "to: must not start or end with white space", KindInvalid},
		{"bad from", func(g *Graph) error {
			_, err := g.PutEdge(EdgeInput{From: "", To: "keep", Rel: "uses"}, coreAt(9, "x"))
			return err
		}, "from: must not be empty", KindInvalid},
		{"long rel", func(g *Graph) error {
			_, err := g.PutEdge(EdgeInput{From: "keep", To: "a.go", Rel: strings.Repeat("r", 65)}, coreAt(9, "x"))
			return err
		}, "rel: 65 chars, limit 64", KindInvalid},
		{"long edge note", func(g *Graph) error {
			_, err := g.PutEdge(EdgeInput{From: "keep", To: "a.go", Rel: "uses", Notes: []string{strings.Repeat("n", 4001)}}, coreAt(9, "x"))
			return err
		}, "notes[0]: 4001 chars, limit 4000", KindInvalid},
		{"bad task id", func(g *Graph) error {
			return g.SetProgress("a b", RawJSON(`{}`))
		}, `task_id: "a b" ` + badPattern, KindInvalid},
		{"long task id", func(g *Graph) error {
			return g.SetProgress(strings.Repeat("t", MaxIDLen+1), RawJSON(`{}`))
		}, "task_id: 129 chars, limit 128", KindInvalid},
		{"progress too big", func(g *Graph) error {
			return g.SetProgress("task", RawJSON(`{"k":"`+strings.Repeat("x", MaxProgressBytes)+`"}`))
		}, "state: 65544 bytes, limit 65536", KindInvalid},
		{"progress not an object", func(g *Graph) error {
			return g.SetProgress("task", RawJSON(`[1]`))
		}, "state: must be a JSON object", KindInvalid},
		{"delete a missing node", func(g *Graph) error {
			_, err := g.DeleteNode("gone", coreAt(9, "x"))
			return err
		}, `id: node "gone" not found in project graph`, KindNotFound},
		{"recall a missing node", func(g *Graph) error {
			_, err := g.RecallNode("nope", coreAt(9, "x"))
			return err
		}, `id: node "nope" not found in project graph`, KindNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := seededGraph(t)
			before, stats, seq := g.Data(), g.Stats(), g.Seq()
			err := tc.write(g)
			if err == nil {
				t.Fatalf("no error, want %q", tc.msg)
			}
			if err.Error() != tc.msg {
				t.Errorf("error = %q, want %q", err, tc.msg)
			}
			if KindOf(err) != tc.kind {
				t.Errorf("kind = %q, want %q", KindOf(err), tc.kind)
			}
			if g.Seq() != seq {
				t.Errorf("seq moved from %d to %d", seq, g.Seq())
			}
			assertUntouched(t, g, before, stats)
		})
	}
}

func TestErrorKinds(t *testing.T) {
	cause := errors.New("disk full")
	tests := []struct {
		name     string
		err      error
		wantMsg  string
		wantKind Kind
	}{
		{"invalid", Invalidf("level", "%q is bad", "x"), `level: "x" is bad`, KindInvalid},
		{"not found", NotFoundf("id", "node %q not found", "n"), `id: node "n" not found`, KindNotFound},
		{"conflict", Conflictf("expected_version", "at %d", 3), "expected_version: at 3", KindConflict},
		{"unavailable, without a field", Unavailable(cause, "could not save %s", "user"), "could not save user", KindUnavailable},
		{"wrapped", fmt.Errorf("saving: %w", Invalidf("f", "bad")), "saving: f: bad", KindInvalid},
		{"foreign error", cause, "disk full", KindInternal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err.Error() != tc.wantMsg {
				t.Errorf("message = %q, want %q", tc.err, tc.wantMsg)
			}
			if KindOf(tc.err) != tc.wantKind {
				t.Errorf("kind = %q, want %q", KindOf(tc.err), tc.wantKind)
			}
		})
	}
	if !errors.Is(Unavailable(cause, "x"), cause) {
		t.Error("Unavailable does not unwrap to its cause")
	}
}

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in      string
		want    Level
		wantErr string
	}{
		{"user", LevelUser, ""},
		{"project", LevelProject, ""},
		{"bogus", "", `level: "bogus" is not one of user, project`},
		{"User", "", `level: "User" is not one of user, project`},
		{"", "", `level: "" is not one of user, project`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseLevel("level", tc.in)
			if got != tc.want {
				t.Errorf("level = %q, want %q", got, tc.want)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Errorf("unexpected error %v", err)
				}
				return
			}
			checkErr(t, err, tc.wantErr, 0)
		})
	}
}

// TestHostileTextAlreadyStoredStillLoads: data written before the stricter
// checks (or by hand) with escape sequences and line separators still
// loads, reads and deletes; only new writes are checked.
func TestHostileTextAlreadyStoredStillLoads(t *testing.T) {
	bad := "\x1b[31mred\u2028line"
	d := GraphData{Schema: SchemaVersion, Seq: 3,
		Nodes: []Node{{ID: "old", Gist: bad, Notes: []string{"\x1b[2J" + bad}, Touches: []string{"src/\u2029a.go"},
			Version: Version{V: 1, TS: 1, Seq: 1}}},
		Edges: []Edge{{From: "old", To: "file\u0085name", Rel: "uses", Version: Version{V: 1, TS: 1, Seq: 2}}},
	}
	g, notes := Restore(ProjectGraph("/p"), d, RestoreOptions{})
	if len(notes) != 0 {
		t.Fatalf("notes: %v", notes)
	}
	checkIndexes(t, g)
	if diff := cmp.Diff(d.Nodes, g.Data().Nodes); diff != "" {
		t.Fatalf("stored nodes changed on load (-stored +loaded):\n%s", diff)
	}
	if diff := cmp.Diff(d.Edges, g.Data().Edges); diff != "" {
		t.Fatalf("stored edges changed on load (-stored +loaded):\n%s", diff)
	}
	if hits := hitNamesOf(t, g, "red"); !cmp.Equal(hits, []string{"project:/p/old"}) {
		t.Errorf("search red: %v", hits)
	}
	if _, err := g.RecallNode("old", coreAt(5, "s")); err != nil {
		t.Errorf("reading the stored node: %v", err)
	}
	// A write that keeps the stored touches and changes the gist is a
	// write of the gist only.
	if _, err := g.PutNode(NodeInput{ID: "old", Gist: "clean now"}, coreAt(6, "s")); err != nil {
		t.Errorf("rewriting the gist: %v", err)
	}
	if _, err := g.PutNode(NodeInput{ID: "old", Gist: bad}, coreAt(7, "s")); err == nil {
		t.Error("writing the stored gist again was accepted")
	}
	if !g.DeleteEdge(EdgeKey{"old", "file\u0085name", "uses"}, coreAt(8, "s")) {
		t.Error("the stored edge could not be deleted")
	}
	checkIndexes(t, g)
}
