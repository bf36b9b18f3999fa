package hookstate

import (
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// MaxSeen is how many node ids a session's seen set holds at most; past it
// the oldest go (docs/design/hooks.md#sessions-and-the-seen-set).
const MaxSeen = 5000

// State is the live form of a session's ports.HookState: the seen set
// as a map with an insertion order, so that asking whether a node is seen is
// O(1) and showing one is amortized O(1) however large the set. The session
// table holds it beside the session record, not inside it, so the copies of a
// session that every request takes never copy the seen set; it is turned into
// its stored form only when the session is saved (Export).
type State struct {
	Claude string
	Agent  string // ports.HookState.Agent
	// seen maps a SeenKey to the stamp it was last shown under; order
	// lists the keys in stamp order, oldest first. An entry of order whose
	// stamp is not the key's current one was shown again later: it is
	// skipped, and dropped when the list is compacted.
	seen  map[string]uint64
	order []seenEntry
	next  uint64

	FullRead     bool
	Preloaded    int
	Useful       []string
	Nudges       int
	LastNudge    domain.Micros
	PromptNudges int
	cleared      int // times the seen set was emptied (ports.HookState.SeenCleared)
}

type seenEntry struct {
	key   string
	stamp uint64
}

// New returns the live form of a stored state.
func New(h ports.HookState) *State {
	s := &State{Claude: h.ClaudeSessionID, Agent: h.Agent, seen: make(map[string]uint64, len(h.Seen)), FullRead: h.FullReadDone,
		Preloaded: h.PreloadedCount, Useful: append([]string(nil), h.Useful...), Nudges: h.Nudges, LastNudge: h.LastNudge,
		PromptNudges: h.PromptNudges, cleared: h.SeenCleared}
	for _, k := range h.Seen {
		s.See(k)
	}
	return s
}

// Export returns the stored form of the state: the seen set oldest first.
func (h *State) Export() ports.HookState {
	out := ports.HookState{ClaudeSessionID: h.Claude, Agent: h.Agent, FullReadDone: h.FullRead, PreloadedCount: h.Preloaded,
		Useful: append([]string(nil), h.Useful...), Nudges: h.Nudges, LastNudge: h.LastNudge, PromptNudges: h.PromptNudges,
		SeenCleared: h.cleared}
	if len(h.seen) > 0 {
		out.Seen = make([]string, 0, len(h.seen))
		for _, e := range h.order {
			if h.seen[e.key] == e.stamp {
				out.Seen = append(out.Seen, e.key)
			}
		}
	}
	return out
}

// See adds key to the seen set as its newest entry (a key seen again moves
// to the end), dropping the oldest past MaxSeen.
func (h *State) See(key string) {
	h.next++
	h.seen[key] = h.next
	h.order = append(h.order, seenEntry{key, h.next})
	for len(h.seen) > MaxSeen {
		e := h.order[0]
		h.order = h.order[1:]
		if h.seen[e.key] == e.stamp {
			delete(h.seen, e.key)
		}
	}
	if len(h.order) > 2*len(h.seen)+64 {
		h.compact()
	}
}

// compact drops the entries of order that are no longer current.
func (h *State) compact() {
	kept := make([]seenEntry, 0, len(h.seen))
	for _, e := range h.order {
		if h.seen[e.key] == e.stamp {
			kept = append(kept, e)
		}
	}
	h.order = kept
}

// Has reports whether key is in the seen set.
func (h *State) Has(key string) bool {
	_, ok := h.seen[key]
	return ok
}

// ClearSeen empties the seen set (a compaction of the conversation: its
// context lost what the set says it holds).
func (h *State) ClearSeen() {
	h.seen = map[string]uint64{}
	h.order = nil
	h.cleared++
}

// Merge takes into h what another server stored of the same session (team
// mode, docs/design/team.md#hooks-across-servers): the seen set of the copy
// cleared last (both, when neither was cleared after the other), the
// binding when h has none, and every flag and counter forward only. A
// conversation's hooks run one after another, so the stored state is the
// newest but for what this server did since its last store.
func (h *State) Merge(o ports.HookState) {
	switch {
	case o.SeenCleared > h.cleared: // cleared elsewhere since: what h saw is gone from the context
		h.seen, h.order, h.cleared = map[string]uint64{}, nil, o.SeenCleared
		h.FullRead, h.Preloaded = false, 0
		fallthrough
	case o.SeenCleared == h.cleared:
		for _, k := range o.Seen {
			if !h.Has(k) {
				h.See(k)
			}
		}
		h.FullRead = h.FullRead || o.FullReadDone
		h.Preloaded = max(h.Preloaded, o.PreloadedCount)
	}
	if h.Claude == "" {
		h.Claude = o.ClaudeSessionID
	}
	if h.Agent == "" {
		h.Agent = o.Agent
	}
	for _, k := range o.Useful {
		if !h.Marked(k) {
			h.Useful = append(h.Useful, k)
		}
	}
	h.Nudges, h.LastNudge, h.PromptNudges = max(h.Nudges, o.Nudges), max(h.LastNudge, o.LastNudge), max(h.PromptNudges, o.PromptNudges)
}

// Marked reports whether the session marked key useful.
func (h *State) Marked(key string) bool {
	for _, k := range h.Useful {
		if k == key {
			return true
		}
	}
	return false
}
