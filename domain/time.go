package domain

// Micros is a point in time as integer Unix microseconds, or a duration in
// microseconds. Integer time is what makes compaction identical on every
// backend: JSON stores seconds with six decimals, bolt stores the integer.
// Zero means "missing" where a field is optional.
type Micros int64

// Common durations.
const (
	Second Micros = 1_000_000
	Day    Micros = 86_400 * Second
)

// Days returns n days as a duration.
func Days(n int) Micros { return Micros(n) * Day }
