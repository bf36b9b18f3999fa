package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/hookagent"
	"github.com/kg-memory/kg/domain"
)

// The deadlines of kg hook (docs/design/hooks.md#kg-hook): under what
// Claude Code gives each hook, so that a late answer is never half
// printed.
var hookDeadlines = map[string]time.Duration{
	"session-start": 3 * time.Second,
	"prompt":        900 * time.Millisecond,
	"tool-event":    900 * time.Millisecond,
	"stop":          900 * time.Millisecond,
}

// newHookCommand is `kg hook session-start|prompt|tool-event`.
func newHookCommand(e env) *cobra.Command {
	var debug bool
	var agentName string
	c := &cobra.Command{
		Use:   "hook session-start|prompt|tool-event|stop [--agent claude-code|codex|gemini]",
		Short: "run as an agent's hook (Claude Code, Codex, Gemini CLI): its hook input on stdin, what it expects on stdout",
		Long: "The command an agent runs at a session start, a prompt and after a tool (Claude Code's and Codex's\n" +
			"SessionStart, UserPromptSubmit and PostToolUse; Gemini CLI's SessionStart, BeforeAgent and AfterTool).\n" +
			"It reads the hook input on stdin, asks the running server (started in the background, as kg mcp does,\n" +
			"when none answers; the one --server-url names, never started, when it is set and none holds the\n" +
			"storage root) and prints exactly what that agent expects; --agent names the agent, else the input's\n" +
			"shape tells it. It never fails the hook: on any error, or past its deadline (3 s, 0.9 s, 0.9 s), it\n" +
			"prints nothing and exits 0; --debug says why on stderr.",
		Args: exactArgs("event"),
	}
	c.Flags().BoolVar(&debug, "debug", false, "write why nothing was printed to stderr")
	c.Flags().StringVar(&agentName, "agent", "", "the agent that runs the hook: claude-code, codex or gemini (default: told by the input's shape)")
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, args []string) error {
		event := args[0]
		say := func(err error) {
			if debug {
				fmt.Fprintf(e.stderr, "kg hook %s: %v\n", event, err)
			}
		}
		wait, ok := hookDeadlines[event]
		if !ok {
			// A hook configured wrongly: said always, still exit 0.
			fmt.Fprintf(e.stderr, "kg hook: unknown event %q; want session-start, prompt, tool-event or stop\n", event)
			return nil
		}
		agent, err := hookagent.Parse(agentName)
		if err != nil {
			// A hook configured wrongly: said always, still exit 0.
			fmt.Fprintf(e.stderr, "kg hook: %v\n", err)
			return nil
		}
		ctx, cancel := context.WithTimeout(c.Context(), wait)
		defer cancel()
		out, err := runHook(ctx, e, settings, event, agent, debug)
		if err == nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		if err != nil {
			say(err)
			return nil
		}
		if len(out) > 0 {
			_, _ = e.stdout.Write(out)
		}
		return nil
	}
	return c
}

// runHook does the work of one hook for agent ("": told by the input's
// shape) and returns what to print: nil for nothing.
func runHook(ctx context.Context, e env, settings *config.Flags, event string, agent hookagent.Agent, debug bool) ([]byte, error) {
	in, err := readHookInput(e)
	if err != nil {
		return nil, err
	}
	if agent == "" {
		agent = hookagent.Detect(in)
	}
	client, err := hookServer(ctx, e, settings, debug)
	if err != nil {
		return nil, err
	}
	// A team server may not read this machine's folders: the project's
	// key goes with the cwd, resolved here (docs/design/team.md#project-keys).
	keyed := url.Values{}
	if key := hookProjectKey(in.CWD); key != "" {
		keyed.Set("project_key", key)
	}
	switch event {
	case "session-start":
		return sessionStartHook(ctx, client, agent, in, keyed.Get("project_key"))
	case "prompt":
		return forwardHook(ctx, client, agent, event, "/api/prompt_context", keyed, in)
	case "tool-event":
		return forwardHook(ctx, client, agent, event, "/api/tool_event", keyed, in)
	case "stop":
		return stopHook(ctx, client, agent, keyed, in)
	}
	return nil, fmt.Errorf("unknown hook event %q", event) // the command lets only the four through
}

// readHookInput reads the hook input from stdin: at most a request body's
// size, and a JSON object.
func readHookInput(e env) (hookagent.Input, error) {
	var in hookagent.Input
	input, err := io.ReadAll(io.LimitReader(e.stdin, domain.MaxBodyBytes+1))
	if err != nil {
		return in, fmt.Errorf("read the hook input: %w", err)
	}
	if len(input) > domain.MaxBodyBytes {
		return in, fmt.Errorf("the hook input is over %d bytes", domain.MaxBodyBytes)
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return in, fmt.Errorf("the hook input is not a JSON object: %w", err)
	}
	return in, nil
}

