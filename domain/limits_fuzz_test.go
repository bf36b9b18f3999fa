package domain

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// rejects checks that err, when not nil, is an invalid-argument *Error
// about field (or one of its items).
func rejects(t *testing.T, err error, field string) bool {
	t.Helper()
	if err == nil {
		return false
	}
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindInvalid || !strings.HasPrefix(e.Field, field) {
		t.Fatalf("rejection %#v is not an invalid-argument error about %q", err, field)
	}
	if !strings.HasPrefix(err.Error(), e.Field+": ") {
		t.Fatalf("message %q does not start with the field", err)
	}
	return true
}

func cleanString(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// oneLine reports whether s holds no control character (C0, DEL, C1) and
// no line or paragraph separator: what a string shown on one line of an
// agent's context or a terminal may hold.
func oneLine(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
	}) < 0
}

func FuzzValidators(f *testing.F) {
	for _, s := range []string{"", "a", "auth-token", "a/b", " a ", "src/x.go", "é", "a\x00", "\xff",
		"line\nbreak", strings.Repeat("x", 129), `{"a":1}`, `[]`, "null", "\t",
		"a\u2028b", "a\u2029", "\u0085", "\x1b[31mred\x1b[0m", "a\tb", "a\r\nb", "\x7f", "\u009b", "/tmp/p"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := utf8.RuneCountInString(s)
		if !rejects(t, ValidateID("id", s), "id") {
			if !cleanString(s) || n < 1 || n > MaxIDLen || !idPattern.MatchString(s) {
				t.Fatalf("ValidateID accepted %q", s)
			}
		}
		if !rejects(t, ValidateRel("rel", s), "rel") {
			if !cleanString(s) || n < 1 || n > MaxRelLen || strings.ContainsAny(s, "/ ") {
				t.Fatalf("ValidateRel accepted %q", s)
			}
		}
		if !rejects(t, ValidateEnd("to", s), "to") {
			if !cleanString(s) || n < 1 || n > MaxRefLen || !oneLine(s) || strings.TrimSpace(s) != s {
				t.Fatalf("ValidateEnd accepted %q", s)
			}
		}
		if g, err := NormalizeGist(s); !rejects(t, err, "gist") {
			gn := utf8.RuneCountInString(g)
			if g != strings.TrimSpace(s) || gn < 1 || gn > MaxGistLen || !oneLine(g) || !cleanString(g) {
				t.Fatalf("NormalizeGist(%q) = %q", s, g)
			}
			if again, err := NormalizeGist(g); err != nil || again != g {
				t.Fatalf("NormalizeGist is not idempotent on %q: %q, %v", g, again, err)
			}
		}
		if notes, err := NormalizeNotes("notes", []string{s}); !rejects(t, err, "notes") {
			note := notes[0]
			nn := utf8.RuneCountInString(note)
			if note != strings.ReplaceAll(s, "\r\n", "\n") || !cleanString(note) || nn < 1 || nn > MaxNoteLen ||
				!oneLine(strings.NewReplacer("\n", "", "\t", "", "\u2028", "", "\u2029", "").Replace(note)) {
				t.Fatalf("NormalizeNotes accepted %q as %q", s, note)
			}
			if again, err := NormalizeNotes("notes", notes); err != nil || again[0] != note {
				t.Fatalf("NormalizeNotes is not idempotent on %q: %q, %v", note, again, err)
			}
		}
		if !rejects(t, ValidateTouches("touches", []string{s}), "touches") {
			if !cleanString(s) || n < 1 || n > MaxTouchLen || !oneLine(s) {
				t.Fatalf("ValidateTouches accepted %q", s)
			}
		}
		if !rejects(t, ValidateProjectPath("cwd", s), "cwd") {
			if !cleanString(s) || !oneLine(s) {
				t.Fatalf("ValidateProjectPath accepted %q", s)
			}
		}
		if !rejects(t, ValidateQuery("query", s), "query") {
			if !cleanString(s) || n > MaxQueryLen || strings.TrimSpace(s) == "" {
				t.Fatalf("ValidateQuery accepted %q", s)
			}
		}
		if !rejects(t, ValidateProgressState("state", []byte(s)), "state") {
			var obj map[string]any
			if len(s) > MaxProgressBytes || json.Unmarshal([]byte(s), &obj) != nil || obj == nil || depthOf(obj) > MaxProgressDepth {
				t.Fatalf("ValidateProgressState accepted %q", s)
			}
		}
	})
}

