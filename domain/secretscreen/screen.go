package secretscreen

import (
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/secrets"
)

// Screening a write for secrets (docs/design/trust.md#secrets): each text
// field of a node or an edge is scanned; block mode refuses the write with
// an error that names every finding's field, kind and position and never
// the secret; redact mode replaces each secret by [REDACTED:<kind>] and
// returns what it replaced. An id or a rel names the item and cannot be
// redacted: a secret there refuses the write in redact mode too.

// Mode is what a write that holds a secret does (KG_SECRETS). It is
// the write path's policy, not the scanner's: package secrets only finds
// and redacts (docs/decisions/0081-secrets-a-leaf-package.md).
type Mode string

// The secrets modes.
const (
	Block  Mode = "block"  // refuse the write, naming the field, the kind and the position
	Redact Mode = "redact" // store it with each secret replaced by [REDACTED:<kind>]
	Allow  Mode = "allow"  // no check
)

// ParseMode checks a secrets mode named by a setting.
func ParseMode(field, s string) (Mode, error) {
	switch Mode(s) {
	case Block, Redact, Allow:
		return Mode(s), nil
	}
	return "", domain.Invalidf(field, "%q is not one of block, redact, allow", s)
}

// secretAdvice ends a refusal: what to store instead.
const secretAdvice = "store a reference to where it lives instead (an environment variable's name, a vault path)"

// secretsError is the refusal of a write holding the findings fs: the
// first finding's field, every finding's kind and position, the advice.
func secretsError(fs []secrets.Finding, extra string) error {
	var b strings.Builder
	for i, f := range fs {
		if i > 0 {
			b.WriteString("; ")
			b.WriteString(f.Field)
			b.WriteString(": ")
		}
		b.WriteString(strings.TrimPrefix(f.Message(), f.Field+": "))
	}
	b.WriteString("; ")
	if extra != "" {
		b.WriteString(extra)
	} else {
		b.WriteString(secretAdvice)
	}
	return &domain.Error{Kind: domain.KindInvalid, Field: fs[0].Field, Msg: b.String()}
}

// screen scans one field: it appends the findings of s under field and
// returns s redacted (in redact mode) or as it was.
func screen(field, s string, mode Mode, out *[]secrets.Finding) string {
	found := secrets.Scan(s)
	if len(found) == 0 {
		return s
	}
	for _, f := range found {
		*out = append(*out, secrets.Finding{Field: field, Secret: f})
	}
	if mode == Redact {
		return secrets.Redact(s, found)
	}
	return s
}

// screenList scans the items of a list field; the list is copied only when
// an item is redacted.
func screenList(field string, list []string, mode Mode, out *[]secrets.Finding) []string {
	res := list
	for i, s := range list {
		r := screen(domain.ItemField(field, i), s, mode, out)
		if r != s {
			if &res[0] == &list[0] {
				res = slices.Clone(list)
			}
			res[i] = r
		}
	}
	return res
}

// Node scans a node's input for secrets under mode. In block mode a
// finding refuses it; in redact mode it returns the input with every secret
// replaced, and the findings. A secret in the id refuses it in both modes.
func Node(in domain.NodeInput, mode Mode) (domain.NodeInput, []secrets.Finding, error) {
	return screenItem(in, mode, screenNode)
}

// screenItem runs scan on in under mode: nothing in allow mode, a finding
// refuses it in block mode.
func screenItem[T any](in T, mode Mode, scan func(T, Mode) (T, []secrets.Finding, error)) (T, []secrets.Finding, error) {
	if mode == Allow {
		return in, nil, nil
	}
	in, fs, err := scan(in, mode)
	if err == nil && len(fs) > 0 && mode == Block {
		return in, nil, secretsError(fs, "")
	}
	return in, fs, err
}

// screenNode scans a node's fields, redacting in redact mode; only a secret
// in the id is an error.
func screenNode(in domain.NodeInput, mode Mode) (domain.NodeInput, []secrets.Finding, error) {
	var ids, fs []secrets.Finding
	screen("id", in.ID, Block, &ids)
	if len(ids) > 0 {
		return in, nil, secretsError(ids, "an id names the node and cannot be redacted: choose another id")
	}
	in.Gist = screen("gist", in.Gist, mode, &fs)
	in.Notes = screenList("notes", in.Notes, mode, &fs)
	in.Touches = screenList("touches", in.Touches, mode, &fs)
	return in, fs, nil
}

