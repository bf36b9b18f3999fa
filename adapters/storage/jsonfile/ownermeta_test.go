package jsonfile

import (
	"encoding/json"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/jsonfile/codec"
	"github.com/kg-memory/kg/domain"
)

// fromHead must find the project of a file kg wrote from its head, and
// give up, leaving the whole decode to the caller, whenever the head is not
// in kg's order.
func TestOwnerMetaFromHead(t *testing.T) {
	g, err := domain.Restore(domain.ProjectGraph("/p/app"), domain.GraphData{}, domain.RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.PutNode(domain.NodeInput{ID: "a", Gist: "g"}, domain.Stamp{Now: 1, Session: "s"}); err != nil {
		t.Fatal(err)
	}
	written := string(codec.EncodeGraph(g.Data()))

	for _, tc := range []struct {
		name string
		file string
		ok   bool   // fromHead answers
		want string // the project path it gives
	}{
		{"a file kg wrote", written, true, "/p/app"},
		{"progress before the project", `{"_meta":{"progress":{"t":{"x":[1,{"y":"}"}]}},"project_path":"/p/app","versions":{}},"nodes":{}}`, true, "/p/app"},
		{"damaged after the head", `{"_meta":{"project_path":"/p/app","schema":2,"versions":{"a":`, true, "/p/app"},
		{"no project: the whole file decides", `{"_meta":{"schema":2,"seq":3},"nodes":{}}`, false, ""},
		{"the replaced server's order: nodes first", `{"nodes":{"a":{"_meta":{"project_path":"/evil"}}},"_meta":{"project_path":"/p/old"}}`, false, ""},
		{"keys not sorted", `{"_meta":{"versions":{},"project_path":"/p/app"}}`, false, ""},
		{"a project path that is not a string", `{"_meta":{"project_path":7}}`, false, ""},
		{"torn inside the path", `{"_meta":{"project_path":"/p/ap`, false, ""},
		{"not JSON", `garbage`, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m ownerMeta
			ok := m.fromHead([]byte(tc.file))
			if ok != tc.ok {
				t.Fatalf("fromHead = %v, want %v", ok, tc.ok)
			}
			got := ""
			if m.Meta.ProjectPath != nil {
				got = *m.Meta.ProjectPath
			}
			if got != tc.want {
				t.Errorf("project path %q, want %q", got, tc.want)
			}
			// Where it answers on a whole file, it answers what decoding
			// the whole file does.
			var full ownerMeta
			if ok && json.Unmarshal([]byte(tc.file), &full) == nil && (full.Meta.ProjectPath == nil || *full.Meta.ProjectPath != got) {
				t.Errorf("fromHead gives %q, the whole file %v", got, full.Meta.ProjectPath)
			}
		})
	}
}
