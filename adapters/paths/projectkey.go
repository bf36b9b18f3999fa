package paths

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/kg-memory/kg/adapters/namedfile"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.ProjectKeys = OS{}

// ProjectKey returns the key of the project whose root is the folder root
// (docs/design/team.md#project-keys): the contents of root/.kg/project,
// else the normalised origin remote of the git repository root lies in
// plus root's sub-folder in it; found is false when there is neither, or
// the folder cannot be read.
func (OS) ProjectKey(root string) (string, bool, error) {
	if b, err := readNamed(filepath.Join(root, ".kg", "project")); err == nil {
		key := strings.TrimSpace(string(b))
		if err := domain.ValidateProjectKey("project_key", key); err != nil {
			return "", false, domain.Invalidf("project_key", "%s: %v", filepath.Join(root, ".kg", "project"), err)
		}
		return key, true, nil
	}
	repo, gitDir, ok := findGit(root)
	if !ok {
		return "", false, nil
	}
	origin, ok := originURL(filepath.Join(gitDir, "config"))
	if !ok {
		return "", false, nil
	}
	key, ok := NormaliseRemote(origin)
	if !ok {
		return "", false, nil
	}
	if rel, err := filepath.Rel(repo, root); err == nil && rel != "." {
		key = path.Join(key, filepath.ToSlash(rel))
	}
	return key, true, nil
}

// findGit walks up from dir to the folder holding .git (a folder, or a
// file "gitdir: …" of a worktree or submodule) and returns it and the git
// directory.
func findGit(dir string) (repo, gitDir string, ok bool) {
	for d := dir; ; d = filepath.Dir(d) {
		g := filepath.Join(d, ".git")
		if fi, err := os.Stat(g); err == nil {
			if fi.IsDir() {
				return d, g, true
			}
			if b, err := readNamed(g); err == nil {
				if p, found := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); found {
					p = strings.TrimSpace(p)
					if !filepath.IsAbs(p) {
						p = filepath.Join(d, p)
					}
					// A worktree's config is the main repository's.
					if common, err := readNamed(filepath.Join(p, "commondir")); err == nil {
						c := strings.TrimSpace(string(common))
						if !filepath.IsAbs(c) {
							c = filepath.Join(p, c)
						}
						p = c
					}
					return d, p, true
				}
			}
		}
		if filepath.Dir(d) == d {
			return "", "", false
		}
	}
}

// maxNamedRead bounds what readNamed reads of a file: a key file, a
// worktree's .git file, a git config.
const maxNamedRead = 1 << 20

// readNamed reads at most maxNamedRead bytes of the file at path in a
// project folder a request named: never one that is not a regular file (a
// named pipe there would hold the request for ever), and with a deadline
// (docs/design/trust.md#files-named-by-a-request).
func readNamed(path string) ([]byte, error) {
	f, _, err := namedfile.Open(path, true)
	if err != nil {
		return nil, err
	}
	var b []byte
	err = (*namedfile.Reader)(nil).Do(context.Background(), func() error {
		defer f.Close()
		var err error
		b, err = io.ReadAll(io.LimitReader(f, maxNamedRead))
		return err
	})
	return b, err
}

// originURL reads the url of [remote "origin"] from a git config file.
func originURL(config string) (string, bool) {
	b, err := readNamed(config)
	if err != nil {
		return "", false
	}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = strings.ReplaceAll(line, " ", "") == `[remote"origin"]`
			continue
		}
		if k, v, ok := strings.Cut(line, "="); in && ok && strings.TrimSpace(k) == "url" {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// NormaliseRemote turns a git remote URL into a project key: scheme,
// credentials, port and a trailing ".git" or "/" stripped, the host
// lower-cased; "git@host:owner/repo.git" (scp form) as "host/owner/repo".
// A local path is no key (ok false).
func NormaliseRemote(remote string) (string, bool) {
	r := strings.TrimSpace(remote)
	var host, p string
	if u, err := url.Parse(r); err == nil && u.Scheme != "" && u.Host != "" {
		host, p = u.Hostname(), u.Path
	} else if at, rest, found := strings.Cut(r, ":"); found && !strings.Contains(at, "/") && !strings.HasPrefix(rest, "//") {
		host, p = at, rest
		if i := strings.LastIndex(host, "@"); i >= 0 {
			host = host[i+1:]
		}
	} else {
		return "", false
	}
	host = strings.ToLower(host)
	p = strings.TrimSuffix(strings.Trim(p, "/"), ".git")
	p = strings.Trim(p, "/")
	if host == "" || p == "" {
		return "", false
	}
	return host + "/" + p, true
}
