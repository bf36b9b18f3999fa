package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/graphsearch"
	// recall names this package's measure of search quality (recall.go).
	hookrecall "github.com/kg-memory/kg/domain/recall"
)

// The measurement behind recall's relevance threshold
// (docs/design/hooks.md#the-relevance-threshold): LoCoMo's questions asked as
// prompts. Each question of categories 1–4 goes, as a prompt, to the graph of
// its own conversation (a prompt memory holds the answer to) and to the graph
// of the next conversation (a prompt the memory knows nothing of: different
// people, different events). For each threshold, the sweep prints how often
// recall speaks on each, and how often what it shows holds an evidence turn.

// promptThresholds are the thresholds the sweep tries.
var promptThresholds = []float64{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3}

// promptShown is how many hits recall shows at most
// (docs/design/hooks.md#recall: 5).
const promptShown = 5

type promptCounts struct {
	asked, fired, evidenceShown, shown, shownEvidence int
}

// runPromptRecall builds one graph per conversation in process and prints
// the sweep to w.
func runPromptRecall(w io.Writer, convs []conversation) error {
	graphs := make([]*domain.Graph, len(convs))
	for i, c := range convs {
		g := domain.NewGraph(domain.ProjectGraph("/locomo/" + c.sample))
		for j, t := range c.turns {
			if _, err := g.PutNode(domain.NodeInput{ID: t.id, Gist: t.gist}, domain.Stamp{Now: domain.Micros(j + 1)}); err != nil {
				return fmt.Errorf("%s %s: %w", c.sample, t.id, err)
			}
		}
		graphs[i] = g
	}
	pos := make([]promptCounts, len(promptThresholds))
	neg := make([]promptCounts, len(promptThresholds))
	skipped := 0
	for i, c := range convs {
		for _, q := range c.questions {
			query, ok := hookrecall.RecallQuery(hookrecall.PromptText(q.text))
			if !ok {
				skipped++
				continue
			}
			for side, gi := range []int{i, (i + 1) % len(convs)} {
				g := graphs[gi]
				res, err := graphsearch.Find([]*domain.Graph{g}, query, hookrecall.RecallSearchLimit)
				if err != nil {
					return fmt.Errorf("%q: %w", query, err)
				}
				counts := pos
				if side == 1 {
					counts = neg
				}
				for ti, th := range promptThresholds {
					var shown []string
					for _, h := range res.Hits {
						if hookrecall.Relevance(h.Score, g.NodeCount()) >= th && len(shown) < promptShown {
							shown = append(shown, h.Node.ID)
						}
					}
					ct := &counts[ti]
					ct.asked++
					if len(shown) > 0 {
						ct.fired++
					}
					ct.shown += len(shown)
					hit := false
					for _, id := range shown {
						if side == 0 && slices.Contains(q.evidence, id) {
							ct.shownEvidence++
							hit = true
						}
					}
					if hit {
						ct.evidenceShown++
					}
				}
			}
		}
	}
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return 100 * float64(a) / float64(b)
	}
	fmt.Fprintf(w, "prompt recall threshold sweep: %d questions as prompts (%d with too few letters skipped), top %d above the threshold\n",
		pos[0].asked, skipped, promptShown)
	fmt.Fprintf(w, "%-9s | %-33s | %s\n", "threshold", "own conversation", "another conversation")
	fmt.Fprintf(w, "%-9s | %9s %11s %11s | %9s %s\n", "", "speaks %", "evidence %", "precision %", "speaks %", "nodes shown/prompt")
	for ti, th := range promptThresholds {
		p, n := pos[ti], neg[ti]
		fmt.Fprintf(w, "%9.2f | %9.1f %11.1f %11.1f | %9.1f %.2f\n", th, pct(p.fired, p.asked), pct(p.evidenceShown, p.asked),
			pct(p.shownEvidence, p.shown), pct(n.fired, n.asked), float64(n.shown)/float64(max(n.asked, 1)))
	}
	fmt.Fprintln(w, strings.Repeat("-", 60))
	fmt.Fprintf(w, "speaks: share of prompts with at least one node shown; evidence: share whose shown nodes hold an evidence turn;\n"+
		"precision: share of shown nodes that are evidence turns. Another conversation: the graph of the next conversation,\n"+
		"which holds nothing the prompt is about.\n")
	return nil
}
