package install

// kg install codex (docs/clients.md#codex): kg's hooks in Codex's
// hooks.json, and in its config.toml the MCP server entry and the trust of
// those hooks. Codex 0.171 runs a user hook only once the person has
// reviewed it: it records the review as [hooks.state."KEY"] trusted_hash in
// config.toml, KEY naming the hook by file, event and position, the hash
// being that of the hook's normalized definition. Running kg install codex
// is that review, so install writes the same record for kg's hooks, and
// --uninstall takes it out with them (docs/decisions/0093-codex-hook-trust.md).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/kg-memory/kg/cmd/kg/internal/atomicfile"
)

// codexEventLabels are Codex's names of its events in a hook's trust key
// and hash.
var codexEventLabels = map[string]string{
	"SessionStart":     "session_start",
	"UserPromptSubmit": "user_prompt_submit",
	"PostToolUse":      "post_tool_use",
	"Stop":             "stop",
}

// codexMatcherApplies reports whether Codex reads a matcher for event: it
// ignores one on prompts and stops, and hashes the hook without it.
func codexMatcherApplies(event string) bool {
	return event != "UserPromptSubmit" && event != "Stop"
}

// CodexHookHash is the hash Codex gives a command hook: SHA-256 of the
// canonical JSON (keys sorted, no spaces) of the hook's normalized
// identity — its event's label, its group's matcher, and the hook alone
// with its timeout and async set.
func CodexHookHash(event, matcher, command string, timeout int) string {
	identity := map[string]any{
		"event_name": codexEventLabels[event],
		"hooks":      []any{map[string]any{"type": "command", "command": command, "timeout": timeout, "async": false}},
	}
	if matcher != "" && codexMatcherApplies(event) {
		identity["matcher"] = matcher
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // serde_json does not escape <, > and &
	_ = enc.Encode(identity) // map keys come sorted
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CodexTrust is the trust record of one hook: its key and hash.
type CodexTrust struct{ key, hash string }

// CodexHookTrusts are the trust records of kg's hooks as they stand in the
// hooks document at hooksPath: the key names a hook by its position.
func CodexHookTrusts(doc map[string]any, hooksPath string, owner HookOwner) []CodexTrust {
	all, _ := doc["hooks"].(map[string]any)
	var out []CodexTrust
	for _, h := range CodexHooks {
		groups, _ := all[h.event].([]any)
		for gi, g := range groups {
			gm, _ := g.(map[string]any)
			matcher, _ := gm["matcher"].(string)
			list, _ := gm["hooks"].([]any)
			for hi, x := range list {
				if !owner.owns(x, h.arg) {
					continue
				}
				m := x.(map[string]any)
				cmd, _ := m["command"].(string)
				timeout := 600
				if n, err := strconv.Atoi(fmt.Sprint(m["timeout"])); err == nil && n > 0 {
					timeout = n
				}
				key := fmt.Sprintf("%s:%s:%d:%d", hooksPath, codexEventLabels[h.event], gi, hi)
				out = append(out, CodexTrust{key: key, hash: CodexHookHash(h.event, matcher, cmd, timeout)})
			}
		}
	}
	return out
}

// codexMCPTable is the [mcp_servers.kg] table install writes.
func codexMCPTable(exe string) string {
	return "[mcp_servers.kg]\ncommand = " + tomlString(exe) + "\nargs = [\"mcp\"]\ndefault_tools_approval_mode = \"approve\"\n"
}

// codexTrustHeader is the header of a hook's trust table.
func codexTrustHeader(key string) string { return "[hooks.state." + tomlString(key) + "]" }

// CodexConfigPending reads config.toml and plans its change: the MCP entry
// added (or, uninstalling, removed when it is kg's), kg's hooks' trust
// tables written for trusts and removed for the stale ones install wrote
// before. The file is edited as text, table by table, so that every other
// line stays as the person wrote it; a file that is not TOML stops the
// command.
func CodexConfigPending(path string, t Target, trusts, stale []CodexTrust, uninstall bool) (*PendingFile, string, error) {
	text, mode, err := readTextFile(path)
	if err != nil {
		return nil, "", err
	}
	var parsed map[string]any
	if _, err := toml.Decode(text, &parsed); err != nil {
		return nil, "", fmt.Errorf("%s is not TOML (%v): fix or move it, then run this again; nothing was changed", path, err)
	}
	var changes []string
	note := ""
	servers, _ := parsed["mcp_servers"].(map[string]any)
	entry, exists := servers["kg"].(map[string]any)
	ours := exists && mcpEntryRunsKG(entry, t.Owner)
	header := "[mcp_servers.kg]"
	switch {
	case uninstall && ours:
		if next, ok := removeTOMLTable(text, header); ok {
			text = next
			changes = append(changes, "remove [mcp_servers.kg]")
		}
	case uninstall && exists:
		note = "kept [mcp_servers.kg] in " + path + ": it is not the one kg install writes"
	case uninstall:
	case exists && !ours:
		note = "kept [mcp_servers.kg] in " + path + ": it is not the one kg install writes; remove it to have kg's"
	default:
		want := codexMCPTable(t.Exe)
		if tomlTableText(text, header) != want {
			if next, ok := removeTOMLTable(text, header); ok {
				text = next
			}
			text = appendTOMLTable(text, want)
			changes = append(changes, "add [mcp_servers.kg]: "+t.Exe+" mcp, its tools approved")
		}
	}
	keep := map[string]bool{}
	for _, tr := range trusts {
		keep[tr.key] = true
		want := codexTrustHeader(tr.key) + "\ntrusted_hash = " + tomlString(tr.hash) + "\n"
		if tomlTableText(text, codexTrustHeader(tr.key)) == want {
			continue
		}
		if next, ok := removeTOMLTable(text, codexTrustHeader(tr.key)); ok {
			text = next
		}
		text = appendTOMLTable(text, want)
		changes = append(changes, "trust hook "+tr.key)
	}
	for _, tr := range stale {
		if keep[tr.key] {
			continue
		}
		if next, ok := removeTOMLTable(text, codexTrustHeader(tr.key)); ok {
			text = next
			changes = append(changes, "remove the trust of hook "+tr.key)
		}
	}
	final := text
	return &PendingFile{path: path, changes: changes, write: func() error {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("create the folder of %s: %w", path, err)
		}
		if err := atomicfile.Write(path, []byte(final)); err != nil {
			return err
		}
		return os.Chmod(path, mode)
	}}, note, nil
}

// readTextFile reads path: an absent file is empty, with the mode a new
// settings file gets.
func readTextFile(path string) (string, fs.FileMode, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fileMode, nil
	}
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", path, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", path, err)
	}
	return string(b), st.Mode().Perm(), nil
}

