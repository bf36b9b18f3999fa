package domain

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// The incrementally kept counts and indexes of a graph, checked on small
// random graphs against a recomputation (docs/design/compaction.md#token-estimate-of-a-graph). The graphs are small on purpose: few distinct times and
// few nodes make ties, shared edges and grace boundaries common, which is where
// the rules are subtle. rapid's default of 100 cases per property keeps the
// whole file well under a second.

const propNow = 100 * Day

// propTimes are the times nodes are created, written and read at: few, so
// that recencies tie and grace boundaries are hit exactly.
var propTimes = []Micros{0, 1, Day, 90 * Day, 95 * Day, 99 * Day, propNow}

func propID(i int) string { return fmt.Sprintf("n%02d", i) }

// propEnds are the strings edges join: node ids (some never created) and
// references.
func propEnd(t *rapid.T, label string) string {
	if rapid.IntRange(0, 4).Draw(t, label+"-kind") == 0 {
		return rapid.SampledFrom([]string{"src/a.go", "src/b.go", "https://x.test/doc"}).Draw(t, label+"-ref")
	}
	return propID(rapid.IntRange(0, 24).Draw(t, label+"-id"))
}

// genData draws the stored data of a graph in every tier.
func genData(t *rapid.T) GraphData {
	d := GraphData{Schema: SchemaVersion}
	ids := rapid.SliceOfNDistinct(rapid.IntRange(0, 24), 0, 20, rapid.ID[int]).Draw(t, "ids")
	seq := uint64(0)
	for _, i := range ids {
		id := propID(i)
		seq++
		n := Node{
			ID:       id,
			Gist:     strings.Repeat("g", rapid.IntRange(1, 60).Draw(t, id+"-gist")),
			Created:  rapid.SampledFrom(propTimes).Draw(t, id+"-created"),
			LastRead: rapid.SampledFrom(propTimes).Draw(t, id+"-read"),
			Tier:     rapid.SampledFrom([]Tier{Active, Active, Active, Archived, Archived, Orphaned}).Draw(t, id+"-tier"),
			Version:  Version{V: 1, TS: rapid.SampledFrom(propTimes).Draw(t, id+"-ts"), Seq: seq},
		}
		for range rapid.IntRange(0, 2).Draw(t, id+"-notes") {
			n.Notes = append(n.Notes, strings.Repeat("n", rapid.IntRange(1, 40).Draw(t, id+"-note")))
		}
		if n.Tier == Orphaned {
			n.OrphanedAt = rapid.SampledFrom([]Micros{1, 50 * Day, 99 * Day}).Draw(t, id+"-orphaned")
		}
		n.Use = genUse(t, id)
		d.Nodes = append(d.Nodes, n)
	}
	seen := map[EdgeKey]bool{}
	for range rapid.IntRange(0, 40).Draw(t, "edges") {
		k := EdgeKey{propEnd(t, "from"), propEnd(t, "to"), rapid.SampledFrom([]string{"r", "s"}).Draw(t, "rel")}
		if seen[k] {
			continue
		}
		seen[k] = true
		seq++
		d.Edges = append(d.Edges, Edge{From: k.From, To: k.To, Rel: k.Rel, Version: Version{V: 1, TS: 1, Seq: seq}})
	}
	d.Seq = seq
	return d
}

// genUse draws a stored use count: none (a node of an older file), or
// counts that tie, that decay to nothing, that saturate, stamped on days
// around propNow's, a day after it included.
func genUse(t *rapid.T, id string) Use {
	if rapid.IntRange(0, 3).Draw(t, id+"-use-known") == 0 {
		return Use{}
	}
	today := UseDay(propNow)
	return Use{
		Count: rapid.SampledFrom([]uint64{0, 1, UseUnit, 98_303, 2 * UseUnit, 5 * UseUnit, UseMax}).Draw(t, id+"-use"),
		Day:   today - rapid.SampledFrom([]int32{-1, 0, 0, 1, 7, 30, 93, 94, 95, today}).Draw(t, id+"-use-age"),
		Known: true,
	}
}

func genPolicy(t *rapid.T) CompactionPolicy {
	return CompactionPolicy{
		Seed:          rapid.Bool().Draw(t, "seed"),
		MaxTokens:     rapid.IntRange(0, 500).Draw(t, "max"),
		EstimateNotes: rapid.Bool().Draw(t, "notes"),
		Grace:         rapid.SampledFrom([]Micros{0, Day, 5 * Day, 10 * Day}).Draw(t, "grace"),
		OrphanGrace:   rapid.SampledFrom([]Micros{0, Day, 365 * Day}).Draw(t, "orphan-grace"),
		TombstoneTTL:  30 * Day,
	}
}

