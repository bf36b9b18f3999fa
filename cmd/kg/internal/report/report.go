// Package report writes what kg's commands print for people about a
// graph — its name, a compaction's moves, a page of its change log, an
// undo, an import — and what a migration did (docs/operations.md). A
// command's --json prints the API's shapes instead.
package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kg-memory/kg/adapters/http/apijson"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/importing"
	"github.com/kg-memory/kg/migrations"
)

// GraphName names a graph for people: "user graph", "project /p".
func GraphName(k domain.GraphKey) string {
	if k.Level == domain.LevelUser {
		return "user graph"
	}
	return "project " + k.Project
}

// Compaction is what `kg compact` prints: which graph, whether it was a
// dry run, and the moves in the API's shape.
type Compaction struct {
	Level   string  `json:"level"`
	Project *string `json:"project"`
	DryRun  bool    `json:"dry_run"`
	apijson.Moves
}

// MoveCounts sums up the moves of a compaction run in one line, for a
// command whose run may move thousands (kg import of a large graph).
func MoveCounts(w io.Writer, m apijson.Moves) {
	budget := fmt.Sprintf("estimate %d tokens", m.EstimateBefore)
	if m.EstimateAfter != m.EstimateBefore {
		budget = fmt.Sprintf("estimate %d → %d tokens", m.EstimateBefore, m.EstimateAfter)
	}
	fmt.Fprintf(w, "compaction: %d archived, %d restored, %d orphaned, %d pruned (%s); --verbose lists every move\n",
		len(m.Archived), len(m.Restored), len(m.Orphaned), len(m.Pruned), budget)
}

// Moves prints a compaction for people: one line for the graph, one
// per move.
func Moves(w io.Writer, key domain.GraphKey, out Compaction) {
	verb, none := "made", "nothing to move"
	if out.DryRun {
		verb, none = "would make", "nothing would move"
	}
	budget := fmt.Sprintf("estimate %d tokens", out.EstimateBefore)
	if out.EstimateAfter != out.EstimateBefore {
		budget = fmt.Sprintf("estimate %d → %d tokens", out.EstimateBefore, out.EstimateAfter)
	}
	if out.OverBudget {
		budget += ", still over the budget (what is left is in grace, or edges between references)"
	}
	if len(out.Moves.Moves) == 0 {
		fmt.Fprintf(w, "%s: %s (%s)\n", GraphName(key), none, budget)
		return
	}
	fmt.Fprintf(w, "%s: %s %d move(s) (%s)\n", GraphName(key), verb, len(out.Moves.Moves), budget)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, m := range out.Moves.Moves {
		fmt.Fprintf(tw, "  %s\t%s\t%s → %s\t%s\n", m.Pass, m.ID, m.From, m.To, strings.TrimSpace(m.Reason))
	}
	_ = tw.Flush()
}

// itemName names the item of a change: "node n", "edge a --rel--> b" or
// "the graph".
func itemName(c apijson.ItemChange) string {
	if c.Item == "edge" && c.Edge != nil {
		return "edge " + domain.EdgeKey{From: c.Edge.From, To: c.Edge.To, Rel: c.Edge.Rel}.String()
	}
	if c.Item == "graph" {
		return "the graph"
	}
	return "node " + c.ID
}

// History prints a page of the change log for people: one line per
// entry, then its diff, each field's old lines with "-" and new ones with
// "+".
func History(w io.Writer, key domain.GraphKey, h apijson.History) {
	if len(h.Entries) == 0 {
		fmt.Fprintf(w, "%s: no change in the history\n", GraphName(key))
		return
	}
	for _, e := range h.Entries {
		who := "no session"
		if e.SessionID != "" {
			who = "session " + e.SessionID
		}
		if e.Principal != "" {
			who += " (" + e.Principal + ")"
		}
		line := fmt.Sprintf("seq %d  %s  %s  %s %s", e.Seq, e.Time, who, e.Op, itemName(e.ItemChange))
		if e.Tier != nil {
			line += fmt.Sprintf(": %s → %s", e.Tier.From, e.Tier.To)
		}
		if e.Detail != "" {
			line += fmt.Sprintf(" (%s, %d item(s))", e.Detail, len(e.Items))
		}
		fmt.Fprintf(w, "%s\n", line)
		printDiff(w, "    ", e.Diff)
		for _, it := range e.Items {
			fmt.Fprintf(w, "    %s\n", itemName(it))
			printDiff(w, "      ", it.Diff)
		}
	}
	if h.NextBeforeSeq != nil {
		fmt.Fprintf(w, "(older changes: raise --limit, or GET /api/history?before_seq=%d)\n", *h.NextBeforeSeq)
	}
}

