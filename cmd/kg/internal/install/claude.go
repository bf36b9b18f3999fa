// Package install holds what kg install writes into each agent's settings
// (docs/clients.md): Claude Code's hooks and MCP entry, Codex's hooks,
// MCP entry and hook-trust records, Gemini CLI's hooks and MCP server; it
// tells kg's own entries from the user's whatever the kg binary is named,
// and keeps the user's key order (docs/decisions/0100-cmd-kg-rooms.md).
package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kg-memory/kg/cmd/kg/internal/atomicfile"
)

// claudeHooks are kg's hooks in Claude Code's settings
// (docs/design/hooks.md#kg-install-claude-code): the plugin's
// hooks/hooks.json holds the same four, and a test keeps them equal.
// Timeouts are the seconds Claude Code waits, above kg hook's own deadline.
// PostToolUse sees the edits too, which are what a stop counts as work
// (docs/design/hooks.md#capture-before-forgetting).
var claudeHooks = []agentHook{
	{event: "SessionStart", arg: "session-start", timeout: 5},
	{event: "UserPromptSubmit", arg: "prompt", timeout: 2},
	{event: "PostToolUse", matcher: "Read|WebFetch|WebSearch|Edit|Write|MultiEdit|NotebookEdit", arg: "tool-event", timeout: 2},
	{event: "Stop", arg: "stop", timeout: 2},
}

// kgHookCommand matches the command of a hook kg adds: an executable (a
// path as ShellQuote writes it, quoted or bare) running `hook <event>`.
// Whether the executable is a kg is HookOwner's to say.
var kgHookCommand = regexp.MustCompile(`^('(?:[^']|'\\'')*'|[^\s']+) hook (session-start|prompt|tool-event|stop)(?: .*)?$`)

// KGExecutable tells a kg binary, whatever it is named: an executable
// named kg-something (kg, kg-v2, kg.exe) or the very file install writes
// now (a kg renamed anything).
type KGExecutable struct {
	self string // the executable install writes into the settings
}

