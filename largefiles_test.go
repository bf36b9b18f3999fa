package kg_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// largeFiles runs scripts/large-files.sh (make lint's check) in dir.
func largeFiles(t *testing.T, script, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(script, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// No file over 1 MiB is tracked but those the check allows: a built binary
// committed once stays in every clone for ever.
func TestNoLargeTrackedFiles(t *testing.T) {
	t.Parallel()
	if err := exec.Command("git", "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skipf("not a git work tree (%v): nothing is tracked", err)
	}
	script, _ := filepath.Abs(filepath.Join("scripts", "large-files.sh"))
	if out, err := largeFiles(t, script, "."); err != nil {
		t.Errorf("scripts/large-files.sh: %v\n%s", err, out)
	}
}

// The check fails on a large file, staged or committed, names it and only
// it, and lets the allowed paths through.
func TestLargeFileCheckNamesWhatItRefuses(t *testing.T) {
	t.Parallel()
	script, _ := filepath.Abs(filepath.Join("scripts", "large-files.sh"))
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name string, size int) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bytes.Repeat([]byte{'x'}, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("small.txt", 1<<20)                           // at the limit: allowed
	write("adapters/http/ui/dist/assets/app.js", 3<<20) // the bundle
	write("docs/ui.png", 2<<20)                         // the screenshot
	write("a dir/kgbench", 2<<20)                       // a binary, committed
	git("add", ".")
	git("commit", "-q", "-m", "one")
	write("staged.bin", (1<<20)+1) // one byte over, staged only
	git("add", "staged.bin")

	out, err := largeFiles(t, script, dir)
	if err == nil {
		t.Fatalf("the check passed with two large files tracked:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "a dir/kgbench: 2097152 bytes, over the limit of 1048576") ||
		!strings.HasPrefix(lines[1], "staged.bin: 1048577 bytes") {
		t.Errorf("the check said:\n%s\nwant one line for a dir/kgbench and one for staged.bin", out)
	}

	git("rm", "-q", "--cached", "a dir/kgbench", "staged.bin")
	if out, err := largeFiles(t, script, dir); err != nil {
		t.Errorf("with only allowed files tracked: %v\n%s", err, out)
	}
}
