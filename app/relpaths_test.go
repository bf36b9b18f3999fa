package app

import "testing"

func TestRelativeTo(t *testing.T) {
	for _, c := range []struct{ root, end, want string }{
		{"/home/alice/api", "/home/alice/api/src/pay.go", "src/pay.go"},
		{"/home/alice/api", "/home/alice/api/./src//pay.go", "src/pay.go"},
		{"/home/alice/api", "/home/alice/api", "."},
		{"/home/alice/api", "/home/alice/api-old/x.go", "/home/alice/api-old/x.go"},
		{"/home/alice/api", "/home/alice/api/../x.go", "/home/alice/api/../x.go"},
		{"/home/alice/api", "src/pay.go", "src/pay.go"},
		{"/home/alice/api", "pay-flow", "pay-flow"},
		{"", "/home/alice/api/src/pay.go", "/home/alice/api/src/pay.go"},
	} {
		if got := relativeTo(c.root, c.end); got != c.want {
			t.Errorf("relativeTo(%q, %q) = %q, want %q", c.root, c.end, got, c.want)
		}
	}
}