// printDiff prints a change's fields, each old line marked "-" and each
// new one "+".
func printDiff(w io.Writer, indent string, diff []apijson.FieldDiff) {
	for _, d := range diff {
		lines := func(mark, text string) {
			if text == "" {
				return
			}
			for _, l := range strings.Split(text, "\n") {
				fmt.Fprintf(w, "%s%-8s %s %s\n", indent, d.Field, mark, l)
			}
		}
		lines("-", d.Before)
		lines("+", d.After)
	}
}

// Undo prints an undo for people: per graph, what was (or would be)
// put back and what was skipped, and why.
func Undo(w io.Writer, out apijson.Undo) {
	verb := "put back"
	if out.DryRun {
		verb = "would put back"
	}
	for _, g := range out.Graphs {
		name := "user graph"
		if g.ProjectPath != nil {
			name = "project " + *g.ProjectPath
		}
		if g.Error != "" {
			fmt.Fprintf(w, "%s: not undone: %s\n", name, g.Error)
			continue
		}
		fmt.Fprintf(w, "%s: %s %d item(s), skipped %d\n", name, verb, len(g.Applied), len(g.Skipped))
		for _, st := range g.Applied {
			seq := ""
			if st.Seq != nil {
				seq = fmt.Sprintf(" (seq %d)", *st.Seq)
			}
			fmt.Fprintf(w, "  %s %s%s\n", st.Action, stepName(st), seq)
		}
		for _, st := range g.Skipped {
			fmt.Fprintf(w, "  skipped %s: %s\n", stepName(st), st.Reason)
		}
	}
}

// stepName names the item of an undo step.
func stepName(st apijson.UndoStep) string {
	return itemName(apijson.ItemChange{Item: st.Item, ID: st.ID, Edge: st.Edge})
}

// Import reports what kg import of file wrote into the graph of key,
// deleted, redacted and moved; verbose lists every compaction move.
func Import(w io.Writer, file string, key domain.GraphKey, mode importing.Mode, verbose bool, res apijson.ImportResult) {
	fmt.Fprintf(w, "imported %s into the %s (%s): %d node(s), %d edge(s), %d progress record(s) written; %d unchanged",
		file, GraphName(key), res.Mode, res.NodesWritten, res.EdgesWritten, res.ProgressWritten, res.Unchanged)
	if mode == importing.Replace {
		fmt.Fprintf(w, "; deleted %d node(s), %d edge(s), %d progress record(s)", res.NodesDeleted, res.EdgesDeleted, res.ProgressRemoved)
	}
	fmt.Fprintf(w, "\n")
	for _, r := range res.Redacted {
		fmt.Fprintf(w, "redacted: %s held %s (chars %d–%d), stored as %s\n", r.Field, r.Kind, r.Start, r.End, r.StoredAs)
	}
	if m := res.Compaction; m != nil && len(m.Moves)+m.MovesUnlisted > 0 {
		if verbose {
			Moves(w, key, Compaction{Level: string(key.Level), Moves: *res.Compaction})
		} else {
			MoveCounts(w, *res.Compaction)
		}
	}
}

// Migration says what a migration step wrote and left alone.
func Migration(r migrations.Result) string {
	s := "written " + list(r.Changed)
	if len(r.Unchanged) > 0 {
		s += "; unchanged " + list(r.Unchanged)
	}
	return s
}

// list joins names, or says there are none.
func list(names []string) string {
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, ", ")
}

// Notes prints what a migration step noticed, one line each.
func Notes(w io.Writer, r migrations.Result) {
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