// Edge is Node for an edge: from, to, rel and notes. An end that
// is redacted becomes a reference; a secret in the rel refuses the edge in
// both modes.
func Edge(in domain.EdgeInput, mode Mode) (domain.EdgeInput, []secrets.Finding, error) {
	return screenItem(in, mode, screenEdge)
}

// screenEdge scans an edge's fields, redacting in redact mode; only a
// secret in the rel is an error.
func screenEdge(in domain.EdgeInput, mode Mode) (domain.EdgeInput, []secrets.Finding, error) {
	var rels, fs []secrets.Finding
	screen("rel", in.Rel, Block, &rels)
	if len(rels) > 0 {
		return in, nil, secretsError(rels, "a rel names the relationship and cannot be redacted: choose another rel")
	}
	in.From = screen("from", in.From, mode, &fs)
	in.To = screen("to", in.To, mode, &fs)
	in.Notes = screenList("notes", in.Notes, mode, &fs)
	return in, fs, nil
}

// Import scans every node and edge of an import document, naming
// fields as importing.Validate does (`nodes[3].notes[1]`). In block mode any
// finding refuses the whole document; in redact mode the document is
// returned with every secret replaced (its lists copied only where an item
// changed). Progress states are not scanned (docs/design/trust.md#secrets).
func Import(d domain.GraphData, mode Mode) (domain.GraphData, []secrets.Finding, error) {
	if mode == Allow {
		return d, nil, nil
	}
	var fs []secrets.Finding
	nodes, err := screenItems(d.Nodes, "nodes", mode, &fs, screenNode,
		func(n *domain.Node) domain.NodeInput {
			return domain.NodeInput{ID: n.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches}
		},
		func(n *domain.Node, in domain.NodeInput) { n.Gist, n.Notes, n.Touches = in.Gist, in.Notes, in.Touches })
	if err != nil {
		return d, nil, err
	}
	edges, err := screenItems(d.Edges, "edges", mode, &fs, screenEdge,
		func(e *domain.Edge) domain.EdgeInput {
			return domain.EdgeInput{From: e.From, To: e.To, Rel: e.Rel, Notes: e.Notes}
		},
		func(e *domain.Edge, in domain.EdgeInput) { e.From, e.To, e.Notes = in.From, in.To, in.Notes })
	if err != nil {
		return d, nil, err
	}
	if len(fs) > 0 && mode == Block {
		return d, nil, secretsError(fs, "")
	}
	d.Nodes, d.Edges = nodes, edges
	return d, fs, nil
}

// Stored is a secret found in an item a graph holds (kg doctor
// --secrets): the node, or the edge, and the finding.
type Stored struct {
	Node string          // the node's id; empty for an edge
	Edge *domain.EdgeKey // the edge; nil for a node
	secrets.Finding
}

// Scan scans every node and edge of g, in id and (from, rel, to)
// order, and returns what it finds. Nothing is changed.
func Scan(g *domain.Graph) []Stored {
	var out []Stored
	for _, n := range g.Nodes() {
		var fs []secrets.Finding
		screen("id", n.ID, Block, &fs)
		screen("gist", n.Gist, Block, &fs)
		screenList("notes", n.Notes, Block, &fs)
		screenList("touches", n.Touches, Block, &fs)
		for _, f := range fs {
			out = append(out, Stored{Node: n.ID, Finding: f})
		}
	}
	for _, e := range g.Edges() {
		var fs []secrets.Finding
		screen("from", e.From, Block, &fs)
		screen("to", e.To, Block, &fs)
		screen("rel", e.Rel, Block, &fs)
		screenList("notes", e.Notes, Block, &fs)
		for _, f := range fs {
			k := e.Key()
			out = append(out, Stored{Edge: &k, Finding: f})
		}
	}
	return out
}

// screenItems scans each item of list (named name[i]) with scan, adding what
// it finds to fs. In redact mode it returns list with the redacted fields
// put back, copied only if an item changed; otherwise list itself.
func screenItems[T, In any](list []T, name string, mode Mode, fs *[]secrets.Finding,
	scan func(In, Mode) (In, []secrets.Finding, error), input func(*T) In, put func(*T, In)) ([]T, error) {
	out := list
	for i := range list {
		at := domain.ItemField(name, i)
		in, found, err := scan(input(&list[i]), mode)
		if err != nil {
			return nil, domain.Within(at, err)
		}
		if len(found) == 0 {
			continue
		}
		for _, f := range found {
			f.Field = at + "." + f.Field
			*fs = append(*fs, f)
		}
		if mode == Redact {
			if &out[0] == &list[0] {
				out = slices.Clone(list)
			}
			put(&out[i], in)
		}
	}
	return out, nil
}
