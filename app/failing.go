package app

import (
	"maps"
	"slices"
	"sync"

	"github.com/kg-memory/kg/domain"
)

// failing is what cannot be saved right now — a graph's writes, its
// checkpoint, the sessions — by what fails: set when it fails, cleared
// when it next succeeds. A disk that is full or read-only fails every save
// while reads go on, and /health must say so rather than "ok".
type failing struct {
	mu sync.Mutex
	m  map[string]string
}

// set records that what fails, and why, in one line.
func (f *failing) set(what, why string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]string{}
	}
	f.m[what] = why
}

// clear records that what succeeded.
func (f *failing) clear(what ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range what {
		delete(f.m, w)
	}
}

// list returns the lines of what fails, sorted by what.
func (f *failing) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.m))
	for _, w := range slices.Sorted(maps.Keys(f.m)) {
		out = append(out, f.m[w])
	}
	return out
}

// saveOf and checkpointOf name what fails in store.failing.
func saveOf(key domain.GraphKey) string       { return "save " + key.String() }
func checkpointOf(key domain.GraphKey) string { return "checkpoint " + key.String() }

// saveFailed records that the graph's save failed with err: Health is
// degraded, naming the cause, until one succeeds.
func (f *failing) saveFailed(key domain.GraphKey, err error) {
	f.set(saveOf(key), "the "+graphName(key)+" could not be saved ("+err.Error()+"); its writes fail until a save succeeds")
}

// checkpointFailed records that folding the graph's journal into its file
// failed: its writes are durable in the journal, which grows meanwhile.
func (f *failing) checkpointFailed(key domain.GraphKey, err error) {
	f.set(checkpointOf(key), "the "+graphName(key)+" could not be written whole ("+err.Error()+
		"); its writes are kept in its journal, which grows until this succeeds")
}
