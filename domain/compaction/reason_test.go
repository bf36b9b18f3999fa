package compaction

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendFixed4 checks the fast four-decimal formatting of reasons
// against strconv on the values that decide it: halfway cases, values next
// to them, integers, the edges of the fast path and random scores.
func TestAppendFixed4(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, 0.5, 0.05, 0.00005, 0.00015, 0.03125, 0.99995, 0.999949999,
		1023.99995, 1024, 1e6, -0.25, -1e-9, math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64,
		0.33, 0.66, 0.99, 1.0 / 3, 2.0 / 3}
	for k := range 20000 {
		h := (float64(k) + 0.5) / 10000 // near-halfway decimals
		vals = append(vals, h, math.Nextafter(h, 0), math.Nextafter(h, 2), float64(k)/10000)
	}
	// Exactly representable halfway cases: (2k+1)/20000 with 625 | 2k+1.
	for m := 625; m < 40000; m += 1250 {
		vals = append(vals, float64(m)/20000)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		vals = append(vals, r.Float64(), r.Float64()*1100, float64(0.33*r.Float64())+float64(0.66*r.Float64()))
	}
	for _, v := range vals {
		want := strconv.AppendFloat(nil, v, 'f', 4, 64)
		if got := appendFixed4(nil, v); string(got) != string(want) {
			t.Fatalf("appendFixed4(%v) = %q, want %q", v, got, want)
		}
	}
}
