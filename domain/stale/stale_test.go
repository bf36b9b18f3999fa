package stale

import (
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestMark(t *testing.T) {
	m := func(p string, c domain.FileChange) domain.StaleFile { return domain.StaleFile{Path: p, Change: c} }
	cases := []struct {
		marks []domain.StaleFile
		want  string
	}{
		{nil, ""},
		{[]domain.StaleFile{m("src/auth/refresh.py", domain.FileChanged)}, "[stale: src/auth/refresh.py changed]"},
		{[]domain.StaleFile{m("a", domain.FileChanged), m("b", domain.FileVanished), m("c", domain.FileChanged), m("d", domain.FileChanged), m("e", domain.FileVanished)},
			"[stale: a changed, b vanished, c changed and 2 more]"},
	}
	for _, c := range cases {
		if got := Mark(c.marks); got != c.want {
			t.Errorf("Mark(%v) = %q, want %q", c.marks, got, c.want)
		}
	}
}

func TestJudgeFile(t *testing.T) {
	rec := domain.FileStamp{Path: "a", Hash: "git:aa"}
	cases := []struct {
		now   FileHash
		want  domain.FileChange
		stale bool
	}{
		{FileHash{State: FileFound, Hash: "git:aa"}, "", false},
		{FileHash{State: FileFound, Hash: "git:bb"}, domain.FileChanged, true},
		{FileHash{State: FileMissing}, domain.FileVanished, true},
		{FileHash{State: FileTooLarge}, domain.FileChanged, true},
		{FileHash{State: FileUnverifiable}, "", false},
	}
	for _, c := range cases {
		if got, stale := JudgeFile(rec, c.now); got != c.want || stale != c.stale {
			t.Errorf("JudgeFile(%+v) = %q %v, want %q %v", c.now, got, stale, c.want, c.stale)
		}
	}
	for ref, want := range map[string]bool{"https://x/y": true, "file:///a": true, "src/a.go": false, "a://": true, "://x": false, "C:/x": false, "we said a://b": false} {
		if IsURL(ref) != want {
			t.Errorf("IsURL(%q) = %v", ref, !want)
		}
	}
}

// Stamps are saved with the batch but take no seq; marks are neither saved
// nor journaled; a write of the node, or of an edge naming the file, clears
// its mark; only the files a node still names are checked.
func TestFileStampsAndMarks(t *testing.T) {
	g := domain.NewGraph(domain.ProjectGraph("/p"))
	at := domain.Stamp{Now: 1}
	if _, err := g.PutNode(domain.NodeInput{ID: "n", Gist: "g", Touches: []string{"a.go", "https://x/y"}}, at); err != nil {
		t.Fatal(err)
	}
	if _, err := g.PutEdge(domain.EdgeInput{From: "n", To: "b.go", Rel: "r"}, at); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(NamedFiles(g, "n"), ","); got != "a.go,b.go" {
		t.Errorf("NamedFiles = %s", got)
	}
	g.RecordFiles("n", []domain.FileStamp{{Path: "b.go", Hash: "git:bb"}, {Path: "a.go", Hash: "git:aa"}, {Path: "c.go", Hash: "git:cc"}})
	g.Checkpoint()
	seq := g.Seq()
	g.SetStale("n", []domain.StaleFile{{Path: "b.go", Change: domain.FileVanished, Recorded: "git:bb"}, {Path: "a.go", Change: domain.FileChanged, Recorded: "git:aa"}})
	if !g.Pending().Empty() {
		t.Error("a mark is pending: it would be saved")
	}
	n, _ := g.Node("n")
	if Mark(n.Stale) != "[stale: a.go changed, b.go vanished]" || g.Seq() != seq {
		t.Errorf("marks %v, seq %d→%d", n.Stale, seq, g.Seq())
	}
	var checked []string
	StampedFiles(g, func(id string, ss []domain.FileStamp) bool {
		for _, s := range ss {
			checked = append(checked, s.Path)
		}
		return true
	})
	if strings.Join(checked, ",") != "a.go,b.go" {
		t.Errorf("checked %v; c.go is no longer named", checked)
	}
	g.RecordFile("n", domain.FileStamp{Path: "b.go", Hash: "git:b2"})
	n, _ = g.Node("n")
	if Mark(n.Stale) != "[stale: a.go changed]" || g.Seq() != seq || g.Pending().Empty() {
		t.Errorf("after an edge's stamp: marks %v, seq %d, pending %v", n.Stale, g.Seq(), g.Pending())
	}
	if _, err := g.PutNode(domain.NodeInput{ID: "n", Gist: "again"}, at); err != nil {
		t.Fatal(err)
	}
	if n, _ = g.Node("n"); n.Stale != nil {
		t.Errorf("a write kept the marks %v", n.Stale)
	}
}
