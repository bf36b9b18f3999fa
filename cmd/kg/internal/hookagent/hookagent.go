// Package hookagent holds the agents kg hook speaks for
// (docs/clients.md#what-each-agent-supports): each agent's hook input is read
// into the shape of Claude Code's, which the hook routes take
// (docs/design/hooks.md), and the routes' answer is printed in the shape that
// agent expects. Codex's hook protocol is Claude Code's (the same field names,
// events and outputs, and it refuses unknown output fields); Gemini CLI names
// its events otherwise and its tools are its own.
package hookagent

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Agent is an agent whose hooks run kg hook.
type Agent string

const (
	ClaudeCode Agent = "claude-code"
	Codex      Agent = "codex"
	Gemini     Agent = "gemini"
)

// Agents are the values of kg hook --agent.
var Agents = []Agent{ClaudeCode, Codex, Gemini}

// Parse checks a --agent value; "" is detection from the input.
func Parse(s string) (Agent, error) {
	for _, a := range Agents {
		if string(a) == s {
			return a, nil
		}
	}
	if s == "" {
		return "", nil
	}
	return "", fmt.Errorf("--agent %q: want claude-code, codex or gemini", s)
}

// GeminiEvents are Gemini CLI's names of the events kg hooks into, by kg
// hook's event (Gemini CLI has no stop event that may speak to the model
// only once, and no prompt submit by that name).
var GeminiEvents = map[string]string{
	"session-start": "SessionStart",
	"prompt":        "BeforeAgent",
	"tool-event":    "AfterTool",
}

// ClaudeEvents are Claude Code's (and Codex's) names of the same events.
var ClaudeEvents = map[string]string{
	"session-start": "SessionStart",
	"prompt":        "UserPromptSubmit",
	"tool-event":    "PostToolUse",
	"stop":          "Stop",
}

// Input is the part of any agent's hook input kg reads.
type Input struct {
	SessionID      string          `json:"session_id"`
	CWD            string          `json:"cwd"`
	Source         string          `json:"source"`
	TranscriptPath *string         `json:"transcript_path"`
	HookEventName  string          `json:"hook_event_name"`
	Prompt         string          `json:"prompt"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	StopHookActive bool            `json:"stop_hook_active"`
	// Fields only some agents send, for detection.
	TurnID    *string `json:"turn_id"`
	Timestamp *string `json:"timestamp"`
}

// Detect tells the agent from the shape of its hook input: Gemini CLI
// stamps every input with a timestamp and names its events its own way;
// Codex sends a turn id with every turn-scoped event and, at session start,
// a transcript that is a rollout file or none; anything else is Claude
// Code's.
func Detect(in Input) Agent {
	switch in.HookEventName {
	case "BeforeAgent", "AfterAgent", "BeforeTool", "AfterTool", "BeforeModel", "AfterModel", "PreCompress", "BeforeToolSelection":
		return Gemini
	}
	if in.Timestamp != nil {
		return Gemini
	}
	if in.TurnID != nil {
		return Codex
	}
	if in.HookEventName == "SessionStart" && (in.TranscriptPath == nil || strings.HasPrefix(filepath.Base(*in.TranscriptPath), "rollout-")) {
		return Codex
	}
	return ClaudeCode
}

// RouteBody is a hook input in Claude Code's shape, what the hook routes
// read.
type RouteBody struct {
	SessionID      string    `json:"session_id"`
	CWD            string    `json:"cwd"`
	Prompt         string    `json:"prompt,omitempty"`
	StopHookActive bool      `json:"stop_hook_active,omitempty"`
	ToolName       string    `json:"tool_name,omitempty"`
	ToolInput      ToolInput `json:"tool_input"`
}

type ToolInput struct {
	FilePath string `json:"file_path,omitempty"`
	URL      string `json:"url,omitempty"`
	Query    string `json:"query,omitempty"`
}

// RouteBodyOf is agent's hook input as the routes read it: its tool, when
// it is one kg counts, named as Claude Code names it (a file read is Read,
// a fetch WebFetch, a web search WebSearch), with that tool's target.
func RouteBodyOf(agent Agent, in Input) RouteBody {
	b := RouteBody{SessionID: in.SessionID, CWD: in.CWD, Prompt: in.Prompt, StopHookActive: in.StopHookActive, ToolName: in.ToolName}
	var raw map[string]any
	_ = json.Unmarshal(in.ToolInput, &raw)
	str := func(k string) string { s, _ := raw[k].(string); return s }
	switch agent {
	case ClaudeCode:
		b.ToolInput = ToolInput{FilePath: str("file_path"), URL: str("url"), Query: str("query")}
	case Codex:
		// Codex edits files with apply_patch (its tool_input.command is the
		// patch): an edit, as the stop's "did work" counts it.
		if in.ToolName == "apply_patch" {
			b.ToolName = "Edit"
		}
		// Codex reads files through its shell: a plain reading command of
		// one file under cwd is a Read of it.
		if in.ToolName == "Bash" || in.ToolName == "shell" || in.ToolName == "exec_command" {
			if p := shellReadTarget(str("command"), in.CWD); p != "" {
				b.ToolName, b.ToolInput = "Read", ToolInput{FilePath: p}
			}
		}
	case Gemini:
		// Gemini CLI without a terminal puts the session start's context in
		// front of the first prompt, inside <hook_context>: kg's own preload
		// is not what the person asked.
		b.Prompt = strings.TrimSpace(geminiHookContext.ReplaceAllString(in.Prompt, ""))
		switch in.ToolName {
		case "read_file":
			if p := str("file_path"); p != "" {
				b.ToolName, b.ToolInput = "Read", ToolInput{FilePath: absUnder(in.CWD, p)}
			}
		case "web_fetch":
			if u := firstURL.FindString(str("prompt")); u != "" {
				b.ToolName, b.ToolInput = "WebFetch", ToolInput{URL: u}
			}
		case "google_web_search":
			b.ToolName, b.ToolInput = "WebSearch", ToolInput{Query: str("query")}
		}
	}
	return b
}

var (
	firstURL          = regexp.MustCompile(`https?://[^\s"'<>]+`)
	geminiHookContext = regexp.MustCompile(`(?s)<hook_context>.*?</hook_context>`)
)

