package mcp

import (
	"testing"
)

func TestUsefulOverMCP(t *testing.T) {
	e := newEnv(t)
	sid := e.session(t, projA)
	for _, id := range []string{"a", "b", "c"} {
		e.ok(t, "kg_put_node", map[string]any{"session_id": sid, "level": "project", "id": id, "gist": "gist " + id})
	}
	e.ok(t, "kg_useful", map[string]any{"session_id": sid, "ids": []string{"c"}})
	r := e.ok(t, "kg_useful", map[string]any{"session_id": sid, "ids": []string{"a", "b", "c"}})
	if r.text != "Marked useful: a, b (already marked: c)" {
		t.Errorf("text = %q", r.text)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"session_id": sid}, "Error: ids: is required: a list of strings"},
		{map[string]any{"session_id": sid, "ids": []string{}}, "Error: ids: required: 1 to 5 node ids"},
		{map[string]any{"session_id": sid, "ids": []string{"1", "2", "3", "4", "5", "6"}}, "Error: ids: 6 ids, limit 5"},
		{map[string]any{"session_id": sid, "ids": []string{"a", "ghost"}}, `Error: "ghost" not found in the user or project graph; nothing was marked`},
		{map[string]any{"ids": []string{"a"}}, "Error: session_id: is required"},
	} {
		r := e.call(t, "kg_useful", tc.args)
		if !r.isError || r.text != tc.want {
			t.Errorf("%v: %q (error %v), want %q", tc.args, r.text, r.isError, tc.want)
		}
	}
}
