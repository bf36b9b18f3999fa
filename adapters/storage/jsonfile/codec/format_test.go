package codec

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports/porttest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", name, diff)
	}
}

// canonical re-renders a JSON document with sorted keys and two-space
// indent, numbers kept verbatim, each progress state on one line: what
// every file kg writes must already be.
func canonical(t *testing.T, b []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("written file does not parse: %v", err)
	}
	states := map[string][]byte{}
	if progress, ok := jsonAt(v, "_meta", "progress").(map[string]any); ok {
		for task, state := range progress {
			var line bytes.Buffer
			enc := json.NewEncoder(&line)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(state); err != nil {
				t.Fatal(err)
			}
			mark := fmt.Sprintf("progress state %d", len(states))
			states[mark] = bytes.TrimSuffix(line.Bytes(), []byte("\n"))
			progress[task] = mark
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	b = out.Bytes()
	for mark, line := range states {
		b = bytes.Replace(b, []byte(`"`+mark+`"`), line, 1)
	}
	return b
}

// jsonAt walks a decoded JSON value along object keys.
func jsonAt(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func TestEncodeRichGraph(t *testing.T) {
	d := porttest.RichData("/home/dev/kg")
	b := EncodeGraph(d)
	if diff := cmp.Diff(string(canonical(t, b)), string(b)); diff != "" {
		t.Errorf("not sorted two-space JSON (-canonical +written):\n%s", diff)
	}
	golden(t, "rich.json", b)

	got, notes, err := DecodeGraph(b)
	if err != nil || len(notes) > 0 {
		t.Fatalf("decode: %v %q", err, notes)
	}
	want, _ := domain.Restore(domain.ProjectGraph("/home/dev/kg"), d, domain.RestoreOptions{})
	back, _ := domain.Restore(domain.ProjectGraph("/home/dev/kg"), got, domain.RestoreOptions{})
	if diff := cmp.Diff(want.Data(), back.Data(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("decode(encode(d)) differs (-want +got):\n%s", diff)
	}
}

func TestParseMicros(t *testing.T) {
	tests := []struct {
		name, in string
		want     domain.Micros
	}{
		{"six decimals", "1716400000.120000", 1716400000_120000},
		{"integer", "1716400000", 1716400000_000000},
		{"one decimal", "1716400000.5", 1716400000_500000},
		{"rounds down", "1716400000.1234564", 1716400000_123456},
		{"rounds up", "1716400000.1234565", 1716400000_123457},
		{"rounds up into seconds", "1.9999996", 2_000000},
		{"exponent", "1.7164e9", 1716400000_000000},
		{"negative", "-1.5", -1_500000},
		{"zero", "0.000000", 0},
		{"null", "null", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseMicros(json.RawMessage(tc.in))
			if err != nil || got != tc.want {
				t.Errorf("parseMicros(%s) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
	for _, bad := range []string{`"1"`, `true`, `{}`, `1e400`} {
		if _, err := parseMicros(json.RawMessage(bad)); err == nil {
			t.Errorf("parseMicros(%s) accepted", bad)
		}
	}
}

func TestMicrosWriteSixDecimals(t *testing.T) {
	tests := []struct {
		in   domain.Micros
		want string
	}{
		{1716400000_120000, "1716400000.120000"},
		{0, "0.000000"},
		{7, "0.000007"},
		{-1_500000, "-1.500000"},
	}
	for _, tc := range tests {
		e := &enc{}
		e.micros(tc.in)
		if string(e.b) != tc.want {
			t.Errorf("micros(%d) = %s, want %s", tc.in, e.b, tc.want)
		}
	}
}

func TestEdgeKeys(t *testing.T) {
	k := func(f, to, r string) domain.EdgeKey { return domain.EdgeKey{From: f, To: to, Rel: r} }
	tests := []struct {
		name string
		in   []domain.EdgeKey
		want []string
	}{
		{"plain", []domain.EdgeKey{k("b", "c", "r"), k("a", "b", "r")}, []string{"a->b:r", "b->c:r"}},
		{"collision numbered in (from, to, rel) order",
			[]domain.EdgeKey{k("a->b", "c", "r"), k("a", "b->c", "r")}, []string{"a->b->c:r", "a->b->c:r#2"}},
		{"three-way collision", []domain.EdgeKey{k("a->b->c", "d", "r"), k("a->b", "c->d", "r"), k("a", "b->c->d", "r")},
			[]string{"a->b->c->d:r", "a->b->c->d:r#2", "a->b->c->d:r#3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, ke := range edgeKeys(tc.in) {
				got = append(got, ke.key)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if got := edgeKeys([]domain.EdgeKey{k("a->b", "c", "r"), k("a", "b->c", "r")}); got[0].k.From != "a" {
		t.Errorf("first of a collision is %+v, want the smaller from", got[0].k)
	}
}

func TestDecodeRejectsWrongTypes(t *testing.T) {
	tests := []struct{ name, file, wantIn string }{
		{"gist a number", `{"nodes": {"n1": {"id": "n1", "gist": 3}}}`, `node "n1": field gist`},
		{"notes a string", `{"nodes": {"n1": {"gist": "g", "notes": "x"}}}`, `node "n1": field notes`},
		{"archived a string", `{"nodes": {"n1": {"gist": "g", "_archived": "yes"}}}`, `node "n1": field _archived`},
		{"time a string", `{"nodes": {"n1": {"gist": "g", "_created_ts": "now"}}}`, `node "n1": field _created_ts`},
		{"edge without from", `{"edges": {"k": {"to": "b", "rel": "r"}}}`, `edge "k": field from`},
		{"nodes a list", `{"nodes": []}`, `nodes`},
		{"truncated", `{"nodes": {"n1": {"gist": "g"`, `unexpected end`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := DecodeGraph([]byte(tc.file))
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.wantIn)) {
				t.Errorf("decode error = %v, want one containing %q", err, tc.wantIn)
			}
		})
	}
}

func TestNodeIDFromFieldElseKey(t *testing.T) {
	d, _, err := DecodeGraph([]byte(`{"nodes": {
		"a": {"id": "same", "gist": "first by key"},
		"b": {"id": "same", "gist": "second by key"},
		"c": {"id": "", "gist": "empty id: key"},
		"d": {"gist": "no id: key"}},
		"_meta": {"versions": {"node:same": {"v": 2, "ts": 1}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	g, notes := domain.Restore(domain.UserGraph, d, domain.RestoreOptions{})
	if n, ok := g.Node("same"); !ok || n.Gist != "first by key" {
		t.Errorf("duplicate id kept %+v, want the first map key", n)
	}
	if len(notes) != 1 {
		t.Errorf("notes = %q, want one about the duplicate", notes)
	}
	for _, id := range []string{"c", "d"} {
		if _, ok := g.Node(id); !ok {
			t.Errorf("node %q (id from map key) missing", id)
		}
	}
}

// A progress state is written on one line: a state nested 6,000 arrays deep
// (12 KB; a write refuses it now, but a file of an older kg or of the
// replaced server may hold one) costs the file its own size, not the 69 MiB
// two spaces per level per line made it (issue 15), and reads back the same.
// The rest of the file stays two-space indented.
func TestDeepProgressStateIsStoredCompactly(t *testing.T) {
	const depth = 6000
	state := domain.RawJSON(`{"x":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
	d := porttest.RichData("/home/dev/kg")
	plain := EncodeGraph(d)
	d.Progress["deep"] = state
	b := EncodeGraph(d)
	if grew := len(b) - len(plain); grew > len(state)+100 {
		t.Errorf("a %d-byte state grew the file by %d bytes", len(state), grew)
	}
	if !bytes.Contains(b, []byte(`"deep": `+string(state))) {
		t.Error("the state is not on one line")
	}
	if diff := cmp.Diff(string(canonical(t, b)), string(b)); diff != "" {
		t.Errorf("not sorted two-space JSON around the state (-canonical +written):\n%.2000s", diff)
	}
	got, _, err := DecodeGraph(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Progress["deep"], state) {
		t.Errorf("the state reads back as %.80q…", got.Progress["deep"])
	}
}
