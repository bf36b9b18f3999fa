package mcp

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

// allKinds has one field of every argument type.
type allKinds struct {
	S  str           `arg:"s"`
	R  requiredStr   `arg:"r"`
	L  strList       `arg:"l"`
	N  integer       `arg:"n"`
	O  object        `arg:"o"`
	V  level         `arg:"v"`
	RV requiredLevel `arg:"rv"`
}

func TestDecodeArgs(t *testing.T) {
	base := `"r":"x","rv":"user"`
	tests := []struct {
		name    string
		raw     string
		want    allKinds
		wantErr string
	}{
		{"only the required ones", `{` + base + `}`, allKinds{R: "x", RV: "user"}, ""},
		{"every kind", `{"s":"a",` + base + `,"l":["p","q"],"n":7,"o":{"k":[1]},"v":"project"}`,
			allKinds{S: "a", R: "x", L: strList{"p", "q"}, N: integer{7, true}, O: object(`{"k":[1]}`), V: "project", RV: "user"}, ""},
		{"null is not given", `{"s":null,` + base + `,"l":null,"n":null,"o":null,"v":null}`, allKinds{R: "x", RV: "user"}, ""},
		{"an empty list is given", `{` + base + `,"l":[]}`, allKinds{R: "x", RV: "user", L: strList{}}, ""},
		{"an integer as a string", `{` + base + `,"n":" 12 "}`, allKinds{R: "x", RV: "user", N: integer{12, true}}, ""},
		{"an integer with an exponent", `{` + base + `,"n":1e3}`, allKinds{R: "x", RV: "user", N: integer{1000, true}}, ""},
		{"unknown names are ignored", `{` + base + `,"extra":{"deep":true}}`, allKinds{R: "x", RV: "user"}, ""},
		{"names are matched exactly", `{` + base + `,"S":"upper"}`, allKinds{R: "x", RV: "user"}, ""},
		{"no arguments", ``, allKinds{}, "r: is required"},
		{"null arguments", `null`, allKinds{}, "r: is required"},
		{"arguments not an object", `[1]`, allKinds{}, "arguments: must be a JSON object of named arguments"},
		{"the first bad argument in field order", `{"v":"bogus","s":3}`, allKinds{}, "s: must be a string"},
		{"empty required string", `{"r":"","rv":"user"}`, allKinds{}, "r: is required"},
		{"not a list of strings", `{` + base + `,"l":[1]}`, allKinds{}, "l: must be a list of strings"},
		{"a fraction", `{` + base + `,"n":2.5}`, allKinds{}, "n: must be a whole number"},
		{"a word for a number", `{` + base + `,"n":"two"}`, allKinds{}, "n: must be a whole number"},
		{"a string in a string", `{` + base + `,"n":"\"5\""}`, allKinds{}, "n: must be a whole number"},
		{"not an object", `{` + base + `,"o":"{}"}`, allKinds{}, "o: must be a JSON object"},
		{"a bad level", `{` + base + `,"v":"bogus"}`, allKinds{}, `v: "bogus" is not one of user, project`},
		{"a missing required level", `{"r":"x"}`, allKinds{}, "rv: is required: user or project"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got allKinds
			err := decodeArgs([]byte(tc.raw), &got)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || domain.KindOf(err) != domain.KindInvalid {
					t.Fatalf("error %v, want invalid %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(integer{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
