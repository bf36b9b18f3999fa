package main

// kg install codex and kg install gemini (docs/clients.md#codex,
// docs/clients.md#gemini-cli): each agent's MCP server entry, which runs
// `kg mcp` so that it works while no server runs, and its hooks, which run
// `kg hook EVENT --agent AGENT`, merged into the agent's own settings as kg
// install claude-code merges Claude Code's (install.go): the user's settings
// kept, a second run changing nothing, --uninstall taking out exactly what
// install added.

import (
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"
)

// agentHook is one hook kg adds to an agent's hooks: under the agent's
// event, running `kg hook arg --agent AGENT`.
type agentHook struct {
	event   string // the agent's event name
	matcher string // "": every tool or source
	arg     string // kg hook's event
	timeout int    // in the agent's unit (Codex: seconds; Gemini CLI: milliseconds)
}

// codexHooks are kg's hooks in ~/.codex/hooks.json. Codex runs every tool
// as a shell command (Bash), reading files with cat, sed and the like:
// kg hook counts such a read as a Read (hook_agents.go).
var codexHooks = []agentHook{
	{event: "SessionStart", arg: "session-start", timeout: 5},
	{event: "UserPromptSubmit", arg: "prompt", timeout: 2},
	{event: "PostToolUse", matcher: "Bash", arg: "tool-event", timeout: 2},
}

// geminiHooks are kg's hooks in ~/.gemini/settings.json; Gemini CLI gives
// timeouts in milliseconds.
var geminiHooks = []agentHook{
	{event: "SessionStart", arg: "session-start", timeout: 5000},
	{event: "BeforeAgent", arg: "prompt", timeout: 2000},
	{event: "AfterTool", matcher: "read_file|web_fetch|google_web_search", arg: "tool-event", timeout: 2000},
}

// hookCommand is the command of h for agent, running exe (shell-quoted).
func (h agentHook) command(exe string, agent hookAgent) string {
	return exe + " hook " + h.arg + " --agent " + string(agent)
}

