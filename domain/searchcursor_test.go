package domain

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTFFromIsALookup holds tfFrom to a plain binary search over the
// whole list, on random lists and random runs of lookups: mostly forward
// (as the search asks) with jumps back and past the end.
func TestTFFromIsALookup(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 300 {
		var posts []posting
		for si := int32(0); si < 2000; si++ {
			if r.IntN(1+r.IntN(40)) == 0 {
				posts = append(posts, posting{slot: si, tf: 1 + r.Int32N(5)})
			}
		}
		at := 0
		si := int32(0)
		for range 400 {
			switch r.IntN(10) {
			case 0:
				si = r.Int32N(2100) // anywhere, back included
			case 1:
				si += r.Int32N(500)
			default:
				si += r.Int32N(8)
			}
			want := int32(0)
			if i, ok := slices.BinarySearchFunc(posts, si, cmpPostingSlot); ok {
				want = posts[i].tf
			}
			if got := tfFrom(posts, &at, si); got != want {
				t.Fatalf("tfFrom(slot %d) = %d, want %d (%d postings)", si, got, want, len(posts))
			}
			if at < len(posts) && posts[at].slot < si || at > 0 && posts[at-1].slot >= si {
				t.Fatalf("after slot %d the place is %d, not the first posting at or after it", si, at)
			}
		}
	}
}
