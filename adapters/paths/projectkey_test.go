package paths

import (
	"os"
	"path/filepath"
	"testing"
)

func TestNormaliseRemote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"git@github.com:Acme/api.git", "github.com/Acme/api"},
		{"https://alice:secret@GitHub.com/Acme/api.git", "github.com/Acme/api"},
		{"https://github.com/Acme/api/", "github.com/Acme/api"},
		{"ssh://git@git.example.com:2222/team/api.git", "git.example.com/team/api"},
		{"git://Example.COM/a/b", "example.com/a/b"},
	} {
		if got, ok := NormaliseRemote(c.in); !ok || got != c.want {
			t.Errorf("NormaliseRemote(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	for _, local := range []string{"/srv/git/api.git", "../api", "", "file:///srv/git/api.git"} {
		if got, ok := NormaliseRemote(local); ok {
			t.Errorf("NormaliseRemote(%q) = %q; a local path is no key", local, got)
		}
	}
}

// gitRepo makes a folder that git would call a repository with origin.
func gitRepo(t *testing.T, dir, origin string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = https://example.com/other/x.git\n[remote \"origin\"]\n\turl = " + origin + "\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestProjectKey(t *testing.T) {
	base := t.TempDir()
	alice, bob := filepath.Join(base, "alice", "api"), filepath.Join(base, "bob", "src", "api-checkout")
	gitRepo(t, alice, "git@github.com:acme/api.git")
	gitRepo(t, bob, "https://bob@github.com/acme/api.git")
	sub := filepath.Join(bob, "services", "pay")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	pinned := filepath.Join(base, "pinned")
	if err := os.MkdirAll(filepath.Join(pinned, ".kg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pinned, ".kg", "project"), []byte("acme/payments\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir, want string
		found     bool
	}{
		{alice, "github.com/acme/api", true},
		{bob, "github.com/acme/api", true},
		{sub, "github.com/acme/api/services/pay", true},
		{pinned, "acme/payments", true},
		{filepath.Join(base, "nothing"), "", false},
	} {
		got, found, err := OS{}.ProjectKey(c.dir)
		if err != nil || found != c.found || got != c.want {
			t.Errorf("ProjectKey(%s) = %q, %v, %v; want %q, %v", c.dir, got, found, err, c.want, c.found)
		}
	}
	bad := filepath.Join(base, "bad")
	os.MkdirAll(filepath.Join(bad, ".kg"), 0o755)
	os.WriteFile(filepath.Join(bad, ".kg", "project"), []byte("/an/absolute/path"), 0o644)
	if _, _, err := (OS{}).ProjectKey(bad); err == nil {
		t.Error("a .kg/project holding a path was accepted")
	}
}
