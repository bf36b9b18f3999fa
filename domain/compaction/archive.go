package compaction

import (
	"fmt"
	"slices"

	"github.com/kg-memory/kg/domain"
)

// A person's archive (docs/design/trust.md#archiving-by-hand,
// docs/decisions/0106-archive-by-hand.md): the page lets a person move
// several active nodes to the archived tier at once. The move is the same
// tier change compaction makes — a seq recorded as the node's TierSeq, no
// new version — but the change log records it as HistoryArchive, so that an
// undo of the session that made it moves the nodes back, which it never does
// for compaction's moves or a read's promotion.

// MaxArchiveIDs is the most nodes one archive names.
const MaxArchiveIDs = 500

// ArchivedNodes is what ArchiveNodes did: the nodes it moved, in the order
// named, and those it left because they were not active.
type ArchivedNodes struct {
	Moved []Move
	// Unmoved are the nodes named that were already archived or orphaned.
	Unmoved []string
}

// ArchiveNodes moves the active nodes among ids to the archived tier. It
// changes nothing and names the field when ids is empty, longer than
// MaxArchiveIDs, or names a node the graph does not hold. Duplicates count
// once. The moves take their seqs in the order named, in one
// Graph.SetTiers.
func ArchiveNodes(g *domain.Graph, ids []string, now domain.Micros) (ArchivedNodes, error) {
	if err := checkArchiveIDs(g, ids); err != nil {
		return ArchivedNodes{}, err
	}
	var out ArchivedNodes
	var slots []int32
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		n, _ := g.Node(id)
		if n.Tier != domain.Active {
			out.Unmoved = append(out.Unmoved, id)
			continue
		}
		si, _ := g.NodeSlot(id)
		slots = append(slots, si)
		out.Moved = append(out.Moved, Move{ID: id, From: domain.Active, To: domain.Archived, Pass: PassByHand,
			Reason: "archived by a person"})
	}
	setTiers(g, now, slots, domain.Archived)
	return out, nil
}

// PassByHand is the pass of a move a person asked for (ArchiveNodes).
const PassByHand = "by-hand"

func checkArchiveIDs(g *domain.Graph, ids []string) error {
	switch {
	case len(ids) == 0:
		return domain.Invalidf("ids", "names no node: give from 1 to %d node ids", MaxArchiveIDs)
	case len(ids) > MaxArchiveIDs:
		return domain.Invalidf("ids", "names %d nodes, over the limit of %d", len(ids), MaxArchiveIDs)
	}
	var missing []string
	for _, id := range ids {
		if _, ok := g.Node(id); !ok && !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return domain.NotFoundf("ids", "the %s holds no node %s; nothing was archived", graphWord(g.Key().Level), quoteFirst(missing, 3))
	}
	return nil
}

// RestoreTier moves node id back to tier, as an undo of a person's archive
// does: the tier change compaction makes, with no new version. A missing
// node is a not-found error naming "ids".
func RestoreTier(g *domain.Graph, id string, tier domain.Tier, now domain.Micros) error {
	n, ok := g.Node(id)
	if !ok {
		return domain.NotFoundf("ids", "node %q is gone", id)
	}
	if n.Tier != tier {
		si, _ := g.NodeSlot(id)
		setTiers(g, now, []int32{si}, tier)
	}
	return nil
}

// setTiers gives the nodes in slots the tier tier, each taking the next seq
// in order, as setting them one by one would.
func setTiers(g *domain.Graph, now domain.Micros, slots []int32, tier domain.Tier) {
	tiers := make([]domain.Tier, len(slots))
	seqs := make([]uint64, len(slots))
	for i := range slots {
		tiers[i], seqs[i] = tier, uint64(i+1)
	}
	g.SetTiers(now, slots, tiers, seqs)
}

// ParseTier reads a tier as Tier.String writes it.
func ParseTier(s string) (domain.Tier, error) {
	for _, t := range []domain.Tier{domain.Active, domain.Archived, domain.Orphaned} {
		if t.String() == s {
			return t, nil
		}
	}
	return 0, domain.Invalidf("tier", "%q is not one of active, archived, orphaned", s)
}

func graphWord(l domain.Level) string {
	if l == domain.LevelUser {
		return "user graph"
	}
	return "project graph"
}

// quoteFirst quotes the first n of s, saying how many more there are.
func quoteFirst(s []string, n int) string {
	out := ""
	for i, x := range s {
		if i == n {
			return out + fmt.Sprintf(" and %d more", len(s)-n)
		}
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", x)
	}
	return out
}
