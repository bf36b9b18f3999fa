package search

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
		var posts []Posting
		for si := int32(0); si < 2000; si++ {
			if r.IntN(1+r.IntN(40)) == 0 {
				posts = append(posts, Posting{slot: si, tf: 1 + r.Int32N(5)})
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
				t.Fatalf("after slot %d the place is %d, not the first Posting at or after it", si, at)
			}
		}
	}
}

// TestSearchSlotIsABinarySearch holds the written-out search to
// slices.BinarySearchFunc on random lists, for slots in them, between
// them and past both ends.
func TestSearchSlotIsABinarySearch(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 300 {
		var posts []Posting
		for si := int32(0); si < int32(r.IntN(300)); si++ {
			if r.IntN(3) == 0 {
				posts = append(posts, Posting{slot: si})
			}
		}
		for si := int32(-1); si < 302; si++ {
			want, _ := slices.BinarySearchFunc(posts, si, cmpPostingSlot)
			if got := searchSlot(posts, si); got != want {
				t.Fatalf("searchSlot(slot %d) = %d, want %d (%d postings)", si, got, want, len(posts))
			}
		}
	}
}

// TestResortPutsTheMovedBack moves the first lists of a sorted set of
// cursors forward at random, some past their end, as the top-k walk does,
// and holds resort to a full sort of the lists left.
func TestResortPutsTheMovedBack(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 2000 {
		lists := make([]cursor, 1+r.IntN(12))
		for i := range lists {
			n := 1 + r.IntN(30)
			posts := make([]Posting, n)
			for k := range posts {
				posts[k].slot = int32(k * (1 + r.IntN(3)))
			}
			slices.SortFunc(posts, func(a, b Posting) int { return int(a.slot - b.slot) })
			posts = slices.CompactFunc(posts, func(a, b Posting) bool { return a.slot == b.slot })
			lists[i] = cursor{posts: posts, at: r.IntN(len(posts)), bound: float64(i)}
		}
		slices.SortFunc(lists, func(a, b cursor) int { return int(a.doc() - b.doc()) })
		moved := r.IntN(len(lists) + 1)
		for i := range moved {
			lists[i].at += 1 + r.IntN(5) // forward, perhaps past the end
			lists[i].at = min(lists[i].at, len(lists[i].posts))
		}
		var want []float64
		left := slices.DeleteFunc(slices.Clone(lists), func(c cursor) bool { return c.at >= len(c.posts) })
		got := resort(lists, moved)
		if len(got) != len(left) {
			t.Fatalf("resort kept %d lists, want %d", len(got), len(left))
		}
		for i := 1; i < len(got); i++ {
			if got[i-1].doc() > got[i].doc() {
				t.Fatalf("lists out of order after resort: slot %d before %d", got[i-1].doc(), got[i].doc())
			}
		}
		for _, c := range left {
			want = append(want, c.bound)
		}
		var have []float64
		for _, c := range got {
			have = append(have, c.bound)
		}
		slices.Sort(want)
		slices.Sort(have)
		if !slices.Equal(have, want) {
			t.Fatalf("resort kept lists %v, want %v", have, want)
		}
	}
}