// hookServer finds the server of the root, or starts one with the settings
// the hook was given; it logs on stderr only with debug.
func hookServer(ctx context.Context, e env, settings *config.Flags, debug bool) (*apiclient.Client, error) {
	cfg, err := commandConfig(e, settings)
	if err != nil {
		return nil, err
	}
	logOut := io.Discard
	if debug {
		logOut = e.stderr
	}
	log := slog.New(slog.NewTextHandler(logOut, nil))
	args := settings.Given()
	if !settings.IsSet("storage", e.getenv) {
		args = append(args, "--storage="+cfg.Storage)
	}
	return findOrStartServer(ctx, e, cfg, args, false, log)
}

// sessionStartHook asks the server for the session's preload and turns it
// into agent's session start output; nil when there is nothing to add.
func sessionStartHook(ctx context.Context, client *apiclient.Client, agent hookagent.Agent, in hookagent.Input, projectKey string) ([]byte, error) {
	q := hookagent.BootstrapQuery(in)
	q.Set("agent", string(agent)) // the session keeps it: the page names the session by it
	if projectKey != "" {
		q.Set("project_key", projectKey)
	}
	var res struct {
		Context string `json:"context"`
		Text    string `json:"text"`
	}
	if err := client.Call(ctx, http.MethodGet, "/api/session_bootstrap", q, nil, &res); err != nil {
		return nil, err
	}
	if res.Context == "" {
		return nil, nil
	}
	message := ""
	if res.Text != "" {
		user, project := preloadCounts(res.Text)
		message = fmt.Sprintf("kg memory preloaded: %d user + %d project nodes", user, project)
	}
	return hookagent.Output(agent, "session-start", res.Context, message)
}

// forwardHook posts the hook input, in the shape the routes read
// (hookagent.RouteBodyOf), to the server at path and returns its answer as agent's
// output for event; nil when it has nothing to add ({}).
func forwardHook(ctx context.Context, client *apiclient.Client, agent hookagent.Agent, event, path string, keyed url.Values, in hookagent.Input) ([]byte, error) {
	body, err := json.Marshal(hookagent.RouteBodyOf(agent, in))
	if err != nil {
		return nil, err
	}
	var raw bytes.Buffer
	if err := client.Send(ctx, http.MethodPost, path, keyed, "application/json", bytes.NewReader(body), &raw); err != nil {
		return nil, err
	}
	var answer struct {
		HookSpecificOutput *struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(raw.Bytes(), &answer); err != nil {
		return nil, fmt.Errorf("the server's answer is not the JSON expected: %w", err)
	}
	if answer.HookSpecificOutput == nil || answer.HookSpecificOutput.AdditionalContext == "" {
		return nil, nil // {}: nothing to add
	}
	return hookagent.Output(agent, event, answer.HookSpecificOutput.AdditionalContext, "")
}

// stopHook posts a stop to the server and returns agent's stop output: the
// capture request as the reason to go on, or nil to let the agent stop
// (docs/design/hooks.md#capture-before-forgetting). The agent is named in
// the query, for the server's count of stops by agent.
func stopHook(ctx context.Context, client *apiclient.Client, agent hookagent.Agent, keyed url.Values, in hookagent.Input) ([]byte, error) {
	if agent == hookagent.Gemini {
		return nil, nil // no stop event that speaks to the model once: never asked
	}
	q := url.Values{"agent": {string(agent)}}
	if k := keyed.Get("project_key"); k != "" {
		q.Set("project_key", k)
	}
	var answer struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if err := client.Call(ctx, http.MethodPost, "/api/hooks/stop", q, hookagent.RouteBodyOf(agent, in), &answer); err != nil {
		return nil, err
	}
	if answer.Decision != "block" {
		return nil, nil // {}: let it stop
	}
	return hookagent.StopOutput(agent, answer.Reason)
}

// hookProjectKey is the key of the project at cwd, from its .kg/project
// or git origin, as kg mcp resolves it; "" when it has none or cwd is not
// an absolute folder.
func hookProjectKey(cwd string) string {
	if !filepath.IsAbs(cwd) {
		return ""
	}
	key, ok, err := paths.OS{}.ProjectKey(cwd)
	if err != nil || !ok {
		return ""
	}
	return key
}

// preloadCounts counts the node lines of a preload's user and project
// sections (docs/design/hooks.md#the-preload): "  id: gist" lines under
// ACTIVE:.
func preloadCounts(text string) (user, project int) {
	var count *int
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "=== USER GRAPH"):
			count = &user
		case strings.HasPrefix(line, "=== PROJECT GRAPH"):
			count = &project
		case line == "EDGES:":
			count = nil
		case count != nil && strings.HasPrefix(line, "  "):
			*count++
		}
	}
	return user, project
}
