package mcp

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// jsonSamples are strings that exercise every branch of encoding/json's
// string escaping: HTML characters, control bytes, invalid UTF-8, the two
// JavaScript line separators, multi-byte runes.
var jsonSamples = []string{
	"", "plain words", `quote " and backslash \`, "<script>&amp;</script>", "tab\tnew\nline\rcr\bback\fform",
	"\x00\x01\x1f\x7f", "bad \xff\xfe utf-8 \xc3", "line\u2028para\u2029sep", "ünïcödé — 東京 🙂", "/src/auth/refresh.py",
	"\xe2\x80", "end\\",
}

func TestAppendJSONStringIsEncodingJSONs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(s string) {
		t.Helper()
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("appendJSONString(%q) = %s, json.Marshal: %s", s, got, want)
		}
	}
	for _, s := range jsonSamples {
		check(s)
	}
	// Random bytes, mostly ASCII with every special byte likely.
	for range 5000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = byte(r.IntN(256))
			} else {
				b[i] = byte(r.IntN(128))
			}
		}
		check(string(b))
	}
}

func TestAppendJSONFloatIsEncodingJSONs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	fs := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1.0 / 60, 12.3456, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 1.5e300, -2.5e-9, 5e-324}
	for range 5000 {
		fs = append(fs, math.Round(r.Float64()*1e5)/1e4, r.NormFloat64()*math.Pow(10, float64(r.IntN(60)-30)))
	}
	for _, f := range fs {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONFloat(nil, f); string(got) != string(want) {
			t.Fatalf("appendJSONFloat(%v) = %s, json.Marshal: %s", f, got, want)
		}
	}
}

// TestSearchOutputJSONIsEncodingJSONs holds searchOutput.MarshalJSON to
// the bytes encoding/json writes for the same value by reflection, on
// values whose every field is filled (a field added to the output types
// and not to MarshalJSON fails here) and on values with fields left empty.
func TestSearchOutputJSONIsEncodingJSONs(t *testing.T) {
	// plain is searchOutput without its MarshalJSON: what reflection writes.
	type plain searchOutput
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 2000 {
		var o searchOutput
		fill(r, reflect.ValueOf(&o).Elem(), i%4 == 0)
		if i == 0 && !everyFieldSet(reflect.ValueOf(o)) {
			t.Fatal("fill left a field of searchOutput empty: the test would not see it")
		}
		want, err := json.Marshal(plain(o))
		if err != nil {
			t.Fatal(err)
		}
		got, err := o.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("MarshalJSON:\n%s\nencoding/json:\n%s", got, want)
		}
	}
}

// fill sets v to a random value: strings from jsonSamples, lists of 0–3
// items (nil sometimes, unless full), floats of a search's scale. With
// full, every string and list is set.
func fill(r *rand.Rand, v reflect.Value, full bool) {
	switch v.Kind() {
	case reflect.String:
		if full || r.IntN(3) > 0 {
			v.SetString(jsonSamples[1+r.IntN(len(jsonSamples)-1)])
		}
	case reflect.Float64:
		v.SetFloat(0.0001 + math.Round(r.ExpFloat64()*1e4)/1e4)
	case reflect.Bool:
		v.SetBool(full || r.IntN(2) == 0)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(r.IntN(1000)))
	case reflect.Slice:
		n := r.IntN(4)
		if full {
			n = 1 + r.IntN(3)
		} else if r.IntN(4) == 0 {
			return // nil
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(r, s.Index(i), full)
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(r, v.Field(i), full)
		}
	case reflect.Pointer:
		if full || r.IntN(2) == 0 {
			p := reflect.New(v.Type().Elem())
			fill(r, p.Elem(), full)
			v.Set(p)
		}
	default:
		panic("fill: no rule for " + v.Kind().String() + " (" + v.Type().String() + "): add one")
	}
}

// everyFieldSet reports whether every field of v, and of the structs in
// its lists, is not its zero value.
func everyFieldSet(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if !everyFieldSet(v.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if v.Len() == 0 {
			return false
		}
		for i := range v.Len() {
			if !everyFieldSet(v.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer:
		return !v.IsNil() && everyFieldSet(v.Elem())
	}
	return !v.IsZero()
}