// addAgentHooks puts hooks into the hooks object of doc (hooks.json's, or
// Gemini CLI's settings'): a kg hook already under the event is updated in
// place, else a group is appended after the user's. named adds Gemini CLI's
// "name" to each hook. It returns the changes.
func addAgentHooks(doc map[string]any, hooks []agentHook, exe string, agent hookAgent, owner hookOwner, named bool) []string {
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
				if !jsonEqual(x, want) {
					list[i] = want
					changes = append(changes, fmt.Sprintf("update hooks.%s: %s", h.event, want["command"]))
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

// removeAgentHooks takes every kg hook of hooks out of doc, and the groups
// and events left empty by it; the user's own hooks stay.
func removeAgentHooks(doc map[string]any, hooks []agentHook, owner hookOwner) []string {
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

// pendingFile is a settings file read and changed in memory, to be
// written once every file of the install has been read: a damaged file
// stops the command before anything is written.
type pendingFile struct {
	path    string
	changes []string
	write   func() error
}

// jsonPending reads the JSON object at path and applies edit to it.
func jsonPending(path string, edit func(doc map[string]any) []string) (*pendingFile, error) {
	doc, order, mode, err := readJSONObject(path)
	if err != nil {
		return nil, err
	}
	changes := edit(doc)
	return &pendingFile{path: path, changes: changes, write: func() error { return writeJSONObject(path, doc, order, mode) }}, nil
}

// applyPending prints each file's changes, then writes them unless dryRun.
func applyPending(e env, agentName string, files []*pendingFile, notes []string, dryRun, uninstall bool, restart string) error {
	for _, n := range notes {
		fmt.Fprintln(e.stdout, n)
	}
	var todo []*pendingFile
	for _, f := range files {
		if len(f.changes) > 0 {
			todo = append(todo, f)
		}
	}
	if len(todo) == 0 {
		fmt.Fprintf(e.stdout, "%s's settings already say this: nothing to change.\n", agentName)
		return nil
	}
	for _, f := range todo {
		fmt.Fprintf(e.stdout, "%s:\n", f.path)
		for _, ch := range f.changes {
			fmt.Fprintf(e.stdout, "  %s\n", ch)
		}
	}
	if dryRun {
		fmt.Fprintln(e.stdout, "dry run: nothing written.")
		return nil
	}
	for _, f := range todo {
		if err := f.write(); err != nil {
			return err
		}
	}
	if uninstall {
		fmt.Fprintf(e.stdout, "Removed. Restart %s for it to take effect.\n", restart)
	} else {
		fmt.Fprintf(e.stdout, "Installed. Restart %s for it to take effect; `kg install %s --uninstall` takes it out.\n", restart, agentName)
	}
	return nil
}

// installTarget is what an agent's install needs: the kg binary its hooks
// and MCP entry run, quoted for a shell, and the home folder.
type installTarget struct {
	exe, quoted, home string
	owner             hookOwner
}

func newInstallTarget(e env) (installTarget, error) {
	home, err := e.home()
	if err != nil {
		return installTarget{}, fmt.Errorf("find the home folder: %w", err)
	}
	exe, err := e.executable()
	if err != nil {
		return installTarget{}, fmt.Errorf("find the kg binary the hooks will run: %w", err)
	}
	return installTarget{exe: exe, quoted: shellQuote(exe), home: home, owner: hookOwner{kgExecutable{self: exe}}}, nil
}

// mcpEntryRunsKG reports whether an MCP server entry (Codex's or Gemini
// CLI's, decoded) is one kg install writes: `kg mcp` through an executable
// owner counts as kg's, whatever it is named and whatever flags follow
// `mcp` (as for Claude Code's entry, mcpOwner).
func mcpEntryRunsKG(entry map[string]any, owner hookOwner) bool {
	cmd, _ := entry["command"].(string)
	args, _ := entry["args"].([]any)
	if cmd == "" || len(args) == 0 || args[0] != "mcp" {
		return false
	}
	return owner.kg.is(cmd)
}

func newInstallGeminiCommand(e env) *cobra.Command {
	var dryRun, uninstall bool
	c := &cobra.Command{
		Use:   "gemini [--dry-run|--uninstall]",
		Short: "add kg's hooks and MCP server to Gemini CLI's user settings (or take them out)",
		Long: "Merges into ~/.gemini/settings.json the MCP server \"kg\" (running this kg's `kg mcp`, trusted, so its\n" +
			"tools run without a confirmation) and the SessionStart, BeforeAgent and AfterTool hooks that run\n" +
			"`kg hook … --agent gemini`. Every other setting is kept; running it again changes nothing; --dry-run\n" +
			"prints the changes and writes nothing; --uninstall removes only what it added.",
		Args: exactArgs(),
	}
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the changes, write nothing")
	c.Flags().BoolVar(&uninstall, "uninstall", false, "remove kg's hooks and MCP server from Gemini CLI's settings")
	c.RunE = func(c *cobra.Command, _ []string) error {
		t, err := newInstallTarget(e)
		if err != nil {
			return err
		}
		var notes []string
		f, err := jsonPending(filepath.Join(t.home, ".gemini", "settings.json"), func(doc map[string]any) []string {
			changes, note := editGeminiMCP(doc, t, uninstall)
			if note != "" {
				notes = append(notes, note)
			}
			if uninstall {
				return append(changes, removeAgentHooks(doc, geminiHooks, t.owner)...)
			}
			return append(changes, addAgentHooks(doc, geminiHooks, t.quoted, agentGemini, t.owner, true)...)
		})
		if err != nil {
			return err
		}
		return applyPending(e, "gemini", []*pendingFile{f}, notes, dryRun, uninstall, "Gemini CLI")
	}
	return c
}

// editGeminiMCP adds kg's entry under mcpServers, or removes it; a "kg"
// entry that does not run kg mcp is the user's, kept and said so.
func editGeminiMCP(doc map[string]any, t installTarget, uninstall bool) ([]string, string) {
	want := map[string]any{"command": t.exe, "args": []any{"mcp"}, "trust": true}
	servers, _ := doc["mcpServers"].(map[string]any)
	have, exists := servers[claudeMCPName].(map[string]any)
	ours := exists && mcpEntryRunsKG(have, t.owner)
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
	case ours && jsonEqual(have, want):
		return nil, ""
	case exists && !ours:
		return nil, "kept mcpServers.kg in ~/.gemini/settings.json: it is not the one kg install writes (" + compactJSON(have) + "); remove it to have kg's"
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
	return []string{fmt.Sprintf("%s mcpServers.kg: %s", verb, compactJSON(want))}, ""
}

// fileMode is the mode of a new settings file.
const fileMode fs.FileMode = 0o600

// installable are the agents kg install knows, by the program each runs as.
var installable = []struct{ agent, program string }{
	{"claude-code", "claude"},
	{"codex", "codex"},
	{"gemini", "gemini"},
}

// listInstallable is `kg install` alone: each agent it knows, whether its
// program is on PATH, and for one that is, what its install would change
// (its --dry-run).
func listInstallable(c *cobra.Command, e env, args []string) error {
	if len(args) > 0 {
		return wantSubcommand(c, args)
	}
	for _, a := range installable {
		path, err := exec.LookPath(a.program)
		if err != nil {
			fmt.Fprintf(e.stdout, "%s: %s is not on PATH; `kg install %s` sets it up anyway.\n\n", a.agent, a.program, a.agent)
			continue
		}
		fmt.Fprintf(e.stdout, "%s: found %s; `kg install %s` would change:\n", a.agent, path, a.agent)
		sub, _, err := c.Find([]string{a.agent})
		if err != nil || sub == c {
			return fmt.Errorf("kg install %s: %v", a.agent, err)
		}
		if err := sub.Flags().Set("dry-run", "true"); err != nil {
			return err
		}
		if err := sub.RunE(sub, nil); err != nil {
			return fmt.Errorf("kg install %s --dry-run: %w", a.agent, err)
		}
		fmt.Fprintln(e.stdout)
	}
	return nil
}