func restoreData(t *rapid.T, d GraphData) *Graph {
	g, _ := Restore(GraphKey{Level: LevelUser}, d, RestoreOptions{})
	g.Checkpoint()
	assertStats(t, g)
	return g
}

// cpRecomputeStats computes a graph's Stats from scratch, straight from the
// definitions of docs/design/compaction.md#token-estimate-of-a-graph, sharing
// no code with the incremental path.
func cpRecomputeStats(g *Graph) Stats {
	var s Stats
	nodes := nodeMap(g)
	for _, n := range nodes {
		switch n.Tier {
		case Active:
			s.Active++
			gl := utf8.RuneCountInString(n.Gist)
			nl := gl
			for _, note := range n.Notes {
				nl += utf8.RuneCountInString(note)
			}
			s.GistCost += gl / 4
			s.NotesCost += nl / 4
		case Archived:
			s.Archived++
		case Orphaned:
			s.Orphaned++
		}
	}
	for k := range g.edges {
		s.Edges++
		from, fromNode := nodes[k.From]
		to, toNode := nodes[k.To]
		switch {
		case fromNode && from.Tier == Orphaned, toNode && to.Tier == Orphaned:
		case fromNode && from.Tier == Active, toNode && to.Tier == Active:
			s.ShownEdges++
		case !fromNode && !toNode:
			s.ShownEdges++
		}
	}
	return s
}

// assertStats checks the incremental counts and adjacency index against ones
// computed from scratch.
func assertStats(t interface {
	Helper()
	Fatalf(string, ...any)
}, g *Graph) {
	t.Helper()
	if diff := quickDiff(cpRecomputeStats(g), g.Stats()); diff != "" {
		t.Fatalf("incremental stats differ from recomputed (-scratch +kept):\n%s", diff)
	}
	if probs := indexProblems(g); len(probs) > 0 {
		t.Fatalf("adjacency index differs from recomputed:\n%s", strings.Join(probs, "\n"))
	}
}

// TestStatsPropIncremental drives a graph through random writes, reads,
// tier changes in a batch (as compaction makes them), pruning, checkpoints and rollbacks, and checks after every
// step that the incrementally kept counts and index equal a recomputation.
func TestStatsPropIncremental(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := restoreData(t, genData(t))
		p := genPolicy(t)
		now := propNow
		at := func() Stamp { now += Day / 4; return Stamp{Now: now, Session: "s"} }
		existing := func(label string) (string, bool) {
			ns := g.Nodes()
			if len(ns) == 0 {
				return "", false
			}
			return rapid.SampledFrom(ns).Draw(t, label).ID, true
		}
		t.Repeat(map[string]func(*rapid.T){
			"put": func(t *rapid.T) {
				in := NodeInput{ID: propID(rapid.IntRange(0, 24).Draw(t, "id")),
					Gist: strings.Repeat("w", rapid.IntRange(1, 80).Draw(t, "gist"))}
				if rapid.Bool().Draw(t, "with-notes") {
					in.Notes = []string{strings.Repeat("n", rapid.IntRange(1, 50).Draw(t, "note"))}
				}
				if _, err := g.PutNode(in, at()); err != nil {
					t.Fatal(err)
				}
			},
			"edge": func(t *rapid.T) {
				in := EdgeInput{From: propEnd(t, "from"), To: propEnd(t, "to"), Rel: "r"}
				if _, err := g.PutEdge(in, at()); err != nil {
					t.Fatal(err)
				}
			},
			"delete-node": func(t *rapid.T) {
				if id, ok := existing("victim"); ok {
					if _, err := g.DeleteNode(id, at()); err != nil {
						t.Fatal(err)
					}
				}
			},
			"delete-edge": func(t *rapid.T) {
				es := g.Edges()
				if len(es) > 0 {
					g.DeleteEdge(rapid.SampledFrom(es).Draw(t, "edge").Key(), at())
				}
			},
			"recall": func(t *rapid.T) {
				if id, ok := existing("read"); ok {
					if _, err := g.RecallNode(id, at()); err != nil {
						t.Fatal(err)
					}
				}
			},
			"set-tiers": func(t *rapid.T) {
				ids := make([]string, 0, len(g.Nodes()))
				for _, n := range g.Nodes() {
					ids = append(ids, n.ID)
				}
				setTiers(g, at().Now, drawnTiers(ids, func(id string) Tier {
					return rapid.SampledFrom([]Tier{Active, Archived, Orphaned}).Draw(t, "tier "+id)
				}))
			},
			"prune":  func(t *rapid.T) { prune(g, at(), p) },
			"expire": func(t *rapid.T) { expireTombstones(g, at().Now, p) },
			"checkpoint": func(t *rapid.T) {
				g.Checkpoint()
			},
			"rollback": func(t *rapid.T) {
				g.Rollback()
			},
			"": func(t *rapid.T) { assertStats(t, g) },
		})
	})
}
