package filehash

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/stale"
	"github.com/kg-memory/kg/ports"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func hashOne(t *testing.T, root, path, scheme string) stale.FileHash {
	t.Helper()
	hs, err := OS{}.HashFiles(context.Background(), root, []ports.FileQuery{{Path: path, Scheme: scheme}})
	if err != nil {
		t.Fatalf("HashFiles(%s, %s): %v", root, path, err)
	}
	return hs[0]
}

// In a git work tree the hash is the blob id git gives the file: what git
// hash-object prints and what the index holds after a commit.
func TestGitBlobIDsAreGits(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	gitCmd(t, root, "init", "-q")
	write(t, filepath.Join(root, "src/auth/refresh.py"), "def refresh():\n    return token\n")
	write(t, filepath.Join(root, "empty.txt"), "")
	write(t, filepath.Join(root, "sub/dir/README"), "hello\x00binary\n")
	gitCmd(t, root, "add", "-A")
	gitCmd(t, root, "commit", "-q", "-m", "one")
	for _, p := range []string{"src/auth/refresh.py", "empty.txt", "sub/dir/README"} {
		want := "git:" + gitCmd(t, root, "rev-parse", "HEAD:"+p)
		if got := hashOne(t, root, p, ""); got.State != stale.FileFound || got.Hash != want {
			t.Errorf("%s: got %+v, want the committed blob %s", p, got, want)
		}
		if obj := "git:" + gitCmd(t, root, "hash-object", p); obj != want {
			t.Errorf("%s: git hash-object says %s, the index %s", p, obj, want)
		}
	}
	// A sub-folder of the work tree is in it too, and an absolute path
	// inside the root names the same file.
	sub := filepath.Join(root, "sub")
	if got := hashOne(t, sub, "dir/README", ""); got.Hash != "git:"+gitCmd(t, root, "rev-parse", "HEAD:sub/dir/README") {
		t.Errorf("from a sub-folder: %+v", got)
	}
	if got := hashOne(t, root, filepath.Join(root, "empty.txt"), ""); got.Hash != "git:e69de29bb2d1d6434b8b29ae775ad8c2e48c5391" {
		t.Errorf("absolute path: %+v, want the empty blob", got)
	}
	// The scheme a stamp was recorded with is kept: sha256 asked in a work tree.
	if got := hashOne(t, root, "empty.txt", domain.HashSHA256); got.Hash != "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("sha256 in a work tree: %+v", got)
	}
}

func TestOutsideAFolderSHA256(t *testing.T) {
	root := t.TempDir() // not in a git work tree (the temp folder is not)
	if inGitWorkTree(root) {
		t.Skip("the temporary folder is inside a git work tree")
	}
	write(t, filepath.Join(root, "notes.md"), "abc")
	got := hashOne(t, root, "notes.md", "")
	if want := "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got.State != stale.FileFound || got.Hash != want {
		t.Errorf("got %+v, want %s", got, want)
	}
}

func TestWhatIsNotAFileOfTheProject(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	write(t, filepath.Join(root, "src/a.go"), "package a\n")
	write(t, filepath.Join(base, "secret.txt"), "outside")
	write(t, filepath.Join(root, "big.bin"), strings.Repeat("x", stale.MaxHashedFileBytes+1))
	write(t, filepath.Join(root, "edge.bin"), strings.Repeat("x", stale.MaxHashedFileBytes))
	if err := os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(root, "out-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src/a.go", filepath.Join(root, "in-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", filepath.Join(root, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(base, filepath.Join(root, "out-dir")); err != nil { // a folder linked out
		t.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(root, "in-dir")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want stale.FileState
	}{
		{"src/a.go", stale.FileFound},
		{"in-link", stale.FileFound},
		{"edge.bin", stale.FileFound}, // exactly 1 MiB is read
		{"out-link", stale.FileUnverifiable},
		{"out-dir/secret.txt", stale.FileUnverifiable},
		{"in-dir/a.go", stale.FileFound},
		{"src/../src/a.go", stale.FileFound},
		{"../secret.txt", stale.FileUnverifiable},
		{filepath.Join(base, "secret.txt"), stale.FileUnverifiable},
		{"../nothing-there", stale.FileUnverifiable},
		{"https://example.com/src/a.go", stale.FileUnverifiable},
		{"big.bin", stale.FileTooLarge},
		{"src/gone.go", stale.FileMissing},
		{"dangling", stale.FileMissing},
		{"src", stale.FileMissing}, // a folder is not a file
	}
	for _, c := range cases {
		if got := hashOne(t, root, c.path, ""); got.State != c.want {
			t.Errorf("%s: state %d, want %d", c.path, got.State, c.want)
		}
	}
	// A root reached through a link: the files under it as named.
	link := filepath.Join(base, "link-to-proj")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	a, b := hashOne(t, link, filepath.Join(link, "src/a.go"), ""), hashOne(t, root, "src/a.go", "")
	if a.State != stale.FileFound || a.Hash != b.Hash {
		t.Errorf("through a linked root: %+v, want %+v", a, b)
	}
	if _, err := (OS{}).HashFiles(context.Background(), filepath.Join(base, "gone"), []ports.FileQuery{{Path: "a"}}); err == nil {
		t.Error("a missing root: no error")
	}
}
