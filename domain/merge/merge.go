package merge

import (
	"fmt"
	"slices"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/secrets"
	"github.com/kg-memory/kg/domain/secretscreen"
)

// Merging two nodes (docs/design/trust.md#merging-two-nodes): a person's act
// on possible duplicates. Node From is merged into node Into: Into keeps its
// id and takes the chosen gist and both nodes' notes and touches; every edge
// of From is rewired to Into; From is deleted. PlanMerge says what a merge
// would do without doing it, MergeNodes does it as one change.

// MergeInput names the two nodes of a merge and what to keep.
type MergeInput struct {
	Into, From string
	// Gist is the merged node's gist; "" keeps Into's.
	Gist string
	// IntoVersion and FromVersion, when set, are the versions the nodes
	// must be at (as a put's expected version): the merge is refused if
	// either changed since the person looked.
	IntoVersion, FromVersion *uint64
}

// MergeEdgeAction is what a merge does with one edge of the node merged.
type MergeEdgeAction string

// The merge's edge actions.
const (
	// MergeRewired: the edge now starts or ends at Into instead.
	MergeRewired MergeEdgeAction = "rewired"
	// MergeUnited: Into already has the rewired edge; its notes and the
	// merged edge's are united.
	MergeUnited MergeEdgeAction = "united"
	// MergeDropped: an edge between the two nodes, which would become a
	// self-loop of Into, is deleted.
	MergeDropped MergeEdgeAction = "dropped"
)

// MergeEdge is one edge of the node merged and what becomes of it.
type MergeEdge struct {
	Was    domain.EdgeKey // the edge of From
	Now    domain.EdgeKey // the edge it becomes; zero when dropped
	Action MergeEdgeAction
	Notes  []string // the notes Now holds after the merge; of a dropped edge, the notes deleted with it
}

// MergePlan is what a merge does: the merged node's content, each edge of
// From, and the secrets redacted from the merged text.
type MergePlan struct {
	Into, From               string
	IntoVersion, FromVersion uint64 // the versions the plan was made from
	Gist                     string
	Notes, Touches           []string
	Edges                    []MergeEdge // by Was, in (from, rel, to) order
	Redacted                 []secrets.Finding
}

// MergeResult is what MergeNodes did.
type MergeResult struct {
	MergePlan
	Node         *domain.Node   // Into as written
	Written      []*domain.Edge // the edges created or changed, in plan order
	EdgesDeleted int            // the edges of From deleted with it
}

// PlanMerge checks a merge against the graph and says what it would do,
// changing nothing. The merged text is screened for secrets under mode, as
// any write is (docs/design/trust.md#secrets): in block mode a secret
// refuses the merge, naming the field (`notes[3]`, `edges[1].notes[0]`).
//
// Notes and touches are united in order: Into's first, then those of From
// that Into does not hold, each list without repeats. An edge of From is
// rewired to Into; when Into already has that edge, their notes are united
// the same way. An edge between the two nodes is dropped: rewired it would
// be a loop of Into on itself, which says nothing about either. A loop of
// From on itself becomes one of Into.
func PlanMerge(g *domain.Graph, in MergeInput, mode secretscreen.Mode) (MergePlan, error) {
	if err := domain.ValidateID("into", in.Into); err != nil {
		return MergePlan{}, err
	}
	if err := domain.ValidateID("from", in.From); err != nil {
		return MergePlan{}, err
	}
	if in.Into == in.From {
		return MergePlan{}, domain.Invalidf("from", "%q is also into: name two different nodes, the one to keep (into) and the one merged into it (from)", in.From)
	}
	into, ok := g.Node(in.Into)
	if !ok {
		return MergePlan{}, domain.NotFoundf("into", "node %q not found in %s graph", in.Into, g.Key().Level)
	}
	from, ok := g.Node(in.From)
	if !ok {
		return MergePlan{}, domain.NotFoundf("from", "node %q not found in %s graph", in.From, g.Key().Level)
	}
	if err := mergeVersion("into_version", into, in.IntoVersion); err != nil {
		return MergePlan{}, err
	}
	if err := mergeVersion("from_version", from, in.FromVersion); err != nil {
		return MergePlan{}, err
	}
	gist := in.Gist
	if gist == "" {
		gist = into.Gist
	}
	node, err := domain.NodeInput{ID: in.Into, Gist: gist, Notes: unite(into.Notes, from.Notes),
		Touches: unite(into.Touches, from.Touches)}.Validate()
	if err != nil {
		return MergePlan{}, err
	}
	node, redacted, err := secretscreen.Node(node, mode)
	if err != nil {
		return MergePlan{}, err
	}
	p := MergePlan{Into: in.Into, From: in.From, IntoVersion: into.Version.V, FromVersion: from.Version.V,
		Gist: node.Gist, Notes: node.Notes, Touches: node.Touches, Redacted: redacted}
	for i, e := range g.EdgesOf(in.From) {
		me, err := planEdge(g, e, in.Into, in.From, mode, domain.ItemField("edges", i), &p.Redacted)
		if err != nil {
			return MergePlan{}, err
		}
		p.Edges = append(p.Edges, me)
	}
	return p, nil
}

