package paths

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A project folder whose .kg/project, .git file or git config is a named
// pipe answers (team mode looks a requested folder's key up): the pipe is
// never opened for read, and counts as no key file
// (docs/design/trust.md#files-named-by-a-request).
func TestProjectKeyNeverOpensANamedPipe(t *testing.T) {
	for _, name := range []string{".kg/project", ".git", ".git/config"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			type answer struct {
				found bool
				err   error
			}
			done := make(chan answer, 1)
			go func() {
				_, found, err := OS{}.ProjectKey(root)
				done <- answer{found, err}
			}()
			select {
			case a := <-done:
				if a.found || a.err != nil {
					t.Errorf("ProjectKey = found %v, %v; want no key", a.found, a.err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("ProjectKey did not answer within 5s: it opened the pipe")
			}
		})
	}
}
