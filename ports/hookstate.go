package ports

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kg-memory/kg/domain"
)

// HookState is what a session keeps for the hook routes
// (docs/design/hooks.md#sessions-and-the-seen-set). Every backend stores it
// as one JSON object, the one MarshalHookState writes, under the session's
// "hook_state" field, so that a backend that keeps a session as a JSON
// document carries it as it is. The zero value is a session the hooks never
// touched, stored as nothing.
type HookState struct {
	// ClaudeSessionID is the Claude Code session the session is bound to;
	// "" for none. A bound session outlives the session TTL.
	ClaudeSessionID string `json:"claude_session_id,omitempty"`
	// Agent is the agent whose hook started or bound the session, as kg
	// hook names it (claude-code, codex, gemini); "" when no hook said. The
	// page names a session by it (docs/design/http.md#sessions-named-for-a-person).
	Agent string `json:"agent,omitempty"`
	// Seen is the seen set, oldest first: "u:<id>" for a node of the user
	// graph, "p:<id>" for one of the session's project graph (SeenKey).
	Seen []string `json:"seen,omitempty"`
	// FullReadDone is set once the session had a preload or a full read.
	FullReadDone bool `json:"full_read_done,omitempty"`
	// PreloadedCount is how many nodes the session's last preload showed.
	PreloadedCount int `json:"preloaded_count,omitempty"`
	// Useful lists the nodes the session marked with kg_useful, as SeenKey
	// writes them, in the order marked.
	Useful []string `json:"useful,omitempty"`
	// Nudges counts the tool-event nudges given to the session, and
	// LastNudge (Unix microseconds) is when the last one was.
	Nudges    int           `json:"nudges,omitempty"`
	LastNudge domain.Micros `json:"last_nudge_us,omitempty"`
	// PromptNudges counts the prompts answered with the full-read nudge.
	PromptNudges int `json:"prompt_nudges,omitempty"`
	// SeenCleared counts the times the seen set was emptied (a compaction
	// of the conversation), so that a server merging a stored state into
	// its own copy knows which copy's seen set is current (team mode,
	// docs/design/team.md#hooks-across-servers).
	SeenCleared int `json:"seen_cleared,omitempty"`
}

// Empty reports whether h holds nothing: a session the hooks never touched.
func (h HookState) Empty() bool {
	return h.ClaudeSessionID == "" && h.Agent == "" && len(h.Seen) == 0 && !h.FullReadDone && h.PreloadedCount == 0 &&
		len(h.Useful) == 0 && h.Nudges == 0 && h.LastNudge == 0 && h.PromptNudges == 0 && h.SeenCleared == 0
}

// Clone returns a copy of h that shares no slice with it.
func (h HookState) Clone() HookState {
	h.Seen = slices.Clone(h.Seen)
	h.Useful = slices.Clone(h.Useful)
	return h
}

// Equal reports whether a and b store the same state.
func (h HookState) Equal(o HookState) bool {
	return h.ClaudeSessionID == o.ClaudeSessionID && h.Agent == o.Agent && slices.Equal(h.Seen, o.Seen) && h.FullReadDone == o.FullReadDone &&
		h.PreloadedCount == o.PreloadedCount && slices.Equal(h.Useful, o.Useful) && h.Nudges == o.Nudges &&
		h.LastNudge == o.LastNudge && h.PromptNudges == o.PromptNudges && h.SeenCleared == o.SeenCleared
}

// SeenKey is how the seen set (and the useful marks) name node id of level:
// "u:" or "p:" and the id, so that a user and a project node of one id stay
// apart.
func SeenKey(level domain.Level, id string) string {
	if level == domain.LevelUser {
		return "u:" + id
	}
	return "p:" + id
}

// HookStateField is the name of the stored session field that holds the
// hook state.
const HookStateField = "hook_state"

// hookStateJSON is the stored form of a hook state: a seen set of
// PackFrom keys or more is packed into seen_packed (PackIDs) in place of
// seen. A kg that predates it reads such a state with an empty seen set.
type hookStateJSON struct {
	HookState
	SeenPacked string `json:"seen_packed,omitempty"`
}

// MarshalHookState is the stored form of h: a JSON object; nil for an empty
// state, which is stored as no field at all.
func MarshalHookState(h HookState) (domain.RawJSON, error) {
	if h.Empty() {
		return nil, nil
	}
	j := hookStateJSON{HookState: h}
	if len(h.Seen) >= PackFrom {
		j.SeenPacked, j.Seen = PackIDs(h.Seen), nil
	}
	return json.Marshal(j)
}

// UnmarshalHookState reads the stored form of a hook state.
func UnmarshalHookState(b []byte) (HookState, error) {
	var j hookStateJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return HookState{}, err
	}
	if j.SeenPacked != "" {
		seen, err := UnpackIDs(j.SeenPacked)
		if err != nil {
			return HookState{}, fmt.Errorf("seen_packed: %w", err)
		}
		j.Seen = append(j.Seen, seen...)
	}
	return j.HookState, nil
}
