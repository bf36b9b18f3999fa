package paths

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestCanonical(t *testing.T) {
	// The temp dir itself may sit behind a symlink (macOS /var); compare
	// with its real path.
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(root, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in, want string
	}{
		{"existing", real, real},
		{"unclean", root + "/./real/../real/", real},
		{"symlink resolved", link, real},
		{"missing kept cleaned", root + "/nope//x/..", filepath.Join(root, "nope")},
		{"missing under a symlink not walked", link + "/missing", filepath.Join(link, "missing")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := OS{}.Canonical(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Canonical(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestCanonicalRejectsRelativeAndNotUTF8(t *testing.T) {
	for _, p := range []string{"", "rel/path", "./x", "/home/dev/\xff", "/home/\xc3(/x"} {
		_, err := OS{}.Canonical(p)
		if domain.KindOf(err) != domain.KindInvalid {
			t.Errorf("Canonical(%q) error = %v, want an invalid error", p, err)
		}
	}
}

func TestCanonicalRejectsALinkToAPathNotUTF8(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(root, "caf\xe9")
	link := filepath.Join(root, "link")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Skipf("this file system refuses a name that is not UTF-8: %v", err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := (OS{}).Canonical(link); domain.KindOf(err) != domain.KindInvalid {
		t.Errorf("Canonical(%q) error = %v, want an invalid error: its real path is not UTF-8", link, err)
	}
}
