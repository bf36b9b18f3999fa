package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

// decodeInto decodes raw as the arguments of the tool and returns its
// argument struct (a pointer to it, as a reflect.Value).
func (t tool[A]) decodeInto(raw []byte) (reflect.Value, error) {
	var a A
	err := decodeArgs(raw, &a)
	return reflect.ValueOf(&a).Elem(), err
}

// FuzzToolArguments decodes any bytes as the arguments of every tool and
// holds the result to an independent reading of the same JSON with
// encoding/json (wantArgument): arguments the tool can take are accepted
// with exactly the values sent; anything else is an invalid-argument error
// that names the first bad argument in the tool's order ("arguments" when
// the whole is not a JSON object) and starts with that name. No input
// panics.
func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `[]`, `"x"`, `{"cwd":"/p/a"}`, `{"session_id":"s","id":"x","ids":["a","b"]}`,
		`{"session_id":"s","level":"user","id":"a","gist":"g","notes":["n"],"touches":[],"expected_version":"3"}`,
		`{"session_id":"s","level":"project","from":"a","to":"src/a.go","rel":"touches","notes":null}`,
		`{"query":"auth token","limit":2.0,"level":"user"}`, `{"query":"q","limit":"1e2"}`,
		`{"session_id":"s","task_id":"t","state":{"step":[1,{"a":null}]}}`, `{"session_id":"s","task_id":"t","state":"{}"}`,
		`{"limit":9007199254740993}`, `{"limit":-0.0}`, `{"level":"User"}`, `{"notes":[1]}`, `{"id":"\ud800"}`, `{"a":1} x`} {
		f.Add([]byte(s))
	}
	type decoder interface {
		decodeInto([]byte) (reflect.Value, error)
	}
	tools := map[string]decoder{}
	for _, tl := range kgTools() {
		tools[tl.declaration().Name] = tl.(decoder)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for name, tl := range tools {
			got, err := tl.decodeInto(raw)
			field, want := wantArguments(got.Type(), raw)
			if field != "" {
				var de *domain.Error
				if err == nil || !errors.As(err, &de) || de.Kind != domain.KindInvalid || de.Field != field ||
					!strings.HasPrefix(err.Error(), field+": ") {
					t.Fatalf("%s %q: error %v, want an invalid-argument error naming %q", name, raw, err, field)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s %q: refused (%v), but every argument is well formed", name, raw, err)
			}
			for i := range got.NumField() {
				if diff := cmp.Diff(want[i], decoded(got.Field(i))); diff != "" {
					t.Fatalf("%s %q: argument %s decoded wrongly (-want +got):\n%s", name, raw, got.Type().Field(i).Tag.Get("arg"), diff)
				}
			}
		}
	})
}

// decoded is the value of an argument field in the terms wantArguments
// uses: a string, a []string (nil when not given), an int64 or nil, a
// decoded JSON object or nil.
func decoded(v reflect.Value) any {
	switch a := v.Addr().Interface().(type) {
	case *str:
		return string(*a)
	case *requiredStr:
		return string(*a)
	case *level:
		return string(*a)
	case *requiredLevel:
		return string(*a)
	case *strList:
		if *a == nil {
			return []string(nil)
		}
		return []string(*a)
	case *requiredList:
		return []string(*a)
	case *integer:
		if !a.given {
			return nil
		}
		return a.value
	case *object:
		if *a == nil {
			return nil
		}
		var m any
		if err := json.Unmarshal(*a, &m); err != nil {
			return "not JSON: " + err.Error()
		}
		return m
	}
	return "unknown argument type " + v.Type().String()
}

// wantArguments reads raw as the arguments of an argument struct of type at,
// with encoding/json and the rules of docs/design/mcp.md#results-and-errors:
// absent and null are not given; unknown names are ignored. It returns the name
// of the first argument (in field order) that is not acceptable, or "arguments"
// when raw is not an object; else "" and the value each field must hold.
func wantArguments(at reflect.Type, raw []byte) (string, []any) {
	var whole any
	byName := map[string]any{}
	if t := bytes.TrimSpace(raw); len(t) > 0 {
		if !json.Valid(t) {
			return "arguments", nil
		}
		d := json.NewDecoder(bytes.NewReader(t))
		d.UseNumber()
		if d.Decode(&whole) != nil {
			return "arguments", nil
		}
		switch w := whole.(type) {
		case nil:
		case map[string]any:
			byName = w
		default:
			return "arguments", nil
		}
	}
	want := make([]any, at.NumField())
	for i := range at.NumField() {
		name := at.Field(i).Tag.Get("arg")
		v := byName[name]
		var ok bool
		switch reflect.New(at.Field(i).Type).Interface().(type) {
		case *str:
			want[i], ok = wantString(v, false)
		case *requiredStr:
			want[i], ok = wantString(v, true)
		case *level:
			want[i], ok = wantLevel(v, false)
		case *requiredLevel:
			want[i], ok = wantLevel(v, true)
		case *strList:
			want[i], ok = wantList(v)
		case *requiredList:
			want[i], ok = wantList(v)
			ok = ok && v != nil
		case *integer:
			want[i], ok = wantInteger(v)
		case *object:
			want[i], ok = wantObject(v)
		}
		if !ok {
			return name, nil
		}
	}
	return "", want
}

func wantString(v any, required bool) (any, bool) {
	s, isString := v.(string)
	if v != nil && !isString {
		return nil, false
	}
	return s, !required || s != ""
}

func wantLevel(v any, required bool) (any, bool) {
	s, ok := wantString(v, required)
	if !ok {
		return nil, false
	}
	switch s {
	case "", "user", "project":
		return s, true
	}
	return nil, false
}

func wantList(v any) (any, bool) {
	if v == nil {
		return []string(nil), true
	}
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// wantInteger accepts a JSON number with no fraction, or a string holding
// one (some clients send every argument as a string), within ±2^53 unless
// it is written as an exact integer that fits an int64.
func wantInteger(v any) (any, bool) {
	var num json.Number
	switch x := v.(type) {
	case nil:
		return nil, true
	case json.Number:
		num = x
	case string:
		x = strings.TrimSpace(x)
		if !json.Valid([]byte(x)) {
			return nil, false
		}
		d := json.NewDecoder(strings.NewReader(x))
		d.UseNumber()
		var inner any
		if d.Decode(&inner) != nil {
			return nil, false
		}
		n, ok := inner.(json.Number)
		if !ok {
			return nil, false
		}
		num = n
	default:
		return nil, false
	}
	if i, err := strconv.ParseInt(num.String(), 10, 64); err == nil {
		return i, true
	}
	fl, err := num.Float64()
	if err != nil || fl != math.Trunc(fl) || math.Abs(fl) > 1<<53 {
		return nil, false
	}
	return int64(fl), true
}

func wantObject(v any) (any, bool) {
	if v == nil {
		return nil, true
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	// Compared as encoding/json decodes it without UseNumber.
	b, _ := json.Marshal(m)
	var out any
	_ = json.Unmarshal(b, &out)
	return out, true
}
