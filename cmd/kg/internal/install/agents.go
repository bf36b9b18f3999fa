package install

// kg install codex and kg install gemini (docs/clients.md#codex,
// docs/clients.md#gemini-cli): each agent's MCP server entry, which runs
// `kg mcp` so that it works while no server runs, and its hooks, which run
// `kg hook EVENT --agent AGENT`, merged into the agent's own settings as kg
// install claude-code merges Claude Code's (install.go): the user's settings
// kept, a second run changing nothing, --uninstall taking out exactly what
// install added.

import (
	"fmt"
	"io"
	"io/fs"
)

// agentHook is one hook kg adds to an agent's hooks: under the agent's
// event, running `kg hook arg` (with `--agent AGENT` for Codex and Gemini CLI).
type agentHook struct {
	event   string // the agent's event name
	matcher string // "": every tool or source
	arg     string // kg hook's event
	timeout int    // in the agent's unit (Codex: seconds; Gemini CLI: milliseconds)
}

// CodexHooks are kg's hooks in ~/.codex/hooks.json. Codex runs every tool
// as a shell command (Bash), reading files with cat, sed and the like:
// kg hook counts such a read as a Read (cmd/kg/internal/hookagent); it
// edits files with apply_patch, an edit for the stop's "did work"
// (docs/design/hooks.md#capture-before-forgetting).
var CodexHooks = []agentHook{
	{event: "SessionStart", arg: "session-start", timeout: 5},
	{event: "UserPromptSubmit", arg: "prompt", timeout: 2},
	{event: "PostToolUse", matcher: "Bash|apply_patch", arg: "tool-event", timeout: 2},
	{event: "Stop", arg: "stop", timeout: 2},
}

// GeminiHooks are kg's hooks in ~/.gemini/settings.json; Gemini CLI gives
// timeouts in milliseconds.
var GeminiHooks = []agentHook{
	{event: "SessionStart", arg: "session-start", timeout: 5000},
	{event: "BeforeAgent", arg: "prompt", timeout: 2000},
	{event: "AfterTool", matcher: "read_file|web_fetch|google_web_search", arg: "tool-event", timeout: 2000},
}

// command is the command of h for agent, running exe (shell-quoted);
// Claude Code's hooks (agent "") name no agent: kg hook's input is its shape.
func (h agentHook) command(exe string, agent string) string {
	if agent == "" {
		return exe + " hook " + h.arg
	}
	return exe + " hook " + h.arg + " --agent " + agent
}

// AddAgentHooks puts hooks into the hooks object of doc (Claude Code's settings, Codex's hooks.json or
// Gemini CLI's settings'): a kg hook already under the event is updated in
// place, with its group's matcher when the group holds it alone (an earlier
// install's narrower matcher is widened; a group the user shares with kg
// keeps theirs), else a group is appended after the user's. named adds
// Gemini CLI's "name" to each hook. It returns the changes.
func AddAgentHooks(doc map[string]any, hooks []agentHook, exe string, agent string, owner HookOwner, named bool) []string {
	var changes []string
	all, _ := doc["hooks"].(map[string]any)
	if all == nil {
		all = map[string]any{}
	}
	for _, h := range hooks {
		want := map[string]any{"type": "command", "command": h.command(exe, agent), "timeout": float64(h.timeout)}
		if named {
			want["name"] = "kg-" + h.arg
		}
		groups, _ := all[h.event].([]any)
		found := false
		for _, g := range groups {
			gm, _ := g.(map[string]any)
			list, _ := gm["hooks"].([]any)
			for i, x := range list {
				if !owner.owns(x, h.arg) {
					continue
				}
				found = true
				if !JSONEqual(x, want) {
					list[i] = want
					changes = append(changes, fmt.Sprintf("update hooks.%s: %s", h.event, want["command"]))
				}
				if len(list) == 1 && h.matcher != "" && gm["matcher"] != h.matcher {
					gm["matcher"] = h.matcher
					changes = append(changes, fmt.Sprintf("update hooks.%s matcher: %s", h.event, h.matcher))
				}
			}
		}
		if !found {
			g := map[string]any{"hooks": []any{want}}
			if h.matcher != "" {
				g["matcher"] = h.matcher
			}
			all[h.event] = append(groups, g)
			changes = append(changes, fmt.Sprintf("add hooks.%s: %s", h.event, want["command"]))
		}
	}
	doc["hooks"] = all
	return changes
}

// RemoveAgentHooks takes every kg hook of hooks out of doc, and the groups
// and events left empty by it; the user's own hooks stay.
func RemoveAgentHooks(doc map[string]any, hooks []agentHook, owner HookOwner) []string {
	all, _ := doc["hooks"].(map[string]any)
	if all == nil {
		return nil
	}
	var changes []string
	for _, h := range hooks {
		groups, ok := all[h.event].([]any)
		if !ok {
			continue
		}
		var keep []any
		for _, g := range groups {
			gm, ok := g.(map[string]any)
			list, _ := gm["hooks"].([]any)
			if !ok || len(list) == 0 {
				keep = append(keep, g)
				continue
			}
			var left []any
			for _, x := range list {
				if owner.owns(x, h.arg) {
					changes = append(changes, fmt.Sprintf("remove hooks.%s: %s", h.event, x.(map[string]any)["command"]))
					continue
				}
				left = append(left, x)
			}
			if len(left) > 0 {
				gm["hooks"] = left
				keep = append(keep, gm)
			}
		}
		if len(keep) == 0 {
			delete(all, h.event)
		} else {
			all[h.event] = keep
		}
	}
	if len(all) == 0 {
		delete(doc, "hooks")
	}
	return changes
}

