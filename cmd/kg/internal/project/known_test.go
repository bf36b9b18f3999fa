package project

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNearestPaths(t *testing.T) {
	t.Parallel()
	known := []string{"/src/web", "/src/api", "/home/dev/app", "/home/dev/apps", "/home/dev/lib"}
	if d := cmp.Diff([]string{"/home/dev/app", "/home/dev/apps", "/home/dev/lib"}, nearestPaths("/home/dev/ap", known, 3)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got := nearestPaths("/x", nil, 3); len(got) != 0 {
		t.Errorf("nearest of none = %v", got)
	}
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"/a/app", "/a/ap", 1}} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