// absUnder is p made absolute against cwd.
func absUnder(cwd, p string) string {
	if filepath.IsAbs(p) || cwd == "" {
		return p
	}
	return filepath.Join(cwd, p)
}

// readCommands are the shell commands whose file arguments are read and
// nothing else.
var readCommands = map[string]bool{"cat": true, "head": true, "tail": true, "sed": true, "nl": true, "less": true, "more": true, "bat": true}

// shellReadTarget is the file a shell command reads, "" when it is not a
// plain read of one existing file: a reading command (readCommands),
// possibly inside `bash -lc '…'`, with no pipe, redirect or second command,
// whose one argument naming a regular file is that file.
func shellReadTarget(command, cwd string) string {
	if strings.Contains(command, "`") || strings.Contains(command, "$(") {
		return "" // runs more than a read
	}
	words := commandWords(command)
	if len(words) == 3 && (words[0] == "bash" || words[0] == "sh" || words[0] == "zsh") && (words[1] == "-lc" || words[1] == "-c") {
		words = commandWords(words[2])
	}
	if len(words) < 2 || !readCommands[filepath.Base(words[0])] {
		return ""
	}
	found := ""
	for _, w := range words[1:] {
		if len(w) == 1 && strings.ContainsAny(w, "|;&<>") {
			return "" // a pipe, a redirect or a second command
		}
		if strings.HasPrefix(w, "-") {
			continue
		}
		p := absUnder(cwd, w)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			if found != "" {
				return "" // two files: not a read of one
			}
			found = p
		}
	}
	return found
}

// commandWords splits a command line into words, honouring single and
// double quotes; an operator (| ; & < >) outside quotes is a word of its
// own, so that shellReadTarget sees it.
func commandWords(s string) []string {
	var words []string
	var cur strings.Builder
	in := false
	var quote rune
	flush := func() {
		if in {
			words = append(words, cur.String())
			cur.Reset()
			in = false
		}
	}
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			flush()
		case strings.ContainsRune("|;&<>", r):
			flush()
			words = append(words, string(r))
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	flush()
	return words
}

// Output is what agent expects printed for event, with text for the
// model (and, at a session start, message for the person). Claude Code and
// Codex read hookSpecificOutput named by their event; Gemini CLI reads the
// same fields under its own event names.
func Output(agent Agent, event, text, message string) ([]byte, error) {
	name := ClaudeEvents[event]
	if agent == Gemini {
		name = GeminiEvents[event]
	}
	out := map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": name, "additionalContext": text}}
	if message != "" {
		out["systemMessage"] = message
	}
	b, err := json.Marshal(out)
	return append(b, '\n'), err
}

// StopOutput is what agent expects printed at a stop to have the model
// continue with reason as its next instruction: Claude Code's and Codex's
// Stop read {"decision":"block","reason":…}. Gemini CLI has no stop event
// that speaks to the model once (docs/clients.md#what-each-agent-supports):
// nil, nothing printed.
func StopOutput(agent Agent, reason string) ([]byte, error) {
	if agent == Gemini || reason == "" {
		return nil, nil
	}
	b, err := json.Marshal(map[string]string{"decision": "block", "reason": reason})
	return append(b, '\n'), err
}

// BootstrapQuery is the session start's query of GET /api/session_bootstrap.
func BootstrapQuery(in Input) url.Values {
	transcript := ""
	if in.TranscriptPath != nil {
		transcript = *in.TranscriptPath
	}
	return url.Values{"project_path": {in.CWD}, "claude_session_id": {in.SessionID}, "source": {in.Source},
		"transcript_path": {transcript}}
}
