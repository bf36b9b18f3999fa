package mcpstdio

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSendsTheProjectKey: a kg_read with a cwd goes out with the folder's
// key as project_key; a call that gives its own key, another tool, a
// folder with no key, and a bridge without ProjectKey go unchanged.
func TestSendsTheProjectKey(t *testing.T) {
	f := newFakeServer(t, kgLike)
	keys := map[string]string{"/home/alice/api": "github.com/acme/api"}
	b := &Bridge{Connect: at(f.srv.URL + "/"), ProjectKey: func(root string) (string, bool) {
		k, ok := keys[root]
		return k, ok
	}}
	run(t, b,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"kg_read","arguments":{"cwd":"/home/alice/api"},"_meta":{"progressToken":7}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"kg_read","arguments":{"cwd":"/home/alice/api","project_key":"mine"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"kg_search","arguments":{"query":"x","cwd":"/home/alice/api"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"kg_read","arguments":{"cwd":"/tmp/scratch"}}}`,
	)
	type call struct {
		ID     int `json:"id"`
		Params struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
			Meta      map[string]int    `json:"_meta"`
		} `json:"params"`
	}
	got := map[int]call{}
	for _, r := range f.requests() {
		var c call
		if err := json.Unmarshal([]byte(r.Body), &c); err != nil {
			t.Fatalf("%s: %v", r.Body, err)
		}
		got[c.ID] = c
	}
	want := map[int]map[string]string{
		1: {"cwd": "/home/alice/api", "project_key": "github.com/acme/api"},
		2: {"cwd": "/home/alice/api", "project_key": "mine"},
		3: {"query": "x", "cwd": "/home/alice/api"},
		4: {"cwd": "/tmp/scratch"},
	}
	for id, args := range want {
		if d := cmp.Diff(args, got[id].Params.Arguments); d != "" {
			t.Errorf("call %d's arguments (-want +got):\n%s", id, d)
		}
	}
	if got[1].Params.Meta["progressToken"] != 7 || got[1].Params.Name != "kg_read" {
		t.Errorf("the rest of call 1 changed: %+v", got[1].Params)
	}

	plain := &Bridge{Connect: at(f.srv.URL + "/")}
	msg := []byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"kg_read","arguments":{"cwd":"/home/alice/api"}}}`)
	if out := plain.withProjectKey(msg); string(out) != string(msg) {
		t.Errorf("a bridge without ProjectKey changed the call: %s", out)
	}
}
