package domain

import "math"

// The use count of docs/design/compaction.md#the-use-count: how many separate
// sessions needed a node lately, decayed with a 7-day half-life. It is integer
// arithmetic only, so every platform and every backend computes the same bits.

const (
	// UseUnit is one session's count: a use count is held in units of
	// 1/65,536 of a session.
	UseUnit uint64 = 1 << 16
	// UseMax is where a use count saturates, 2^48 − 1: a count times a decay
	// factor (at most 2^16) then never overflows 64 bits, and a JSON reader
	// that reads numbers as float64 reads it exactly.
	UseMax uint64 = 1<<48 - 1
	// MaxUseDay is the last day a use count can be stamped with: the day of
	// the latest time a Micros holds.
	MaxUseDay = int32(math.MaxInt64 / int64(Day))

	// useDecayStep is round(2^16 × 2^(−1/7)): each day multiplies a count
	// by useDecayStep / 2^16, which halves it in 7 days.
	useDecayStep = 59358
	// useDecayDays is the last day of the decay table: T[94] = 0, so a count
	// not renewed for 94 days or more is worth nothing.
	useDecayDays = 94
)

// useDecay is the decay table T: T[0] = 65536, T[k] = (T[k−1] × 59358) >> 16,
// so T[7] = 32767 and T[94] = 0.
var useDecay = func() (t [useDecayDays + 1]uint64) {
	t[0] = UseUnit
	for k := 1; k <= useDecayDays; k++ {
		t[k] = (t[k-1] * useDecayStep) >> 16
	}
	return t
}()

// decayUse is v decayed by k days: v itself for k ≤ 0 (a count stamped today
// or, after a clock step back, later), (v × T[k]) >> 16 up to 94 days, 0
// beyond. v must be at most UseMax.
func decayUse(v uint64, k int64) uint64 {
	switch {
	case k <= 0:
		return v
	case k > useDecayDays:
		return 0
	}
	return (v * useDecay[k]) >> 16
}

// UseDay is day(t) = floor(t / 86,400,000,000), the day a use count is
// stamped with.
func UseDay(t Micros) int32 {
	d := t / Day
	if t%Day < 0 {
		d--
	}
	return int32(d)
}

// Use is a node's use count: Count (stored as _use) in units of 1/65,536 of a
// session, as it stood on Day (stored as _use_day). It has no version and no
// seq; it is saved like the read stamp.
type Use struct {
	Count uint64
	Day   int32
	// Known is false for a node stored without a use count (a file of the
	// replaced server, an older kg file, an import from another tool) or
	// with one that is not a pair of integers in range. Restore and Import
	// give such a node the default of DefaultUse; in a graph every node's
	// use is known.
	Known bool
}

// At is the count decayed to day: u(n) = decay(_use, day − _use_day).
func (u Use) At(day int32) uint64 { return decayUse(u.Count, int64(day)-int64(u.Day)) }

// Add is the count after one more session's use at t:
// _use ← decay(_use, day(t) − _use_day) + 65536, saturating at UseMax, and
// _use_day ← day(t) — or the day it holds, when that is later: a count made
// at a time before the last one (a clock stepped back, another server's
// clock, counts applied out of order) adds its session to the count as it
// stands, rather than restamping the whole count with an older day, which
// would decay it more and lower it (docs/decisions/0052-use-day-never-goes-back.md).
// It never lowers the count as it stands on day(t), nor, below 2^32 (65,536
// sessions), on any later day; larger counts can lose a part in 10^5 of
// their value to the rounding of the decay table.
func (u Use) Add(t Micros) Use {
	d := UseDay(t)
	return Use{Count: min(u.At(d)+UseUnit, UseMax), Day: max(d, u.Day), Known: true}
}

// DefaultUse is the use count of a node loaded or imported without one: one
// session's count, stamped on the day of its recency, or nothing at all when
// it has no recency (docs/design/compaction.md#the-use-count).
func DefaultUse(recency Micros) Use {
	if recency <= 0 {
		return Use{Known: true}
	}
	return Use{Count: UseUnit, Day: UseDay(recency), Known: true}
}

// StoredUse is the use count a storage adapter read: the two stored integers,
// and whether both were present and non-negative integers. A pair that is not
// (or a day past MaxUseDay) is not known; a count above UseMax reads as
// UseMax.
func StoredUse(count, day uint64, ok bool) Use {
	if !ok || day > uint64(MaxUseDay) {
		return Use{}
	}
	return Use{Count: min(count, UseMax), Day: int32(day), Known: true}
}

// ParseUseJSON is StoredUse for the two stored JSON values as they are in a
// document (nil for a missing one): each must be an integer literal — digits
// only, no sign, fraction or exponent — that fits 64 bits.
func ParseUseJSON(count, day []byte) Use {
	c, okc := parseUint(count)
	d, okd := parseUint(day)
	return StoredUse(c, d, okc && okd)
}

// parseUint reads a JSON integer literal of digits only.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 1 && b[0] == '0' {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' || n > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// CountUse adds one session's use at t to the node with id
// (docs/design/compaction.md#the-use-count) and returns its count. Like a read
// stamp it changes no version and takes no seq; the node is saved with the
// graph's next write. It reports false for a missing node.
func (g *Graph) CountUse(id string, t Micros) (Use, bool) {
	n, ok := g.node(id)
	if !ok {
		return Use{}, false
	}
	c := n.clone()
	c.Use = n.Use.Add(t)
	g.setNode(id, c)
	return c.Use, true
}
