package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// keyOrder is the order in which a JSON document's objects list their keys.
// kg install edits files that belong to someone else (Claude Code's
// settings): it decodes them into maps, which forget the order, and writes
// them back in the order it read, so that only what kg changed moves.
type keyOrder struct {
	keys  []string             // an object's keys, in the file's order
	field map[string]*keyOrder // the order inside each key's value
	elem  []*keyOrder          // the order inside each element of an array
}

// readKeyOrder returns the key order of the JSON document b, or nil when b
// is not valid JSON (the caller has already refused such a file).
func readKeyOrder(b []byte) *keyOrder {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	o, err := parseKeyOrder(dec)
	if err != nil {
		return nil
	}
	return o
}

func parseKeyOrder(dec *json.Decoder) (*keyOrder, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil, nil // a scalar has no order
	}
	o := &keyOrder{}
	switch d {
	case '{':
		o.field = map[string]*keyOrder{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			sub, err := parseKeyOrder(dec)
			if err != nil {
				return nil, err
			}
			if _, seen := o.field[k]; !seen {
				o.keys = append(o.keys, k)
			}
			o.field[k] = sub
		}
	case '[':
		for dec.More() {
			sub, err := parseKeyOrder(dec)
			if err != nil {
				return nil, err
			}
			o.elem = append(o.elem, sub)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return nil, err
	}
	return o, nil
}

// marshalInOrder encodes v indented by two spaces, like json.MarshalIndent,
// but lists each object's keys in the order o gives, then the keys o does
// not know in sorted order, and leaves <, > and & as they are.
func marshalInOrder(v any, o *keyOrder) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeInOrder(&buf, v, o, ""); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func encodeInOrder(buf *bytes.Buffer, v any, o *keyOrder, indent string) error {
	inner := indent + "  "
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			buf.WriteString("{}")
			return nil
		}
		buf.WriteString("{\n")
		for i, k := range orderedKeys(x, o) {
			if i > 0 {
				buf.WriteString(",\n")
			}
			buf.WriteString(inner)
			if err := encodeScalar(buf, k); err != nil {
				return err
			}
			buf.WriteString(": ")
			var sub *keyOrder
			if o != nil {
				sub = o.field[k]
			}
			if err := encodeInOrder(buf, x[k], sub, inner); err != nil {
				return err
			}
		}
		buf.WriteString("\n" + indent + "}")
	case []any:
		if len(x) == 0 {
			buf.WriteString("[]")
			return nil
		}
		buf.WriteString("[\n")
		for i, e := range x {
			if i > 0 {
				buf.WriteString(",\n")
			}
			buf.WriteString(inner)
			var sub *keyOrder
			if o != nil && i < len(o.elem) {
				sub = o.elem[i]
			}
			if err := encodeInOrder(buf, e, sub, inner); err != nil {
				return err
			}
		}
		buf.WriteString("\n" + indent + "]")
	default:
		return encodeScalar(buf, v)
	}
	return nil
}

// orderedKeys lists m's keys: first those o names, in its order, then the
// rest sorted.
func orderedKeys(m map[string]any, o *keyOrder) []string {
	keys := make([]string, 0, len(m))
	known := map[string]bool{}
	if o != nil {
		for _, k := range o.keys {
			if _, ok := m[k]; ok {
				keys = append(keys, k)
				known[k] = true
			}
		}
	}
	var rest []string
	for k := range m {
		if !known[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

func encodeScalar(buf *bytes.Buffer, v any) error {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode %T: %w", v, err)
	}
	buf.WriteString(strings.TrimSuffix(b.String(), "\n"))
	return nil
}
