package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSearchTerms(t *testing.T) {
	tests := []struct {
		query string
		want  []string
	}{
		{"When did Caroline go to pottery?", []string{"when", "did", "caroline", "go", "to", "pottery"}},
		{"Caroline's (new) 'job'", []string{"caroline's", "new", "job"}},
		{"Caroline’s", []string{"caroline's"}},
		{"src/auth/refresh.py, auth/ token_refresh...", []string{"src/auth/refresh.py", "auth/", "token_refresh"}},
		{"Cache cache CACHE", []string{"cache"}},
		{"--verbose .env", []string{"verbose", "env"}},
		{"tab\tnew\nline", []string{"tab", "new", "line"}},
		{"? ! ...", nil},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, Terms(tc.query)); diff != "" {
			t.Errorf("Terms(%q) (-want +got):\n%s", tc.query, diff)
		}
	}
}

func TestSearchWordsOfText(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Refresh tokens!", []string{"refresh", "tokens"}},
		{"tokenRefresh", []string{"tokenrefresh", "token", "refresh"}},
		{"token_refresh", []string{"token_refresh", "token", "refresh"}},
		{"src/auth/refresh.py", []string{"src/auth/refresh.py", "src", "auth", "refresh", "py"}},
		{"HTTPServer v2Config", []string{"httpserver", "http", "server", "v2config", "v2", "config"}},
		{"don't (see auth/)", []string{"don't", "see", "auth/", "auth"}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, AppendWords(nil, tc.text)); diff != "" {
			t.Errorf("AppendWords(%q) (-want +got):\n%s", tc.text, diff)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		max  int
		want int
	}{
		{"authentication", "authentcation", 2, 1}, // a deletion
		{"pottery", "potetry", 1, 1},              // a swap of neighbours is one edit
		{"pottery", "pottary", 1, 1},
		{"pottery", "poetry", 2, 2},
		{"pottery", "battery", 1, 2}, // more than max: max+1
		{"é", "e", 1, 1},             // runes, not bytes
		{"abc", "abc", 0, 0},
	}
	for _, tc := range tests {
		if got := EditDistance([]rune(tc.a), []rune(tc.b), tc.max); got != tc.want {
			t.Errorf("EditDistance(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.max, got, tc.want)
		}
	}
}