// is reports whether the executable at exe is a kg.
func (k KGExecutable) is(exe string) bool {
	if strings.HasPrefix(strings.ToLower(filepath.Base(exe)), "kg") {
		return true
	}
	a, errA := os.Stat(exe)
	b, errB := os.Stat(k.self)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// HookOwner tells kg's own hooks from the user's, whatever the kg binary is
// named: a hook is kg's when its command runs `hook` with the event install
// writes for that Claude Code event, through a KGExecutable. Only such hooks
// are replaced or removed; every other hook is the user's.
type HookOwner struct{ kg KGExecutable }

// owns reports whether hook x, found under the event whose kg hook runs
// `hook arg`, is kg's.
func (o HookOwner) owns(x any, arg string) bool {
	m, _ := x.(map[string]any)
	cmd, _ := m["command"].(string)
	sub := kgHookCommand.FindStringSubmatch(cmd)
	if m["type"] != "command" || sub == nil || sub[2] != arg {
		return false
	}
	return o.kg.is(shellUnquote(sub[1]))
}

// shellUnquote undoes ShellQuote.
func shellUnquote(word string) string {
	if len(word) >= 2 && strings.HasPrefix(word, "'") && strings.HasSuffix(word, "'") {
		return strings.ReplaceAll(word[1:len(word)-1], `'\''`, "'")
	}
	return word
}

// claudeMCPName is the name of kg's entry under mcpServers.
const claudeMCPName = "kg"

// fileEdit is one settings file install changes, and how: edit changes
// the decoded file and returns the changes, and a note when it kept
// something and why.
type fileEdit struct {
	path string
	edit func(doc map[string]any) (changes []string, note string)
}

// pendingEdit is a file read and changed in memory, not yet written.
type pendingEdit struct {
	path    string
	doc     map[string]any
	order   *keyOrder
	mode    fs.FileMode
	changes []string
}

// ClaudeEdits are the two files install (or uninstall) changes for Claude
// Code: the hooks in settings.json and the MCP server in ~/.claude.json.
func ClaudeEdits(home, exe string, entry, legacy map[string]any, uninstall bool) []fileEdit {
	kg := KGExecutable{self: exe}
	return []fileEdit{
		{filepath.Join(home, ".claude", "settings.json"), func(doc map[string]any) ([]string, string) {
			if uninstall {
				return removeClaudeHooks(doc, HookOwner{kg}), ""
			}
			return AddClaudeHooks(doc, ShellQuote(exe), HookOwner{kg}), ""
		}},
		{filepath.Join(home, ".claude.json"), func(doc map[string]any) ([]string, string) {
			return editClaudeMCP(doc, entry, mcpOwner{kg, legacy}, uninstall)
		}},
	}
}

// PlanEdits reads and changes every file in memory first, so that a
// damaged file stops the command before anything is written. It returns
// the files that change and the notes of what was kept.
func PlanEdits(edits []fileEdit) (todo []pendingEdit, notes []string, err error) {
	for _, f := range edits {
		doc, order, mode, err := readJSONObject(f.path)
		if err != nil {
			return nil, nil, err
		}
		ch, note := f.edit(doc)
		if note != "" {
			notes = append(notes, note)
		}
		if len(ch) > 0 {
			todo = append(todo, pendingEdit{f.path, doc, order, mode, ch})
		}
	}
	return todo, notes, nil
}

// ApplyEdits prints the notes and each change, then, unless dryRun,
// writes the changed files.
func ApplyEdits(w io.Writer, todo []pendingEdit, notes []string, dryRun, uninstall bool) error {
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	if len(todo) == 0 {
		fmt.Fprintln(w, "Claude Code's settings already say this: nothing to change.")
		return nil
	}
	for _, t := range todo {
		fmt.Fprintf(w, "%s:\n", t.path)
		for _, ch := range t.changes {
			fmt.Fprintf(w, "  %s\n", ch)
		}
	}
	if dryRun {
		fmt.Fprintln(w, "dry run: nothing written.")
		return nil
	}
	for _, t := range todo {
		if err := writeJSONObject(t.path, t.doc, t.order, t.mode); err != nil {
			return err
		}
	}
	if uninstall {
		fmt.Fprintln(w, "Removed. Restart Claude Code for it to take effect.")
	} else {
		fmt.Fprintln(w, "Installed. Restart Claude Code for it to take effect; `kg install claude-code --uninstall` takes it out.")
	}
	return nil
}

// AddClaudeHooks puts kg's hooks into the settings doc: a kg hook already
// there for the event is updated in place, else a group is appended. It
// returns the changes, none when the doc already holds them.
func AddClaudeHooks(doc map[string]any, exe string, owner HookOwner) []string {
	return AddAgentHooks(doc, claudeHooks, exe, "", owner, false)
}

// removeClaudeHooks takes every kg hook out of the settings doc, and the
// groups and events left empty by it; the user's own hooks stay.
func removeClaudeHooks(doc map[string]any, owner HookOwner) []string {
	return RemoveAgentHooks(doc, claudeHooks, owner)
}

// mcpOwner tells an MCP entry kg install wrote from one the user wrote: a
// stdio entry running `mcp` through a KGExecutable, whatever its settings,
// or the http entry an earlier install wrote for this address. Install
// replaces such an entry and uninstall removes it; any other "kg" entry is
// the user's.
type mcpOwner struct {
	kg     KGExecutable
	legacy map[string]any
}

func (o mcpOwner) owns(entry any) bool {
	if JSONEqual(entry, o.legacy) {
		return true
	}
	m, _ := entry.(map[string]any)
	command, _ := m["command"].(string)
	args, _ := m["args"].([]any)
	isStdio := m["type"] == nil || m["type"] == "stdio"
	return isStdio && command != "" && len(args) > 0 && args[0] == "mcp" && o.kg.is(command)
}

// editClaudeMCP adds kg's entry (want) under mcpServers in Claude Code's
// user state (~/.claude.json), replacing one kg install wrote before, or
// removes it. A "kg" entry that owner does not own is the user's: kept
// either way, and said so.
func editClaudeMCP(doc map[string]any, want map[string]any, owner mcpOwner, uninstall bool) (changes []string, note string) {
	servers, _ := doc["mcpServers"].(map[string]any)
	have, exists := servers[claudeMCPName]
	ours := exists && owner.owns(have)
	switch {
	case uninstall && ours:
		delete(servers, claudeMCPName)
		if len(servers) == 0 {
			delete(doc, "mcpServers")
		}
		return []string{"remove mcpServers.kg"}, ""
	case uninstall && exists:
		return nil, "kept mcpServers.kg in ~/.claude.json: it is not one kg install writes"
	case uninstall, exists && JSONEqual(have, want):
		return nil, ""
	case ours:
		servers[claudeMCPName] = want
		return []string{fmt.Sprintf("update mcpServers.kg: %s", CompactJSON(want))}, ""
	case exists:
		return nil, "kept mcpServers.kg in ~/.claude.json: it is not one kg install writes (" + CompactJSON(have) + "); remove it to have kg's"
	}
	if servers == nil {
		servers = map[string]any{}
		doc["mcpServers"] = servers
	}
	servers[claudeMCPName] = want
	return []string{fmt.Sprintf("add mcpServers.kg: %s", CompactJSON(want))}, ""
}

func JSONEqual(a, b any) bool { return CompactJSON(a) == CompactJSON(b) }

func CompactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// readJSONObject reads the JSON object of path: an absent or empty file is
// an empty object; anything else that is not an object is an error naming
// the file, and nothing is written. Numbers stay as written (json.Number:
// a large integer must not come back rounded), and the key order is
// returned for writeJSONObject.
func readJSONObject(path string) (map[string]any, *keyOrder, fs.FileMode, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil, 0o600, nil
	}
	if err != nil {
		return nil, nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	doc := map[string]any{}
	if len(bytes.TrimSpace(b)) == 0 {
		return doc, nil, st.Mode().Perm(), nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	err = dec.Decode(&doc)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s is not a JSON object (%v): fix or move it, then run this again; nothing was changed", path, err)
	}
	return doc, readKeyOrder(b), st.Mode().Perm(), nil
}

// writeJSONObject replaces path with doc, indented, its keys in the order
// they were read (new keys after them), through a temporary file renamed
// over it (atomicfile.Write), so that Claude Code never reads half a file;
// the file keeps its mode.
func writeJSONObject(path string, doc map[string]any, order *keyOrder, mode fs.FileMode) error {
	b, err := marshalInOrder(doc, order)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create the folder of %s: %w", path, err)
	}
	if err := atomicfile.Write(path, append(b, '\n')); err != nil {
		return err
	}
	if err := os.Chmod(path, mode); err != nil {
		return fmt.Errorf("keep the mode of %s: %w", path, err)
	}
	return nil
}

// ShellQuote quotes path for the shell Claude Code runs a hook command in,
// when it needs it.
func ShellQuote(path string) string {
	if path != "" && !strings.ContainsAny(path, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}
