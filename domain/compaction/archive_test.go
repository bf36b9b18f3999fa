package compaction_test

import (
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
)

func archiveFixture(t *testing.T) *domain.Graph {
	t.Helper()
	g := domain.NewGraph(domain.ProjectGraph("/p"))
	for _, id := range []string{"a", "b", "c"} {
		if _, err := g.PutNode(domain.NodeInput{ID: id, Gist: id}, domain.Stamp{Now: 10}); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// Archiving by hand moves active nodes to archived with a tier seq and no
// new version; a node named twice counts once, one not active is reported.
func TestArchiveNodesMovesActiveNodes(t *testing.T) {
	g := archiveFixture(t)
	before, _ := g.Node("a")
	v := before.Version
	got, err := compaction.ArchiveNodes(g, []string{"a", "b", "a"}, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Moved) != 2 || got.Moved[0].ID != "a" || got.Moved[1].ID != "b" || len(got.Unmoved) != 0 {
		t.Fatalf("archived %+v, want a and b moved", got)
	}
	a, _ := g.Node("a")
	if a.Tier != domain.Archived || a.Version != v || a.TierSeq == 0 {
		t.Fatalf("a is %+v: want archived, same version, a tier seq", a)
	}
	again, err := compaction.ArchiveNodes(g, []string{"a", "c"}, 30)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Moved) != 1 || again.Moved[0].ID != "c" || len(again.Unmoved) != 1 || again.Unmoved[0] != "a" {
		t.Fatalf("second archive %+v, want c moved and a left", again)
	}
}

// Bad input names the field and the limit and changes nothing.
func TestArchiveNodesRefusesBadInput(t *testing.T) {
	many := make([]string, compaction.MaxArchiveIDs+1)
	for i := range many {
		many[i] = "a"
	}
	for _, tc := range []struct {
		name string
		ids  []string
		kind domain.Kind
		says string
	}{
		{"none", nil, domain.KindInvalid, "from 1 to 500"},
		{"too many", many, domain.KindInvalid, "over the limit of 500"},
		{"unknown", []string{"a", "nope", "b"}, domain.KindNotFound, `"nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := archiveFixture(t)
			seq := g.Seq()
			_, err := compaction.ArchiveNodes(g, tc.ids, 20)
			if domain.KindOf(err) != tc.kind || !strings.Contains(err.Error(), "ids") || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err %v, want %s naming ids and %q", err, tc.kind, tc.says)
			}
			if g.Seq() != seq {
				t.Fatalf("seq %d after a refused archive, want %d", g.Seq(), seq)
			}
			for _, id := range []string{"a", "b", "c"} {
				if n, _ := g.Node(id); n.Tier != domain.Active {
					t.Errorf("%s is %s after a refused archive", id, n.Tier)
				}
			}
		})
	}
}