// fuzzList turns a fuzzed string into a list argument: mode 0 omits it
// (nil), 1 clears it (empty), otherwise it splits s on '|'.
func fuzzList(mode uint8, s string) []string {
	switch mode % 3 {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	return strings.Split(s, "|")
}

func FuzzPutNode(f *testing.F) {
	f.Add("keep", "new gist", uint8(2), "a note|another", uint8(0), "", false, uint64(0))
	f.Add("fresh", "  trimmed  ", uint8(1), "", uint8(2), "a.go|b.go", true, uint64(0))
	f.Add("gone", "back", uint8(0), "", uint8(0), "", true, uint64(1))
	f.Add("bad/id", "g", uint8(0), "", uint8(0), "", false, uint64(0))
	f.Add("keep", "two\nlines", uint8(2), "", uint8(2), "|", false, uint64(0))
	f.Fuzz(func(t *testing.T, id, gist string, notesMode uint8, notes string, touchesMode uint8, touches string, expect bool, version uint64) {
		g := seededGraph(t)
		before, stats, seq := g.Data(), g.Stats(), g.Seq()
		prev, existed := g.Node(id)
		in := NodeInput{ID: id, Gist: gist, Notes: fuzzList(notesMode, notes), Touches: fuzzList(touchesMode, touches)}
		if expect {
			in.ExpectedVersion = &version
		}
		n, err := g.PutNode(in, coreAt(100, "fz"))
		if err != nil {
			if k := KindOf(err); k != KindInvalid && k != KindConflict {
				t.Fatalf("kind %v: %v", k, err)
			}
			if g.Seq() != seq {
				t.Fatalf("a rejected put moved seq")
			}
			assertUntouched(t, g, before, stats)
			return
		}
		wantGist, _ := NormalizeGist(gist)
		wantNotes, wantTouches := in.Notes, in.Touches
		if existed && in.Notes == nil {
			wantNotes = prev.Notes
		}
		if existed && in.Touches == nil {
			wantTouches = prev.Touches
		}
		stored, _ := g.Node(id)
		if stored != n || n.Gist != wantGist || !cmp.Equal(n.Notes, wantNotes) || !cmp.Equal(n.Touches, wantTouches) || n.Tier != Active {
			t.Fatalf("stored %+v, want gist %q notes %q touches %q", n, wantGist, wantNotes, wantTouches)
		}
		checkIndexes(t, g)
		r, _ := Restore(g.Key(), g.Data(), RestoreOptions{})
		if diff := cmp.Diff(g.Data(), r.Data()); diff != "" {
			t.Fatalf("round trip (-graph +restored):\n%s", diff)
		}
	})
}

func FuzzPutEdge(f *testing.F) {
	f.Add("keep", "a.go", "uses", uint8(2), "why")
	f.Add("keep", "https://example.com/x y", "links", uint8(1), "")
	f.Add(" lead", "x", "r", uint8(0), "")
	f.Add("a", "b", "no spaces", uint8(0), "")
	f.Add("a", "b\x00", "r", uint8(0), "")
	f.Fuzz(func(t *testing.T, from, to, rel string, notesMode uint8, notes string) {
		g := seededGraph(t)
		before, stats, seq := g.Data(), g.Stats(), g.Seq()
		in := EdgeInput{From: from, To: to, Rel: rel, Notes: fuzzList(notesMode, notes)}
		prev, existed := g.Edge(in.Key())
		e, err := g.PutEdge(in, coreAt(100, "fz"))
		if err != nil {
			if KindOf(err) != KindInvalid {
				t.Fatalf("kind %v: %v", KindOf(err), err)
			}
			if g.Seq() != seq {
				t.Fatalf("a rejected put moved seq")
			}
			assertUntouched(t, g, before, stats)
			return
		}
		wantNotes := in.Notes
		if existed && in.Notes == nil {
			wantNotes = prev.Notes
		}
		stored, _ := g.Edge(in.Key())
		if stored != e || e.Key() != in.Key() || !cmp.Equal(e.Notes, wantNotes) || e.Version.Seq != seq+1 {
			t.Fatalf("stored %+v, want key %v notes %q seq %d", e, in.Key(), wantNotes, seq+1)
		}
		checkIndexes(t, g)
		r, _ := Restore(g.Key(), g.Data(), RestoreOptions{})
		if diff := cmp.Diff(g.Data(), r.Data()); diff != "" {
			t.Fatalf("round trip (-graph +restored):\n%s", diff)
		}
	})
}

// depthOf is how deep objects and lists nest in a decoded JSON value.
func depthOf(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, depthOf(e))
		}
	case []any:
		for _, e := range x {
			d = max(d, depthOf(e))
		}
	default:
		return 0
	}
	return d + 1
}
