package mcp

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// args are the arguments of one tool call, by name, still as JSON. The
// accessors check only shape (a string is a string, a list a list of
// strings); the rules of model.md are the app's and the domain's. Unknown
// names are never looked at, so extra arguments are ignored (mcp.md).
//
// An argument that is absent or JSON null counts as not given. That is what
// keeps the difference mcp.md needs between omitted notes (keep what is
// stored: nil) and an explicit empty list (clear it: a non-nil empty slice).
type args map[string]json.RawMessage

// parseArgs reads the arguments object of a call; none at all is an empty
// object.
func parseArgs(raw json.RawMessage) (args, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return args{}, nil
	}
	var a args
	if raw[0] != '{' || json.Unmarshal(raw, &a) != nil {
		return nil, domain.Invalidf("arguments", "must be a JSON object of named arguments")
	}
	return a, nil
}

// given returns the raw value of name, or false when it is absent or null.
func (a args) given(name string) (json.RawMessage, bool) {
	v, ok := a[name]
	if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil, false
	}
	return v, true
}

// str returns the string argument name; absent, null and "" are all "".
func (a args) str(name string) (string, error) {
	v, ok := a.given(name)
	if !ok {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", domain.Invalidf(name, "must be a string")
	}
	return s, nil
}

// required returns the string argument name, which must be given and not
// empty.
func (a args) required(name string) (string, error) {
	s, err := a.str(name)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", domain.Invalidf(name, "is required")
	}
	return s, nil
}

// list returns the list-of-strings argument name: nil when not given, a
// non-nil slice (maybe empty) when given.
func (a args) list(name string) ([]string, error) {
	v, ok := a.given(name)
	if !ok {
		return nil, nil
	}
	var l []string
	if err := json.Unmarshal(v, &l); err != nil {
		return nil, domain.Invalidf(name, "must be a list of strings")
	}
	if l == nil {
		l = []string{}
	}
	return l, nil
}

// integer returns the integer argument name and whether it was given. A
// number with no fraction, or a string holding one, is accepted: some
// clients send every argument as a string.
func (a args) integer(name string) (int64, bool, error) {
	v, ok := a.given(name)
	if !ok {
		return 0, false, nil
	}
	bad := domain.Invalidf(name, "must be a whole number")
	var s string
	if json.Unmarshal(v, &s) == nil {
		v = json.RawMessage(strings.TrimSpace(s))
	}
	var n json.Number
	if err := json.Unmarshal(v, &n); err != nil {
		return 0, false, bad
	}
	if i, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
		return i, true, nil
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false, bad
	}
	return int64(f), true, nil
}

// object returns the JSON-object argument name as its raw JSON, and whether
// it was given.
func (a args) object(name string) (domain.RawJSON, bool, error) {
	v, ok := a.given(name)
	if !ok {
		return nil, false, nil
	}
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] != '{' {
		return nil, false, domain.Invalidf(name, "must be a JSON object")
	}
	return domain.RawJSON(bytes.Clone(v)), true, nil
}

// level returns the level argument name; "" when not given.
func (a args) level(name string) (domain.Level, error) {
	s, err := a.str(name)
	if err != nil || s == "" {
		return "", err
	}
	return domain.ParseLevel(name, s)
}
