package ports

import "github.com/kg-memory/kg/domain"

// Clock tells the time. The app reads it once per change, so every rule of a
// change sees the same now.
type Clock interface {
	// Now returns the current time as Unix microseconds.
	Now() domain.Micros
}
