package record

import (
	"regexp"
	"strings"
	"testing"
)

func TestProjectSlug(t *testing.T) {
	tests := []struct{ name, key, want string }{
		{"plain", "/home/dev/api", "api"},
		{"kept characters", "/x/My_App-2.0", "My_App-2.0"},
		{"runs become one dash", "/x/my  great\tproject (old)", "my-great-project-old-"},
		{"unicode; a kept dash stays", "/x/café-übung", "caf---bung"},
		{"leading dots and dashes removed", "/x/..-.hidden", "hidden"},
		{"nothing left", "/x/@@@", "project"},
		{"root", "/", "project"},
		{"a trailing slash is not an element", "/x/api/", "api"},
		{"at most 55", "/x/" + strings.Repeat("a", 70), strings.Repeat("a", 55)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ProjectSlug(tc.key); got != tc.want {
				t.Errorf("ProjectSlug(%q) = %q, want %q", tc.key, got, tc.want)
			}
		})
	}
}

func TestProjectHash(t *testing.T) {
	h := ProjectHash("/home/dev/api")
	if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(h) || h != ProjectHash("/home/dev/api") || h == ProjectHash("/home/dev/api2") {
		t.Errorf("ProjectHash = %q: want 8 hex digits, the same for one key and another for another", h)
	}
}
