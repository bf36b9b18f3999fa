package domain

import (
	"slices"
	"strings"

	"github.com/kg-memory/kg/domain/secrets"
)

// Screening a write for secrets (docs/design/trust.md#secrets): each text
// field of a node or an edge is scanned; block mode refuses the write with
// an error that names every finding's field, kind and position and never
// the secret; redact mode replaces each secret by [REDACTED:<kind>] and
// returns what it replaced. An id or a rel names the item and cannot be
// redacted: a secret there refuses the write in redact mode too.

// SecretsMode is what a write that holds a secret does (KG_SECRETS). It is
// the write path's policy, not the scanner's: package secrets only finds
// and redacts (docs/decisions/0081-secrets-a-leaf-package.md).
type SecretsMode string

// The secrets modes.
const (
	SecretsBlock  SecretsMode = "block"  // refuse the write, naming the field, the kind and the position
	SecretsRedact SecretsMode = "redact" // store it with each secret replaced by [REDACTED:<kind>]
	SecretsAllow  SecretsMode = "allow"  // no check
)

// ParseSecretsMode checks a secrets mode named by a setting.
func ParseSecretsMode(field, s string) (SecretsMode, error) {
	switch SecretsMode(s) {
	case SecretsBlock, SecretsRedact, SecretsAllow:
		return SecretsMode(s), nil
	}
	return "", Invalidf(field, "%q is not one of block, redact, allow", s)
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
	return &Error{Kind: KindInvalid, Field: fs[0].Field, Msg: b.String()}
}

// screen scans one field: it appends the findings of s under field and
// returns s redacted (in redact mode) or as it was.
func screen(field, s string, mode SecretsMode, out *[]secrets.Finding) string {
	found := secrets.Scan(s)
	if len(found) == 0 {
		return s
	}
	for _, f := range found {
		*out = append(*out, secrets.Finding{Field: field, Secret: f})
	}
	if mode == SecretsRedact {
		return secrets.Redact(s, found)
	}
	return s
}

// screenList scans the items of a list field; the list is copied only when
// an item is redacted.
func screenList(field string, list []string, mode SecretsMode, out *[]secrets.Finding) []string {
	res := list
	for i, s := range list {
		r := screen(ItemField(field, i), s, mode, out)
		if r != s {
			if &res[0] == &list[0] {
				res = slices.Clone(list)
			}
			res[i] = r
		}
	}
	return res
}

// ScreenNode scans a node's input for secrets under mode. In block mode a
// finding refuses it; in redact mode it returns the input with every secret
// replaced, and the findings. A secret in the id refuses it in both modes.
func ScreenNode(in NodeInput, mode SecretsMode) (NodeInput, []secrets.Finding, error) {
	return screenItem(in, mode, screenNode)
}

// screenItem runs scan on in under mode: nothing in allow mode, a finding
// refuses it in block mode.
func screenItem[T any](in T, mode SecretsMode, scan func(T, SecretsMode) (T, []secrets.Finding, error)) (T, []secrets.Finding, error) {
	if mode == SecretsAllow {
		return in, nil, nil
	}
	in, fs, err := scan(in, mode)
	if err == nil && len(fs) > 0 && mode == SecretsBlock {
		return in, nil, secretsError(fs, "")
	}
	return in, fs, err
}

// screenNode scans a node's fields, redacting in redact mode; only a secret
// in the id is an error.
func screenNode(in NodeInput, mode SecretsMode) (NodeInput, []secrets.Finding, error) {
	var ids, fs []secrets.Finding
	screen("id", in.ID, SecretsBlock, &ids)
	if len(ids) > 0 {
		return in, nil, secretsError(ids, "an id names the node and cannot be redacted: choose another id")
	}
	in.Gist = screen("gist", in.Gist, mode, &fs)
	in.Notes = screenList("notes", in.Notes, mode, &fs)
	in.Touches = screenList("touches", in.Touches, mode, &fs)
	return in, fs, nil
}

// ScreenEdge is ScreenNode for an edge: from, to, rel and notes. An end that
// is redacted becomes a reference; a secret in the rel refuses the edge in
// both modes.
func ScreenEdge(in EdgeInput, mode SecretsMode) (EdgeInput, []secrets.Finding, error) {
	return screenItem(in, mode, screenEdge)
}

