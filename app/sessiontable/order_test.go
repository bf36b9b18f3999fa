package sessiontable

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// byActivity's oldest is the least recently active live session (ties: the
// smallest id) after any mix of creations, activity and removals: checked
// against a look at every session.
func TestByActivityFindsTheLeastRecentlyActive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	live := map[string]*ports.Session{}
	var b byActivity
	next := 0
	for step := range 5000 {
		switch r := rng.IntN(10); {
		case r < 4 || len(live) == 0:
			id := fmt.Sprintf("%04d", next)
			next++
			at := domain.Micros(rng.IntN(50))
			live[id] = &ports.Session{ID: id, LastActivity: at}
			b.add(id, at)
		case r < 8:
			for _, s := range live { // a request: activity only grows
				s.LastActivity += domain.Micros(rng.IntN(20))
				break
			}
		default:
			id := b.oldest(live)
			delete(live, id)
			b.tidy(live)
		}
		want := ""
		for id, s := range live {
			w := live[want]
			if want == "" || s.LastActivity < w.LastActivity || s.LastActivity == w.LastActivity && id < want {
				want = id
			}
		}
		if got := b.oldest(live); got != want {
			t.Fatalf("step %d: oldest = %q, want %q", step, got, want)
		}
		if len(b.h) > 2*len(live)+64+1 {
			t.Fatalf("step %d: %d entries for %d live sessions", step, len(b.h), len(live))
		}
	}
}
