package ports

import (
	"fmt"
	"testing"
)

// sessionIDs is n node ids such as sessions read: a few words of a small
// vocabulary joined by dashes.
func sessionIDs(n int) []string {
	words := []string{"auth", "token", "refresh", "retry", "policy", "cache", "index", "query", "session", "upload",
		"build", "deploy", "config", "route", "handler", "graph", "budget", "search", "prompt", "journal"}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("u:%s-%s-%s-%d", words[i%20], words[(i/20)%20], words[(i/400)%20], i)
	}
	return out
}

// A seen set of 5,000 keys is stored packed, a fraction of its keys'
// length, and reads back as it was; a short one stays readable (issue 28,
// item 8: sessions.json kept about 260 KB a session that read 5,000 ids).
func TestHookStateStoresALongSeenSetPacked(t *testing.T) {
	h := HookState{ClaudeSessionID: "c1", Seen: sessionIDs(5000), Nudges: 2}
	b, err := MarshalHookState(h)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalHookState(b)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(h) {
		t.Fatalf("the state read back differs: %d keys, first %q", len(got.Seen), got.Seen[:min(1, len(got.Seen))])
	}
	raw := 0
	for _, k := range h.Seen {
		raw += len(k)
	}
	if len(b)*3 > raw {
		t.Errorf("the stored state takes %d bytes for %d bytes of keys, want under a third", len(b), raw)
	}
	short, _ := MarshalHookState(HookState{Seen: []string{"u:a", "p:b"}})
	if string(short) != `{"seen":["u:a","p:b"]}` {
		t.Errorf("a short seen set is stored as %s", short)
	}
	if _, err := UnmarshalHookState([]byte(`{"seen_packed":"not base64!"}`)); err == nil {
		t.Error("a damaged packed seen set was read without an error")
	}
}
