package app

import (
	"context"
	"testing"

	"github.com/kg-memory/kg/domain"
)

// linkPaths resolves /link to a path holding an escape sequence, as a
// symlink planted with such a name would; other paths as fakePaths does.
type linkPaths struct{ fakePaths }

func (l linkPaths) Canonical(p string) (string, error) {
	if p == "/link" {
		return "/real/\x1b[31mred", nil
	}
	return l.fakePaths.Canonical(p)
}

// TestProjectPathsWithControlCharacters: a cwd or project_path with NUL,
// control characters or line separators is refused with an error naming
// the argument, and nothing is registered.
func TestProjectPathsWithControlCharacters(t *testing.T) {
	e := newEnv(t)
	svc, err := New(e.cfg, Deps{Graphs: e.store, Sessions: e.store, Clock: e.clock, Events: e.events, Paths: linkPaths{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	tests := []struct {
		name, path, msg string
	}{
		{"NUL", "/work/a\x00b", "must not contain NUL"},
		{"escape sequence", "/work/\x1b[2Jcleared", "must not contain control characters"},
		{"newline", "/work/a\nb", "must not contain control characters"},
		{"line separator", "/work/a\u2028b", "must not contain line or paragraph separators (U+2028, U+2029)"},
		{"invalid UTF-8", "/work/\xff", "must be valid UTF-8"},
		{"resolves to an escape sequence", "/link", `"/link" resolves to a path that must not contain control characters`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.Read(e.ctx, ReadRequest{CWD: tc.path})
			if de := wantKind(t, err, domain.KindInvalid, "cwd"); de != nil && de.Msg != tc.msg {
				t.Errorf("kg_read cwd: %q, want %q", de.Msg, tc.msg)
			}
			_, err = svc.Search(e.ctx, SearchRequest{Query: "x", ProjectPath: tc.path})
			if de := wantKind(t, err, domain.KindInvalid, "project_path"); de != nil && de.Msg != tc.msg {
				t.Errorf("kg_search project_path: %q, want %q", de.Msg, tc.msg)
			}
		})
	}
	if h := svc.Health(e.ctx); h.ActiveSessions != 0 || h.LoadedGraphs != 1 {
		t.Errorf("%d sessions and %d graphs loaded, want none and the user graph", h.ActiveSessions, h.LoadedGraphs)
	}
}
