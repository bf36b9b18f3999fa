package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A mistyped --project is refused with exit 1, naming the known projects
// nearest to it, on the files and through the server, by kg export and kg
// compact (a dry run too), instead of an empty graph and exit 0; a known
// one is served.
func TestUnknownProjectIsRefused(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, storage string) {
		root := filepath.Join(t.TempDir(), "root")
		base := projectDir(t)
		app, lib := filepath.Join(base, "app"), filepath.Join(base, "lib")
		for _, p := range []string{app, lib, filepath.Join(base, "typo")} {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		s := startKG(t, storage, root)
		s.putNode(s.session(app), "project", "a", "in app", nil)
		s.putNode(s.session(lib), "project", "l", "in lib", nil)
		s.stop()

		check := func(where string) {
			t.Helper()
			for _, args := range [][]string{
				{"export", "--project", filepath.Join(base, "ap")},
				{"export", "--project", filepath.Join(base, "typo")},
				{"compact", "--project", filepath.Join(base, "ap")},
				{"compact", "--dry-run", "--project", filepath.Join(base, "ap")},
			} {
				code, out, stderr := runKG(t, nil, append(args, "--storage-root", root)...)
				want := "no project at " + args[len(args)-1] + " has memory in " + root + "; the nearest that do: " + app + ", " + lib
				if code != 1 || out != "" || !strings.Contains(stderr, want) {
					t.Errorf("%s: kg %v: exit %d, stdout %q, stderr %q\nwant exit 1 and %q", where, args, code, out, stderr, want)
				}
			}
			code, out, stderr := runKG(t, nil, "export", "--project", app, "--storage-root", root)
			if code != 0 || !strings.Contains(out, `"in app"`) {
				t.Errorf("%s: export of a known project: exit %d\n%s%s", where, code, out, stderr)
			}
		}
		check("on the files")
		p := start(t, "--port", "0", "--storage-root", root, "--storage", storage)
		check("through the server")
		if code := p.stop(syscall.SIGTERM); code != 0 {
			t.Errorf("server exit %d", code)
		}
	})
}
