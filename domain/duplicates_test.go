package domain

import "testing"

func TestNormalizedID(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"auth-token-refresh", "auth-token-refresh"},
		{"Auth_Token_Refresh", "auth-token-refresh"},
		{"auth-token-refreshes", "auth-token-refreshe"},
		{"auth-tokens", "auth-token"},
		{"bus", "bus"}, // too short to lose an s
		{"tests", "test"},
	} {
		if got := NormalizedID(c.in); got != c.want {
			t.Errorf("NormalizedID(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

// The count of the id forms follows puts, deletes and rollbacks: a node
// spelled another way is named while it lives, and after a rollback the
// holders are those of the checkpoint again.
func TestIDFormHolders(t *testing.T) {
	g := NewGraph(UserGraph)
	corePut(t, g, "cache-keys", "cache keys hold the tenant", nil, nil)
	if got := g.IDFormHolders("cache-keys"); len(got) != 0 {
		t.Fatalf("a node holds its own form: %v", got)
	}
	g.Checkpoint()
	corePut(t, g, "Cache_Keys", "x", nil, nil)
	if _, err := g.DeleteNode("cache-keys", coreAt(2, "")); err != nil {
		t.Fatal(err)
	}
	checkIndexes(t, g)
	if got := g.IDFormHolders("cache-key"); len(got) != 1 || got[0] != "Cache_Keys" {
		t.Fatalf("after the delete: %v", got)
	}
	g.Rollback()
	checkIndexes(t, g)
	if got := g.IDFormHolders("cache-key"); len(got) != 1 || got[0] != "cache-keys" {
		t.Fatalf("after the rollback: %v", got)
	}
}