// planEdge says what becomes of e, an edge of from, when from is merged
// into into; field names it in errors and redactions.
func planEdge(g *domain.Graph, e *domain.Edge, into, from string, mode secretscreen.Mode, field string, redacted *[]secrets.Finding) (MergeEdge, error) {
	was := e.Key()
	if (was.From == into && was.To == from) || (was.From == from && was.To == into) {
		return MergeEdge{Was: was, Action: MergeDropped, Notes: e.Notes}, nil
	}
	now := was
	if now.From == from {
		now.From = into
	}
	if now.To == from {
		now.To = into
	}
	me := MergeEdge{Was: was, Now: now, Action: MergeRewired, Notes: e.Notes}
	if cur, ok := g.Edge(now); ok {
		me.Action, me.Notes = MergeUnited, unite(cur.Notes, e.Notes)
	}
	ein, err := domain.EdgeInput{From: now.From, To: now.To, Rel: now.Rel, Notes: me.Notes}.Validate()
	if err != nil {
		return MergeEdge{}, domain.Within(field, err)
	}
	ein, fs, err := secretscreen.Edge(ein, mode)
	if err != nil {
		return MergeEdge{}, domain.Within(field, err)
	}
	for _, f := range fs {
		f.Field = field + "." + f.Field
		*redacted = append(*redacted, f)
	}
	if ein.From != now.From || ein.To != now.To {
		// A redacted end would make another edge than the one planned;
		// the other end is stored text, so this is a secret kept from an
		// earlier mode. Refuse rather than write an edge nobody named.
		return MergeEdge{}, domain.Invalidf(field, "the edge %s holds a secret in an end; delete it or write it again without the secret, then merge", was)
	}
	me.Notes = ein.Notes
	if me.Notes == nil {
		me.Notes = []string{}
	}
	return me, nil
}

// mergeVersion checks that n is at the expected version, when one is given.
func mergeVersion(field string, n *domain.Node, want *uint64) error {
	if want == nil || *want == n.Version.V {
		return nil
	}
	return domain.Conflictf(field, "node %q is at version %d, not %d: it changed since; look at the merge again", n.ID, n.Version.V, *want)
}

// unite is a's items then b's, each once, in that order.
func unite(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	seen := make(map[string]bool, len(a)+len(b))
	for _, s := range slices.Concat(a, b) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// MergeNodes merges node From into node Into as one change: Into takes the
// plan's gist, notes and touches (a new version, active), each edge of From
// is written as the plan says, and From is deleted with its edges, leaving
// tombstones as a delete does. A merge the plan refuses changes nothing.
func MergeNodes(g *domain.Graph, in MergeInput, mode secretscreen.Mode, at domain.Stamp) (MergeResult, error) {
	p, err := PlanMerge(g, in, mode)
	if err != nil {
		return MergeResult{}, err
	}
	res := MergeResult{MergePlan: p}
	// The plan validated every input below, so none of these writes can be
	// refused; if one were, the graph would be half merged, and a panic
	// makes the committer reload it from what is durable
	// (docs/design/storage.md#group-commit).
	must := func(err error) {
		if err != nil {
			panic(fmt.Sprintf("merge of %q into %q: a write the plan checked was refused: %v", p.From, p.Into, err))
		}
	}
	res.Node, err = g.PutNode(domain.NodeInput{ID: p.Into, Gist: p.Gist, Notes: p.Notes, Touches: p.Touches}, at)
	must(err)
	for _, me := range p.Edges {
		if me.Action == MergeDropped {
			continue
		}
		if cur, ok := g.Edge(me.Now); ok && slices.Equal(cur.Notes, me.Notes) {
			continue // united with nothing new: the edge stays as it is
		}
		e, err := g.PutEdge(domain.EdgeInput{From: me.Now.From, To: me.Now.To, Rel: me.Now.Rel, Notes: me.Notes}, at)
		must(err)
		res.Written = append(res.Written, e)
	}
	res.EdgesDeleted, err = g.DeleteNode(p.From, at)
	must(err)
	return res, nil
}
