package domain

import "testing"

// TestNamableBy: a principal may name their own user graph, every shared
// project and their own private projects, and nothing else — a name that
// merely starts like theirs included.
func TestNamableBy(t *testing.T) {
	for _, tc := range []struct {
		key       GraphKey
		principal string
		want      bool
	}{
		{UserGraphOf("alice"), "alice", true},
		{UserGraphOf("alice"), "bob", false},
		{UserGraphOf(""), "", true},
		{ProjectGraph("github.com/acme/api"), "bob", true},
		{ProjectGraph("/home/alice/api"), "", true},
		{ProjectGraph("private/alice/home/alice/x"), "alice", true},
		{ProjectGraph("private/alice"), "alice", true},
		{ProjectGraph("private/alice/home/alice/x"), "bob", false},
		{ProjectGraph("private/alice/home/alice/x"), "ali", false},
		{ProjectGraph("private/alicex/y"), "alice", false},
		{ProjectGraph("private//alice/x"), "alice", false},
		{ProjectGraph("private/alice/x"), "", false},
	} {
		if got := tc.key.NamableBy(tc.principal); got != tc.want {
			t.Errorf("%v named by %q: %v, want %v", tc.key, tc.principal, got, tc.want)
		}
	}
}
