package recall

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// The useful marks of kg_useful (docs/design/hooks.md#kg_useful): the times a
// session said a node changed its outcome, kept on the node as its stored
// field "_useful", a JSON list of times in seconds with six decimals, oldest
// first, the newest MaxUsefulMarks of them. The storage adapters keep the
// field as they keep any field they do not interpret (Node.Extra); only this
// file reads and writes it, so every backend carries it unchanged.

// UsefulField is the stored field of a node that holds its useful marks.
const UsefulField = "_useful"

// MaxUsefulMarks is how many marks a node keeps: the newest.
const MaxUsefulMarks = 16

// UsefulMarks returns the times node n was marked useful, oldest first. A
// stored value that is not a list of times reads as no marks (the next mark
// writes it anew).
func UsefulMarks(n *domain.Node) []domain.Micros {
	raw, ok := n.Extra[UsefulField]
	if !ok {
		return nil
	}
	var nums []json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&nums) != nil {
		return nil
	}
	out := make([]domain.Micros, 0, len(nums))
	for _, num := range nums {
		t, ok := parseSeconds(num.String())
		if !ok {
			return nil
		}
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// MarkUseful records a useful mark of node id at t: its marks gain t and
// keep the newest MaxUsefulMarks. Like a read stamp, the mark changes no
// version and takes no seq, so it is no change kg_sync reports; unlike one, it
// is saved by the write that makes it. A missing node is a not-found error
// naming "ids".
func MarkUseful(g *domain.Graph, id string, t domain.Micros) error {
	n, ok := g.Node(id)
	if !ok {
		return domain.NotFoundf("ids", "node %q not found in %s graph", id, g.Key().Level)
	}
	marks := append(UsefulMarks(n), t)
	slices.Sort(marks)
	if len(marks) > MaxUsefulMarks {
		marks = marks[len(marks)-MaxUsefulMarks:]
	}
	return g.SetNodeExtra(id, UsefulField, formatMarks(marks))
}

// formatMarks writes marks as the stored list.
func formatMarks(marks []domain.Micros) domain.RawJSON {
	b := []byte{'['}
	for i, t := range marks {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSeconds(b, t)
	}
	return append(b, ']')
}

// appendSeconds writes t, in microseconds, as seconds with six decimals.
func appendSeconds(b []byte, t domain.Micros) []byte {
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	b = strconv.AppendInt(b, int64(t/domain.Second), 10)
	b = append(b, '.')
	frac := strconv.AppendInt(nil, int64(t%domain.Second), 10)
	for range 6 - len(frac) {
		b = append(b, '0')
	}
	return append(b, frac...)
}

// parseSeconds reads a decimal number of seconds exactly to the
// microsecond (digits past the sixth are dropped).
func parseSeconds(s string) (domain.Micros, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if strings.ContainsAny(s, "eE") || whole == "" {
		return 0, false
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w > int64(^uint64(0)>>1)/int64(domain.Second)-1 {
		return 0, false
	}
	if len(frac) > 6 {
		frac = frac[:6]
	}
	var f int64
	if frac != "" {
		if f, err = strconv.ParseInt(frac, 10, 64); err != nil || f < 0 {
			return 0, false
		}
		for range 6 - len(frac) {
			f *= 10
		}
	}
	t := domain.Micros(w)*domain.Second + domain.Micros(f)
	if neg {
		t = -t
	}
	return t, true
}
