package recall

import (
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestMarkUsefulKeepsTheNewestMarksWithoutVersionOrSeq(t *testing.T) {
	g := domain.NewGraph(domain.ProjectGraph("/src/app"))
	if _, err := g.PutNode(domain.NodeInput{ID: "a", Gist: "g"}, domain.Stamp{Now: domain.Second}); err != nil {
		t.Fatal(err)
	}
	g.Checkpoint()
	before, _ := g.Node("a")
	seq := g.Seq()
	for i := range MaxUsefulMarks + 3 {
		if err := MarkUseful(g, "a", domain.Micros(i+2)*domain.Second+7); err != nil {
			t.Fatal(err)
		}
	}
	n, _ := g.Node("a")
	marks := UsefulMarks(n)
	if len(marks) != MaxUsefulMarks || marks[0] != 5*domain.Second+7 || marks[len(marks)-1] != domain.Micros(MaxUsefulMarks+4)*domain.Second+7 {
		t.Errorf("marks = %v; want the newest %d, oldest first", marks, MaxUsefulMarks)
	}
	if n.Version != before.Version || g.Seq() != seq {
		t.Errorf("version %v seq %d after marks; want %v and %d unchanged", n.Version, g.Seq(), before.Version, seq)
	}
	if _, ok := g.Pending().Nodes["a"]; !ok {
		t.Error("the mark is not pending: it would not be saved")
	}
	if got := string(n.Extra[UsefulField]); got[:len("[5.000007,")] != "[5.000007," {
		t.Errorf("stored %s; want seconds with six decimals", got)
	}
	if err := MarkUseful(g, "missing", domain.Second); domain.KindOf(err) != domain.KindNotFound {
		t.Errorf("marking a missing node: %v, want not found", err)
	}
}

func TestUsefulMarksReadBadStoredValuesAsNone(t *testing.T) {
	for _, raw := range []string{`"x"`, `[1, "a"]`, `{}`, `[1e3]`} {
		n := &domain.Node{ID: "a", Extra: map[string]domain.RawJSON{UsefulField: domain.RawJSON(raw)}}
		if m := UsefulMarks(n); len(m) != 0 {
			t.Errorf("%s read as %v, want none", raw, m)
		}
	}
	n := &domain.Node{ID: "a", Extra: map[string]domain.RawJSON{UsefulField: domain.RawJSON(`[1700000000.5, 1600000000]`)}}
	if m := UsefulMarks(n); len(m) != 2 || m[0] != 1600000000*domain.Second || m[1] != 1700000000*domain.Second+domain.Second/2 {
		t.Errorf("marks = %v", m)
	}
}

func TestSetMetaIsUndoneByRollback(t *testing.T) {
	g := domain.NewGraph(domain.UserGraph)
	g.SetMeta("maintained_us", domain.RawJSON("5"))
	g.Checkpoint()
	g.SetMeta("maintained_us", domain.RawJSON("9"))
	g.SetMeta("other", domain.RawJSON("1"))
	g.Rollback()
	if v, _ := g.Meta("maintained_us"); string(v) != "5" {
		t.Errorf("after rollback maintained_us = %s, want 5", v)
	}
	if _, ok := g.Meta("other"); ok {
		t.Error("after rollback a new value is still there")
	}
}
