package search

import (
	"maps"
	"math/bits"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestPostingsSwitchesForm(t *testing.T) {
	const nslots = 64 * 40 // a bitmap from 80 slots, back to an array below 40
	var p Postings
	for si := int32(0); si < 100; si++ {
		p.Add(si*7, nslots)
		p.Add(si*7, nslots) // a repeat changes nothing
	}
	if p.bits == nil || p.n != 100 {
		t.Fatalf("after 100 adds: bitmap %v, n %d; want a bitmap of 100", p.bits != nil, p.n)
	}
	for si := int32(0); si < 70; si++ {
		p.Remove(si*7, nslots)
		p.Remove(si*7, nslots)
	}
	if p.bits != nil || p.n != 30 {
		t.Fatalf("after 70 removals: bitmap %v, n %d; want an array of 30", p.bits != nil, p.n)
	}
	var got []int32
	p.Each(func(si int32) { got = append(got, si) })
	var want []int32
	for si := int32(70); si < 100; si++ {
		want = append(want, si*7)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("slots (-want +got):\n%s", diff)
	}
	if !p.Has(700-7) || p.Has(7) {
		t.Errorf("has: %v for a member, %v for a removed slot", p.Has(700-7), p.Has(7))
	}
}

// TestPostingsPropMatchesSet drives a Postings and a built-in set through
// the same adds and removes, across the change of form both ways: after
// each, the two list the same slots, and a bitmap's count is its bits set.
func TestPostingsPropMatchesSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const nslots = 64 * 8 // a bitmap from 65 slots, back to an array below 32
		var p Postings
		want := map[int32]bool{}
		for range rapid.IntRange(0, 400).Draw(t, "ops") {
			si := rapid.Int32Range(0, nslots-1).Draw(t, "slot")
			if rapid.Bool().Draw(t, "remove") {
				p.Remove(si, nslots)
				delete(want, si)
			} else {
				p.Add(si, nslots)
				want[si] = true
			}
			if p.Has(si) != want[si] {
				t.Fatalf("Has(%d) = %v, want %v", si, p.Has(si), want[si])
			}
			var got []int32
			p.Each(func(s int32) { got = append(got, s) })
			wantSlots := slices.Sorted(maps.Keys(want))
			if !slices.Equal(got, wantSlots) || int(p.Len()) != len(want) {
				t.Fatalf("set of %d (-want +got):\n%s", p.Len(), cmp.Diff(wantSlots, got))
			}
			if p.bits != nil {
				pop := 0
				for _, x := range p.bits {
					pop += bits.OnesCount64(x)
				}
				if pop != int(p.n) {
					t.Fatalf("bitmap has %d bits set and counts %d", pop, p.n)
				}
			}
		}
	})
}
