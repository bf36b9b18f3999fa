package hooks

import (
	"slices"

	"github.com/kg-memory/kg/app/hookstate"
	"github.com/kg-memory/kg/domain"
)

// The agent a session's hooks run in (docs/design/hooks.md#session-binding):
// kg hook sends it at a session start (--agent, else told by the input's
// shape), and the session keeps it with its hook state, so that the page
// names the session by it outside team mode too
// (docs/design/http.md#sessions-named-for-a-person).

// Agents are the agents a session start may name, as kg hook --agent does.
var Agents = []string{"claude-code", "codex", "gemini"}

// checkAgent refuses an agent kg hook does not name; "" is none said.
func checkAgent(agent string) error {
	if agent == "" || slices.Contains(Agents, agent) {
		return nil
	}
	return domain.Invalidf("agent", "%q is not one of claude-code, codex, gemini", agent)
}

// noteAgent records agent as the agent of session id; "" leaves what it has.
func (h *Hooks) noteAgent(id, agent string) {
	if agent == "" {
		return
	}
	h.sessions.WithHooks(id, func(st *hookstate.State) bool {
		if st.Agent == agent {
			return false
		}
		st.Agent = agent
		return true
	})
}