// screenEdge scans an edge's fields, redacting in redact mode; only a
// secret in the rel is an error.
func screenEdge(in EdgeInput, mode SecretsMode) (EdgeInput, []secrets.Finding, error) {
	var rels, fs []secrets.Finding
	screen("rel", in.Rel, SecretsBlock, &rels)
	if len(rels) > 0 {
		return in, nil, secretsError(rels, "a rel names the relationship and cannot be redacted: choose another rel")
	}
	in.From = screen("from", in.From, mode, &fs)
	in.To = screen("to", in.To, mode, &fs)
	in.Notes = screenList("notes", in.Notes, mode, &fs)
	return in, fs, nil
}

// ScreenImport scans every node and edge of an import document, naming
// fields as ValidateImport does (`nodes[3].notes[1]`). In block mode any
// finding refuses the whole document; in redact mode the document is
// returned with every secret replaced (its lists copied only where an item
// changed). Progress states are not scanned (docs/design/trust.md#secrets).
func ScreenImport(d GraphData, mode SecretsMode) (GraphData, []secrets.Finding, error) {
	if mode == SecretsAllow {
		return d, nil, nil
	}
	var fs []secrets.Finding
	nodes, err := screenItems(d.Nodes, "nodes", mode, &fs, screenNode,
		func(n *Node) NodeInput { return NodeInput{ID: n.ID, Gist: n.Gist, Notes: n.Notes, Touches: n.Touches} },
		func(n *Node, in NodeInput) { n.Gist, n.Notes, n.Touches = in.Gist, in.Notes, in.Touches })
	if err != nil {
		return d, nil, err
	}
	edges, err := screenItems(d.Edges, "edges", mode, &fs, screenEdge,
		func(e *Edge) EdgeInput { return EdgeInput{From: e.From, To: e.To, Rel: e.Rel, Notes: e.Notes} },
		func(e *Edge, in EdgeInput) { e.From, e.To, e.Notes = in.From, in.To, in.Notes })
	if err != nil {
		return d, nil, err
	}
	if len(fs) > 0 && mode == SecretsBlock {
		return d, nil, secretsError(fs, "")
	}
	d.Nodes, d.Edges = nodes, edges
	return d, fs, nil
}

// StoredSecret is a secret found in an item a graph holds (kg doctor
// --secrets): the node, or the edge, and the finding.
type StoredSecret struct {
	Node string   // the node's id; empty for an edge
	Edge *EdgeKey // the edge; nil for a node
	secrets.Finding
}

// Secrets scans every node and edge of the graph, in id and (from, rel, to)
// order, and returns what it finds. Nothing is changed.
func (g *Graph) Secrets() []StoredSecret {
	var out []StoredSecret
	for _, n := range g.Nodes() {
		var fs []secrets.Finding
		screen("id", n.ID, SecretsBlock, &fs)
		screen("gist", n.Gist, SecretsBlock, &fs)
		screenList("notes", n.Notes, SecretsBlock, &fs)
		screenList("touches", n.Touches, SecretsBlock, &fs)
		for _, f := range fs {
			out = append(out, StoredSecret{Node: n.ID, Finding: f})
		}
	}
	for _, e := range g.Edges() {
		var fs []secrets.Finding
		screen("from", e.From, SecretsBlock, &fs)
		screen("to", e.To, SecretsBlock, &fs)
		screen("rel", e.Rel, SecretsBlock, &fs)
		screenList("notes", e.Notes, SecretsBlock, &fs)
		for _, f := range fs {
			k := e.Key()
			out = append(out, StoredSecret{Edge: &k, Finding: f})
		}
	}
	return out
}

// screenItems scans each item of list (named name[i]) with scan, adding what
// it finds to fs. In redact mode it returns list with the redacted fields
// put back, copied only if an item changed; otherwise list itself.
func screenItems[T, In any](list []T, name string, mode SecretsMode, fs *[]secrets.Finding,
	scan func(In, SecretsMode) (In, []secrets.Finding, error), input func(*T) In, put func(*T, In)) ([]T, error) {
	out := list
	for i := range list {
		at := ItemField(name, i)
		in, found, err := scan(input(&list[i]), mode)
		if err != nil {
			return nil, Within(at, err)
		}
		if len(found) == 0 {
			continue
		}
		for _, f := range found {
			f.Field = at + "." + f.Field
			*fs = append(*fs, f)
		}
		if mode == SecretsRedact {
			if &out[0] == &list[0] {
				out = slices.Clone(list)
			}
			put(&out[i], in)
		}
	}
	return out, nil
}
