package search

import (
	"math/bits"
	"slices"
)

// Postings is a set of numbers (the word numbers of the lexicon holding a
// trigram): a sorted array while it is small, a bitmap
// once the array would take more room than a bitmap of every slot, as in
// roaring bitmaps. Adding or removing a slot then costs at most a shift of
// an array of slots/32 entries, and a common trigram takes one bit per
// slot rather than 32.
type Postings struct {
	n     int32    // how many slots are in the set
	slots []int32  // the set, sorted, while bits is nil
	bits  []uint64 // the set as a bitmap, when not nil
}

// bitmapAt is the size from which a set of slots out of nslots is kept as
// a bitmap; a bitmap goes back to an array below half of it, so that a set
// hovering at the threshold is not converted back and forth.
func bitmapAt(nslots int) int32 { return int32(max(64, nslots/32)) }

// Len returns how many slots are in the set.
func (p *Postings) Len() int32 { return p.n }

// Has reports whether si is in the set.
func (p *Postings) Has(si int32) bool {
	if p.bits != nil {
		w := int(si >> 6)
		return w < len(p.bits) && p.bits[w]&(1<<(si&63)) != 0
	}
	_, ok := slices.BinarySearch(p.slots, si)
	return ok
}

// Add puts si in the set; nslots is how many slots there are
// (for a trigram's set, the lexicon's word numbers).
func (p *Postings) Add(si int32, nslots int) {
	if p.bits != nil {
		w := int(si >> 6)
		if w >= len(p.bits) {
			p.bits = append(p.bits, make([]uint64, w+1-len(p.bits))...)
		}
		if p.bits[w]&(1<<(si&63)) == 0 {
			p.bits[w] |= 1 << (si & 63)
			p.n++
		}
		return
	}
	if n := len(p.slots); n == 0 || p.slots[n-1] < si {
		p.slots = append(p.slots, si) // the common case when building
	} else {
		i, ok := slices.BinarySearch(p.slots, si)
		if ok {
			return
		}
		p.slots = slices.Insert(p.slots, i, si)
	}
	p.n++
	if p.n > bitmapAt(nslots) {
		p.bits = make([]uint64, (nslots+63)/64)
		for _, s := range p.slots {
			p.bits[s>>6] |= 1 << (s & 63)
		}
		p.slots = nil
	}
}

// Remove takes si out of the set; nslots is how many slots there are
// (for a trigram's set, the lexicon's word numbers).
func (p *Postings) Remove(si int32, nslots int) {
	if p.bits != nil {
		w := int(si >> 6)
		if w >= len(p.bits) || p.bits[w]&(1<<(si&63)) == 0 {
			return
		}
		p.bits[w] &^= 1 << (si & 63)
		p.n--
		if p.n < bitmapAt(nslots)/2 {
			slots := make([]int32, 0, p.n)
			p.Each(func(s int32) { slots = append(slots, s) })
			p.slots, p.bits = slots, nil
		}
		return
	}
	i, ok := slices.BinarySearch(p.slots, si)
	if !ok {
		return
	}
	p.slots = slices.Delete(p.slots, i, i+1)
	p.n--
	if cap(p.slots) > 64 && len(p.slots) < cap(p.slots)/4 {
		p.slots = slices.Clone(p.slots) // give back the room of a set that shrank
	}
}

// Each calls f for every slot of the set, in ascending order.
func (p *Postings) Each(f func(si int32)) {
	if p.bits == nil {
		for _, s := range p.slots {
			f(s)
		}
		return
	}
	for w, word := range p.bits {
		for word != 0 {
			f(int32(w<<6 | bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
}
