package mcp

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/kg-memory/kg/domain"
)

// The argument types of the tools. Each decodes one named argument from its raw
// JSON and checks only its shape (a string is a string, a list a list of
// strings); the rules of the model are the app's and the domain's. An argument
// that is absent or JSON null counts as not given: that keeps the difference
// docs/design/mcp.md#kg_put_node needs between omitted notes (keep what is
// stored: nil) and an explicit empty list (clear it: a non-nil empty slice).

// argument is implemented by a pointer to every argument type.
type argument interface {
	// decode sets the argument from raw, its JSON value (nil when absent or
	// null), and checks its shape. name is the argument's name, for the
	// error message.
	decode(name string, raw json.RawMessage) error
}

// arguments holds the decoded arguments of one call of a tool whose argument
// struct is A, or the first problem with them. Its UnmarshalJSON never
// fails, so that mcp-go's typed handler hands every call to the tool, which
// answers a problem as a tool error naming the argument rather than as
// mcp-go's generic "failed to bind arguments".
type arguments[A any] struct {
	args A
	err  error
}

// UnmarshalJSON decodes the arguments object of a call.
func (a *arguments[A]) UnmarshalJSON(raw []byte) error {
	a.err = decodeArgs(raw, &a.args)
	return nil
}

var jsonNull = []byte("null")

// decodeArgs decodes the arguments object raw into dst, a pointer to an
// argument struct. Fields are decoded in their order, so that a call with
// several bad arguments is told of the first, in argument order. Names are
// matched exactly, and names no field has are ignored
// (docs/design/mcp.md#results-and-errors: unknown extra arguments are ignored).
// No arguments at all is an empty object.
func decodeArgs(raw []byte, dst any) error {
	raw = bytes.TrimSpace(raw)
	var byName map[string]json.RawMessage
	if len(raw) > 0 && !bytes.Equal(raw, jsonNull) {
		if raw[0] != '{' || json.Unmarshal(raw, &byName) != nil {
			return domain.Invalidf("arguments", "must be a JSON object of named arguments")
		}
	}
	v := reflect.ValueOf(dst).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Tag.Get("arg")
		val := bytes.TrimSpace(byName[name])
		if bytes.Equal(val, jsonNull) {
			val = nil
		}
		// Every field is an argument type: TestArgumentStructs checks it.
		if err := v.Field(i).Addr().Interface().(argument).decode(name, val); err != nil {
			return err
		}
	}
	return nil
}

// str is an optional string argument; absent, null and "" are all "".
type str string

func (s *str) decode(name string, raw json.RawMessage) error {
	*s = ""
	if raw == nil {
		return nil
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return domain.Invalidf(name, "must be a string")
	}
	*s = str(v)
	return nil
}

// requiredStr is a string argument that must be given and not empty.
type requiredStr string

func (s *requiredStr) decode(name string, raw json.RawMessage) error {
	var v str
	if err := v.decode(name, raw); err != nil {
		return err
	}
	if v == "" {
		return domain.Invalidf(name, "is required")
	}
	*s = requiredStr(v)
	return nil
}

// strList is a list-of-strings argument: nil when not given, a non-nil
// slice (maybe empty) when given.
type strList []string

func (l *strList) decode(name string, raw json.RawMessage) error {
	*l = nil
	if raw == nil {
		return nil
	}
	var v []string
	if json.Unmarshal(raw, &v) != nil {
		return domain.Invalidf(name, "must be a list of strings")
	}
	if v == nil {
		v = []string{}
	}
	*l = v
	return nil
}

// requiredList is a list-of-strings argument that must be given; the use
// case checks how many it holds, naming its limits.
type requiredList []string

func (l *requiredList) decode(name string, raw json.RawMessage) error {
	if raw == nil {
		return domain.Invalidf(name, "is required: a list of strings")
	}
	var v strList
	if err := v.decode(name, raw); err != nil {
		return err
	}
	*l = requiredList(v)
	return nil
}

// integer is an optional whole-number argument. A number with no fraction,
// or a string holding one, is accepted: some clients send every argument as
// a string.
type integer struct {
	value int64
	given bool
}

func (n *integer) decode(name string, raw json.RawMessage) error {
	*n = integer{}
	if raw == nil {
		return nil
	}
	bad := domain.Invalidf(name, "must be a whole number")
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(strings.TrimSpace(s))
		if len(raw) > 0 && raw[0] == '"' {
			return bad // a string in a string: json.Number would take it too
		}
	}
	var num json.Number
	if json.Unmarshal(raw, &num) != nil {
		return bad
	}
	if i, err := strconv.ParseInt(num.String(), 10, 64); err == nil {
		*n = integer{value: i, given: true}
		return nil
	}
	f, err := num.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return bad
	}
	*n = integer{value: int64(f), given: true}
	return nil
}

// object is an optional JSON-object argument, kept as its raw JSON; nil
// when not given.
type object domain.RawJSON

func (o *object) decode(name string, raw json.RawMessage) error {
	*o = nil
	if raw == nil {
		return nil
	}
	if raw[0] != '{' {
		return domain.Invalidf(name, "must be a JSON object")
	}
	*o = object(bytes.Clone(raw))
	return nil
}

// level is an optional level argument; "" when not given.
type level domain.Level

func (l *level) decode(name string, raw json.RawMessage) error {
	*l = ""
	var s str
	if err := s.decode(name, raw); err != nil || s == "" {
		return err
	}
	v, err := domain.ParseLevel(name, string(s))
	*l = level(v)
	return err
}

// requiredLevel is a level argument that must be given.
type requiredLevel domain.Level

func (l *requiredLevel) decode(name string, raw json.RawMessage) error {
	var v level
	if err := v.decode(name, raw); err != nil {
		return err
	}
	if v == "" {
		return domain.Invalidf(name, "is required: user or project")
	}
	*l = requiredLevel(v)
	return nil
}
