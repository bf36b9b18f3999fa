package domain

import (
	"strings"
	"testing"
)

func TestStaleMark(t *testing.T) {
	m := func(p string, c FileChange) StaleFile { return StaleFile{Path: p, Change: c} }
	cases := []struct {
		marks []StaleFile
		want  string
	}{
		{nil, ""},
		{[]StaleFile{m("src/auth/refresh.py", FileChanged)}, "[stale: src/auth/refresh.py changed]"},
		{[]StaleFile{m("a", FileChanged), m("b", FileVanished), m("c", FileChanged), m("d", FileChanged), m("e", FileVanished)},
			"[stale: a changed, b vanished, c changed and 2 more]"},
	}
	for _, c := range cases {
		if got := StaleMark(c.marks); got != c.want {
			t.Errorf("StaleMark(%v) = %q, want %q", c.marks, got, c.want)
		}
	}
}

func TestJudgeFile(t *testing.T) {
	rec := FileStamp{Path: "a", Hash: "git:aa"}
	cases := []struct {
		now   FileHash
		want  FileChange
		stale bool
	}{
		{FileHash{State: FileFound, Hash: "git:aa"}, "", false},
		{FileHash{State: FileFound, Hash: "git:bb"}, FileChanged, true},
		{FileHash{State: FileMissing}, FileVanished, true},
		{FileHash{State: FileTooLarge}, FileChanged, true},
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
	g := NewGraph(ProjectGraph("/p"))
	at := Stamp{Now: 1}
	if _, err := g.PutNode(NodeInput{ID: "n", Gist: "g", Touches: []string{"a.go", "https://x/y"}}, at); err != nil {
		t.Fatal(err)
	}
	if _, err := g.PutEdge(EdgeInput{From: "n", To: "b.go", Rel: "r"}, at); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(g.NamedFiles("n"), ","); got != "a.go,b.go" {
		t.Errorf("NamedFiles = %s", got)
	}
	g.RecordFiles("n", []FileStamp{{"b.go", "git:bb"}, {"a.go", "git:aa"}, {"c.go", "git:cc"}})
	g.Checkpoint()
	seq := g.Seq()
	g.SetStale("n", []StaleFile{{Path: "b.go", Change: FileVanished, Recorded: "git:bb"}, {Path: "a.go", Change: FileChanged, Recorded: "git:aa"}})
	if !g.Pending().Empty() {
		t.Error("a mark is pending: it would be saved")
	}
	n, _ := g.Node("n")
	if StaleMark(n.Stale) != "[stale: a.go changed, b.go vanished]" || g.Seq() != seq {
		t.Errorf("marks %v, seq %d→%d", n.Stale, seq, g.Seq())
	}
	var checked []string
	g.StampedFiles(func(id string, ss []FileStamp) bool {
		for _, s := range ss {
			checked = append(checked, s.Path)
		}
		return true
	})
	if strings.Join(checked, ",") != "a.go,b.go" {
		t.Errorf("checked %v; c.go is no longer named", checked)
	}
	g.RecordFile("n", FileStamp{"b.go", "git:b2"})
	n, _ = g.Node("n")
	if StaleMark(n.Stale) != "[stale: a.go changed]" || g.Seq() != seq || g.Pending().Empty() {
		t.Errorf("after an edge's stamp: marks %v, seq %d, pending %v", n.Stale, g.Seq(), g.Pending())
	}
	if _, err := g.PutNode(NodeInput{ID: "n", Gist: "again"}, at); err != nil {
		t.Fatal(err)
	}
	if n, _ = g.Node("n"); n.Stale != nil {
		t.Errorf("a write kept the marks %v", n.Stale)
	}
}