// PendingFile is a settings file read and changed in memory, to be
// written once every file of the install has been read: a damaged file
// stops the command before anything is written.
type PendingFile struct {
	path    string
	changes []string
	write   func() error
}

// JSONPending reads the JSON object at path and applies edit to it.
func JSONPending(path string, edit func(doc map[string]any) []string) (*PendingFile, error) {
	doc, order, mode, err := readJSONObject(path)
	if err != nil {
		return nil, err
	}
	changes := edit(doc)
	return &PendingFile{path: path, changes: changes, write: func() error { return writeJSONObject(path, doc, order, mode) }}, nil
}

// ApplyPending prints each file's changes, then writes them unless dryRun.
func ApplyPending(w io.Writer, agentName string, files []*PendingFile, notes []string, dryRun, uninstall bool, restart string) error {
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	var todo []*PendingFile
	for _, f := range files {
		if len(f.changes) > 0 {
			todo = append(todo, f)
		}
	}
	if len(todo) == 0 {
		fmt.Fprintf(w, "%s's settings already say this: nothing to change.\n", agentName)
		return nil
	}
	for _, f := range todo {
		fmt.Fprintf(w, "%s:\n", f.path)
		for _, ch := range f.changes {
			fmt.Fprintf(w, "  %s\n", ch)
		}
	}
	if dryRun {
		fmt.Fprintln(w, "dry run: nothing written.")
		return nil
	}
	for _, f := range todo {
		if err := f.write(); err != nil {
			return err
		}
	}
	if uninstall {
		fmt.Fprintf(w, "Removed. Restart %s for it to take effect.\n", restart)
	} else {
		fmt.Fprintf(w, "Installed. Restart %s for it to take effect; `kg install %s --uninstall` takes it out.\n", restart, agentName)
	}
	return nil
}

// Target is what an agent's install needs: the kg binary its hooks
// and MCP entry run, quoted for a shell, and the home folder.
type Target struct {
	Exe, Quoted, Home string
	Owner             HookOwner
}

// NewTarget is the Target of the kg binary exe and the home folder home.
func NewTarget(home, exe string) Target {
	return Target{Exe: exe, Quoted: ShellQuote(exe), Home: home, Owner: HookOwner{KGExecutable{self: exe}}}
}

// mcpEntryRunsKG reports whether an MCP server entry (Codex's or Gemini
// CLI's, decoded) is one kg install writes: `kg mcp` through an executable
// owner counts as kg's, whatever it is named and whatever flags follow
// `mcp` (as for Claude Code's entry, mcpOwner).
func mcpEntryRunsKG(entry map[string]any, owner HookOwner) bool {
	cmd, _ := entry["command"].(string)
	args, _ := entry["args"].([]any)
	if cmd == "" || len(args) == 0 || args[0] != "mcp" {
		return false
	}
	return owner.kg.is(cmd)
}

// EditGeminiMCP adds kg's entry under mcpServers, or removes it; a "kg"
// entry that does not run kg mcp is the user's, kept and said so.
func EditGeminiMCP(doc map[string]any, t Target, uninstall bool) ([]string, string) {
	want := map[string]any{"command": t.Exe, "args": []any{"mcp"}, "trust": true}
	servers, _ := doc["mcpServers"].(map[string]any)
	have, exists := servers[claudeMCPName].(map[string]any)
	ours := exists && mcpEntryRunsKG(have, t.Owner)
	switch {
	case uninstall && ours:
		delete(servers, claudeMCPName)
		if len(servers) == 0 {
			delete(doc, "mcpServers")
		}
		return []string{"remove mcpServers.kg"}, ""
	case uninstall && exists:
		return nil, "kept mcpServers.kg in ~/.gemini/settings.json: it is not the one kg install writes"
	case uninstall:
		return nil, ""
	case ours && JSONEqual(have, want):
		return nil, ""
	case exists && !ours:
		return nil, "kept mcpServers.kg in ~/.gemini/settings.json: it is not the one kg install writes (" + CompactJSON(have) + "); remove it to have kg's"
	}
	if servers == nil {
		servers = map[string]any{}
		doc["mcpServers"] = servers
	}
	verb := "add"
	if exists {
		verb = "update"
	}
	servers[claudeMCPName] = want
	return []string{fmt.Sprintf("%s mcpServers.kg: %s", verb, CompactJSON(want))}, ""
}

// fileMode is the mode of a new settings file.
const fileMode fs.FileMode = 0o600
