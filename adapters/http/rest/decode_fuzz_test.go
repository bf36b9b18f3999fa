package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"mime"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

// FuzzRESTBody sends any bytes, with any Content-Type, as the body of the REST
// writes (a node, an edge) and holds decodeBody to encoding/json and
// docs/design/model.md#identifiers-and-limits:
//   - a body declared as anything but JSON is refused as such (415);
//   - a body that is not valid UTF-8, not one JSON value, or not an object
//     is refused naming "body";
//   - a JSON object is decoded exactly as encoding/json decodes it, or, when
//     a value has the wrong type, refused naming that field;
//   - every refusal is an invalid-argument error whose message starts with
//     its field.
func FuzzRESTBody(f *testing.F) {
	for _, s := range []string{`{"level":"user","id":"a","gist":"g","notes":["n"],"touches":[],"expected_version":2}`,
		`{"level":"project","from":"a","to":"src/a.go","rel":"touches","notes":null,"project_path":"/p"}`,
		`{}`, ``, ` `, `null`, `[]`, `"x"`, `{"id":7}`, `{"notes":"n"}`, `{"expected_version":-1}`, `{"expected_version":1.5}`,
		`{} {}`, "{\"gist\":\"\xff\"}", `{"gist":"\ud800"}`, `{"ID":"upper","id":"lower"}`} {
		f.Add([]byte(s), "application/json")
	}
	f.Add([]byte(`{"id":"a"}`), "")
	f.Add([]byte(`{"id":"a"}`), "text/plain")
	f.Add([]byte(`{"id":"a"}`), "application/merge-patch+json; charset=utf-8")
	f.Add([]byte(`id=a`), "application/x-www-form-urlencoded")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		for _, v := range []any{&putNodeBody{}, &putEdgeBody{}} {
			r := httptest.NewRequest("POST", "/api/nodes", bytes.NewReader(body))
			r.Header.Set("Content-Type", contentType)
			err := decodeBody(r, v, true)

			wantField, want := wantBody(reflect.TypeOf(v).Elem(), body, contentType)
			switch {
			case wantField == "Content-Type":
				if _, ok := err.(errNotJSON); !ok {
					t.Fatalf("%T %q as %q: %v, want a 415 for a body that is not JSON", v, body, contentType, err)
				}
			case wantField != "":
				var de *domain.Error
				if err == nil || !errors.As(err, &de) || de.Kind != domain.KindInvalid || de.Field != wantField ||
					!strings.HasPrefix(err.Error(), wantField+": ") {
					t.Fatalf("%T %q: error %v, want an invalid-argument error naming %q", v, body, err, wantField)
				}
			default:
				if err != nil {
					t.Fatalf("%T %q: refused (%v); encoding/json reads it", v, body, err)
				}
				if diff := cmp.Diff(want, reflect.ValueOf(v).Elem().Interface()); diff != "" {
					t.Fatalf("%T %q (-encoding/json +decodeBody):\n%s", v, body, diff)
				}
			}
		}
	})
}

// wantBody says how a body must be taken: the field a refusal names
// ("Content-Type" for a 415), or "" and the value encoding/json decodes.
func wantBody(t reflect.Type, body []byte, contentType string) (string, any) {
	if len(body) == 0 {
		return "body", nil // required
	}
	if contentType != "" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil || !(mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
			return "Content-Type", nil
		}
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' || !utf8.Valid(trimmed) || !json.Valid(trimmed) {
		return "body", nil
	}
	v := reflect.New(t)
	if err := json.Unmarshal(trimmed, v.Interface()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return te.Field, nil
		}
		return "body", nil
	}
	return "", v.Elem().Interface()
}
