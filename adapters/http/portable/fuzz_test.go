package portable

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kg-memory/kg/domain"
)

// FuzzDecode reads any bytes as an import document (the body of POST
// /api/import). Whatever the bytes, Decode does not panic; it accepts only one
// JSON value in valid UTF-8 (any string is valid UTF-8:
// docs/design/model.md#identifiers-and-limits); what it refuses is an
// invalid-argument error whose message starts with the field it names; and what
// it accepts is a fixed point: encoded again and decoded, it gives the same
// graph, level and project, times to the microsecond included.
func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	if err := Encode(&buf, domain.ProjectGraph("/work/app"), 1_740_830_500_000_000, sample()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	head := `{"format":"kg-graph","version":1,`
	for _, s := range []string{`{}`, `null`, `[]`, head + `"level":"user"}`, head + `"nodes":[{"id":"a","gist":"g","notes":null}]}`,
		head + `"nodes":[{"id":"a","gist":"g","created_ts":1740830400.1234565,"last_read_ts":9999999999.999999}]}`,
		head + `"edges":[{"from":"a","to":"b","rel":"r","last_write_ts":0.0000005}]}`,
		head + `"progress":{"t":{"a" : [1, 2.50, "x"]},"t":{}}}`,
		head + `"level":"project","project_path":"/p","nodes":[{"id":"\ud800"}]}`, head + `"nodes":[]} {}`} {
		f.Add([]byte(s))
	}
	opts := cmpopts.EquateEmpty()
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := Decode(bytes.NewReader(b))
		if err != nil {
			var de *domain.Error
			if !errors.As(err, &de) || de.Kind != domain.KindInvalid || de.Field == "" || !strings.HasPrefix(err.Error(), de.Field+": ") {
				t.Fatalf("Decode(%q) = %v, want an invalid-argument error naming a field", b, err)
			}
			return
		}
		if !json.Valid(b) || !utf8.Valid(b) {
			t.Fatalf("Decode accepted %q, which is not one JSON value in UTF-8", b)
		}
		var again bytes.Buffer
		if err := Encode(&again, domain.GraphKey{Level: doc.Level, Project: doc.ProjectPath}, 0, doc.Data); err != nil {
			t.Fatalf("a decoded document does not encode: %v", err)
		}
		back, err := Decode(&again)
		if err != nil {
			t.Fatalf("kg's own document %s does not decode: %v", again.Bytes(), err)
		}
		if diff := cmp.Diff(doc, back, opts); diff != "" {
			t.Fatalf("decode → encode → decode changed the document (-first +second):\n%s", diff)
		}
	})
}
