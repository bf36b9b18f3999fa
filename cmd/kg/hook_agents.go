package main

// The agents kg hook speaks for (docs/clients.md#what-each-agent-supports):
// each agent's hook input is read into the shape of Claude Code's, which the
// hook routes take (docs/design/hooks.md), and the routes' answer is printed
// in the shape that agent expects. Codex's hook protocol is Claude Code's
// (the same field names, events and outputs, and it refuses unknown output
// fields); Gemini CLI names its events otherwise and its tools are its own.

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// hookAgent is an agent whose hooks run kg hook.
type hookAgent string

const (
	agentClaudeCode hookAgent = "claude-code"
	agentCodex      hookAgent = "codex"
	agentGemini     hookAgent = "gemini"
)

// hookAgents are the values of kg hook --agent.
var hookAgents = []hookAgent{agentClaudeCode, agentCodex, agentGemini}

// parseHookAgent checks a --agent value; "" is detection from the input.
func parseHookAgent(s string) (hookAgent, error) {
	for _, a := range hookAgents {
		if string(a) == s {
			return a, nil
		}
	}
	if s == "" {
		return "", nil
	}
	return "", fmt.Errorf("--agent %q: want claude-code, codex or gemini", s)
}

// geminiEvents are Gemini CLI's names of the events kg hooks into, by kg
// hook's event (Gemini CLI has no stop event that may speak to the model
// only once, and no prompt submit by that name).
var geminiEvents = map[string]string{
	"session-start": "SessionStart",
	"prompt":        "BeforeAgent",
	"tool-event":    "AfterTool",
}

// claudeEvents are Claude Code's (and Codex's) names of the same events.
var claudeEvents = map[string]string{
	"session-start": "SessionStart",
	"prompt":        "UserPromptSubmit",
	"tool-event":    "PostToolUse",
	"stop":          "Stop",
}

// agentInput is the part of any agent's hook input kg reads.
type agentInput struct {
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

// detectAgent tells the agent from the shape of its hook input: Gemini CLI
// stamps every input with a timestamp and names its events its own way;
// Codex sends a turn id with every turn-scoped event and, at session start,
// a transcript that is a rollout file or none; anything else is Claude
// Code's.
func detectAgent(in agentInput) hookAgent {
	switch in.HookEventName {
	case "BeforeAgent", "AfterAgent", "BeforeTool", "AfterTool", "BeforeModel", "AfterModel", "PreCompress", "BeforeToolSelection":
		return agentGemini
	}
	if in.Timestamp != nil {
		return agentGemini
	}
	if in.TurnID != nil {
		return agentCodex
	}
	if in.HookEventName == "SessionStart" && (in.TranscriptPath == nil || strings.HasPrefix(filepath.Base(*in.TranscriptPath), "rollout-")) {
		return agentCodex
	}
	return agentClaudeCode
}

// routeBody is a hook input in Claude Code's shape, what the hook routes
// read.
type routeBody struct {
	SessionID string    `json:"session_id"`
	CWD       string    `json:"cwd"`
	Prompt    string    `json:"prompt,omitempty"`
	ToolName  string    `json:"tool_name,omitempty"`
	ToolInput toolInput `json:"tool_input"`
}

type toolInput struct {
	FilePath string `json:"file_path,omitempty"`
	URL      string `json:"url,omitempty"`
	Query    string `json:"query,omitempty"`
}

// routeBodyOf is agent's hook input as the routes read it: its tool, when
// it is one kg counts, named as Claude Code names it (a file read is Read,
// a fetch WebFetch, a web search WebSearch), with that tool's target.
func routeBodyOf(agent hookAgent, in agentInput) routeBody {
	b := routeBody{SessionID: in.SessionID, CWD: in.CWD, Prompt: in.Prompt, ToolName: in.ToolName}
	var raw map[string]any
	_ = json.Unmarshal(in.ToolInput, &raw)
	str := func(k string) string { s, _ := raw[k].(string); return s }
	switch agent {
	case agentClaudeCode:
		b.ToolInput = toolInput{FilePath: str("file_path"), URL: str("url"), Query: str("query")}
	case agentCodex:
		// Codex reads files through its shell: a plain reading command of
		// one file under cwd is a Read of it.
		if in.ToolName == "Bash" || in.ToolName == "shell" || in.ToolName == "exec_command" {
			if p := shellReadTarget(str("command"), in.CWD); p != "" {
				b.ToolName, b.ToolInput = "Read", toolInput{FilePath: p}
			}
		}
	case agentGemini:
		// Gemini CLI without a terminal puts the session start's context in
		// front of the first prompt, inside <hook_context>: kg's own preload
		// is not what the person asked.
		b.Prompt = strings.TrimSpace(geminiHookContext.ReplaceAllString(in.Prompt, ""))
		switch in.ToolName {
		case "read_file":
			if p := str("file_path"); p != "" {
				b.ToolName, b.ToolInput = "Read", toolInput{FilePath: absUnder(in.CWD, p)}
			}
		case "web_fetch":
			if u := firstURL.FindString(str("prompt")); u != "" {
				b.ToolName, b.ToolInput = "WebFetch", toolInput{URL: u}
			}
		case "google_web_search":
			b.ToolName, b.ToolInput = "WebSearch", toolInput{Query: str("query")}
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

// agentOutput is what agent expects printed for event, with text for the
// model (and, at a session start, message for the person). Claude Code and
// Codex read hookSpecificOutput named by their event; Gemini CLI reads the
// same fields under its own event names.
func agentOutput(agent hookAgent, event, text, message string) ([]byte, error) {
	name := claudeEvents[event]
	if agent == agentGemini {
		name = geminiEvents[event]
	}
	out := map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": name, "additionalContext": text}}
	if message != "" {
		out["systemMessage"] = message
	}
	b, err := json.Marshal(out)
	return append(b, '\n'), err
}

// bootstrapQuery is the session start's query of GET /api/session_bootstrap.
func bootstrapQuery(in agentInput) url.Values {
	transcript := ""
	if in.TranscriptPath != nil {
		transcript = *in.TranscriptPath
	}
	return url.Values{"project_path": {in.CWD}, "claude_session_id": {in.SessionID}, "source": {in.Source},
		"transcript_path": {transcript}}
}
