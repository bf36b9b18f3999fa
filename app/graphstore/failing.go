package graphstore

import (
	"maps"
	"slices"
	"sync"

	"github.com/kg-memory/kg/domain"
)

// Failing is what cannot be saved right now — a graph's writes, its
// checkpoint, the sessions — by what fails: set when it fails, cleared
// when it next succeeds. A disk that is full or read-only fails every save
// while reads go on, and /health must say so rather than "ok".
type Failing struct {
	mu sync.Mutex
	m  map[string]string
}

// Set records that what fails, and why, in one line.
func (f *Failing) Set(what, why string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]string{}
	}
	f.m[what] = why
}

// Clear records that what succeeded.
func (f *Failing) Clear(what ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range what {
		delete(f.m, w)
	}
}

// List returns the lines of what fails, sorted by what.
func (f *Failing) List() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.m))
	for _, w := range slices.Sorted(maps.Keys(f.m)) {
		out = append(out, f.m[w])
	}
	return out
}

// saveOf names a graph's save in Failing.
func saveOf(key domain.GraphKey) string { return "save " + key.String() }

// CheckpointOf names a graph's checkpoint in Failing: the maintenance tick
// records and clears it.
func CheckpointOf(key domain.GraphKey) string { return "checkpoint " + key.String() }

// SaveFailed records that the graph's save failed with err: the health
// report is degraded, naming the cause, until one succeeds.
func (f *Failing) SaveFailed(key domain.GraphKey, err error) {
	f.Set(saveOf(key), "the "+GraphName(key)+" could not be saved ("+err.Error()+"); its writes fail until a save succeeds")
}

// CheckpointFailed records that folding the graph's journal into its file
// failed: its writes are durable in the journal, which grows meanwhile.
func (f *Failing) CheckpointFailed(key domain.GraphKey, err error) {
	f.Set(CheckpointOf(key), "the "+GraphName(key)+" could not be written whole ("+err.Error()+
		"); its writes are kept in its journal, which grows until this succeeds")
}
