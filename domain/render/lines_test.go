package render

import "testing"

func TestCountedEdge(t *testing.T) {
	key := EdgeKey("auth-module", "requires-init", "session-handler")
	for _, c := range []struct {
		notes int
		want  string
	}{
		{0, "auth-module --requires-init--> session-handler"},
		{1, "auth-module --requires-init--> session-handler (+1 note)"},
		{2, "auth-module --requires-init--> session-handler (+2 notes)"},
	} {
		if got := CountedEdge(key, c.notes); got != c.want {
			t.Errorf("%d notes: got %q, want %q", c.notes, got, c.want)
		}
	}
}

func TestNodeLineAndItsLength(t *testing.T) {
	for _, c := range []struct {
		n    Node
		want string
	}{
		{Node{ID: "a", Gist: "b"}, "  a: b\n"},
		{Node{ID: "auth", Mark: "[stale: src/a.py changed]", Gist: "wraps the IdP"}, "  auth [stale: src/a.py changed]: wraps the IdP\n"},
		{Node{Label: "[user] ", ID: "jwt", Gist: "tokens — rotate"}, "  [user] jwt: tokens — rotate\n"},
	} {
		got := c.n.String()
		if got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
		if c.n.Len() != Runes(got) {
			t.Errorf("%q: Len %d, want %d", got, c.n.Len(), Runes(got))
		}
	}
}

func TestGraphHeader(t *testing.T) {
	for _, c := range []struct {
		title, want string
	}{
		{GraphTitle(false, "ignored"), "=== USER GRAPH — 2 active, 1 archived ===\n"},
		{GraphTitle(true, ""), "=== PROJECT GRAPH — 2 active, 1 archived ===\n"},
		{GraphTitle(true, "my-app"), "=== PROJECT GRAPH (my-app) — 2 active, 1 archived ===\n"},
	} {
		if got := GraphHeader(c.title, 2, 1); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestStaleMark(t *testing.T) {
	for _, tc := range []struct {
		files []StaleFile
		want  string
	}{
		{nil, ""},
		{[]StaleFile{{"src/a.py", "changed"}}, "[stale: src/a.py changed]"},
		{[]StaleFile{{"a", "changed"}, {"b", "vanished"}, {"c", "changed"}}, "[stale: a changed, b vanished, c changed]"},
		{[]StaleFile{{"a", "changed"}, {"b", "vanished"}, {"c", "changed"}, {"d", "changed"}, {"e", "vanished"}}, "[stale: a changed, b vanished, c changed and 2 more]"},
	} {
		if got := StaleMark(tc.files); got != tc.want {
			t.Errorf("StaleMark(%v) = %q, want %q", tc.files, got, tc.want)
		}
	}
}
