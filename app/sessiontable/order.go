package sessiontable

import (
	"container/heap"
	"strings"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// byActivity finds the least recently active live session — the one a new
// session expires at the cap (docs/design/sync.md#sessions) — in O(log n)
// amortized instead of a look at every session, so that a register costs
// the same at 10,000 sessions as at 1,000.
//
// It is lazy: an entry is pushed when a session is created and is not
// touched when the session is active (that happens on every request). A
// session's last activity only grows, so an entry can only be too old: when
// it reaches the top it is moved down to the session's current time, and
// an entry of a session that went is dropped there. The top, once it is
// current, is the least recently active session (ties: the smallest id).
type byActivity struct{ h activityHeap }

type activityEntry struct {
	at domain.Micros
	id string
}

// activityHeap orders entries by time, then id; it implements heap.Interface.
type activityHeap []activityEntry

func (h activityHeap) Len() int { return len(h) }
func (h activityHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return strings.Compare(h[i].id, h[j].id) < 0
}
func (h activityHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *activityHeap) Push(x any)   { *h = append(*h, x.(activityEntry)) }
func (h *activityHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// add records a new session.
func (b *byActivity) add(id string, at domain.Micros) { heap.Push(&b.h, activityEntry{at: at, id: id}) }

// oldest returns the id of the least recently active session of live, ""
// when there is none.
func (b *byActivity) oldest(live map[string]*ports.Session) string {
	for len(b.h) > 0 {
		top := b.h[0]
		s, ok := live[top.id]
		switch {
		case !ok:
			heap.Pop(&b.h)
		case s.LastActivity != top.at:
			b.h[0].at = s.LastActivity
			heap.Fix(&b.h, 0)
		default:
			return top.id
		}
	}
	return ""
}

// tidy rebuilds the entries from live once those of sessions that went
// (expired by the tick, below the cap) outnumber the live ones, so that
// they cost at most twice the live sessions.
func (b *byActivity) tidy(live map[string]*ports.Session) {
	if len(b.h) <= 2*len(live)+64 {
		return
	}
	b.h = make(activityHeap, 0, len(live))
	for id, s := range live {
		b.h = append(b.h, activityEntry{at: s.LastActivity, id: id})
	}
	heap.Init(&b.h)
}