// tomlString is s as a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// tomlTableSpan is where the table with header starts and ends in text:
// from its header line to the next table's header (or the end), the
// blank lines before that header left out; ok is false when text has no
// such header line.
func tomlTableSpan(text, header string) (start, end int, ok bool) {
	lines := strings.SplitAfter(text, "\n")
	pos, in := 0, false
	lastBody := 0
	for _, l := range lines {
		trimmed := strings.TrimSpace(l)
		switch {
		case !in && trimmed == header:
			start, in, ok = pos, true, true
			lastBody = pos + len(l)
		case in && strings.HasPrefix(trimmed, "["):
			return start, lastBody, true
		case in && trimmed != "":
			lastBody = pos + len(l)
		}
		pos += len(l)
	}
	if in {
		return start, lastBody, true
	}
	return 0, 0, false
}

// tomlTableText is the text of the table with header, "" when absent.
func tomlTableText(text, header string) string {
	s, e, ok := tomlTableSpan(text, header)
	if !ok {
		return ""
	}
	return text[s:e]
}

// removeTOMLTable takes the table with header out of text, with the blank
// line install put before it.
func removeTOMLTable(text, header string) (string, bool) {
	s, e, ok := tomlTableSpan(text, header)
	if !ok {
		return text, false
	}
	before := text[:s]
	if strings.HasSuffix(before, "\n\n") {
		before = before[:len(before)-1]
	}
	return before + text[e:], true
}

// appendTOMLTable adds table at the end of text, after a blank line.
func appendTOMLTable(text, table string) string {
	switch {
	case text == "":
		return table
	case strings.HasSuffix(text, "\n"):
		return text + "\n" + table
	}
	return text + "\n\n" + table
}
