package clients

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// toolScript calls each of kg's nine tools once (kg_put_node twice, to
// have an edge to make), with valid arguments, the session id taken from
// what the model was told.
func toolScript(a agent, cwd string) []step {
	p := func(name string, args map[string]any) step { return withSession(a.tool(name), args) }
	return []step{
		fixed(a.tool("kg_read"), map[string]any{"cwd": cwd}),
		p("kg_put_node", map[string]any{"level": "project", "id": "billing-retry", "gist": "invoice retries back off exponentially on the billing queue", "touches": []string{"billing/retry.go"}}),
		p("kg_put_node", map[string]any{"level": "project", "id": "billing-queue", "gist": "the billing queue is a postgres table polled every second"}),
		p("kg_put_edge", map[string]any{"level": "project", "from": "billing-retry", "to": "billing-queue", "rel": "runs-on"}),
		p("kg_search", map[string]any{"query": "invoice retry backoff"}),
		p("kg_read", map[string]any{"id": "billing-retry"}),
		p("kg_useful", map[string]any{"ids": []string{"billing-retry"}}),
		p("kg_progress", map[string]any{"task_id": "e2e-billing", "state": map[string]any{"step": "retries documented"}}),
		p("kg_sync", nil),
		p("kg_delete_edge", map[string]any{"level": "project", "from": "billing-retry", "to": "billing-queue", "rel": "runs-on"}),
		p("kg_delete_node", map[string]any{"level": "project", "id": "billing-queue"}),
	}
}

// TestToolsReachTheModel runs each CLI through every kg tool and holds what
// its model received against what kg sent (docs/design/mcp.md#results-and-errors): the nine tools offered with their schemas, and each result
// carrying every line of kg's text, no larger than it.
func TestToolsReachTheModel(t *testing.T) {
	needClients(t)
	for _, a := range agents() {
		t.Run(a.name, func(t *testing.T) {
			w := newWorld(t)
			w.serve()
			seedBilling(w, 60) // a full read of some size: about 5,000 characters
			proxy := newMCPProxy(t, w.kgURL())
			// The nine tools, then a call kg refuses (an unknown session).
			steps := append(toolScript(a, w.project), fixed(a.tool("kg_read"), map[string]any{"session_id": "no-such-session"}))
			mock := newModelMock(t, a.proto, script(steps...))
			out, err := a.run(w, mock, proxy.URL, "Record what we know about invoice retries.")
			if err != nil {
				t.Fatalf("%v\n%s\nrequests:\n%s", err, out, mock.Raw())
			}
			first, last := mock.Exchanges()[0], mock.Last(t)

			check(t, a.name, "nine tools offered", func() error { return offersKGTools(a, first) })
			calls := proxy.Calls()
			if len(calls) != len(steps) || len(last.Results) != len(steps) {
				t.Fatalf("kg answered %d calls and the model received %d results, want %d each\n%s\nrequests:\n%s",
					len(calls), len(last.Results), len(steps), out, mock.Raw())
			}
			refused, refusal := calls[len(calls)-1], last.Results[len(calls)-1]
			calls, last.Results = calls[:len(calls)-1], last.Results[:len(calls)-1]
			check(t, a.name, "an error result reaches the model as kg's one line", func() error {
				if !strings.HasPrefix(refused.Text, "Error: unknown session") {
					return fmt.Errorf("kg answered the unknown session with %q", refused.Text)
				}
				// Gemini CLI hands the model an error inside its own JSON,
				// escaped twice: the line is there once the escapes are off.
				unquote := strings.NewReplacer(`\`, "", `"`, "").Replace
				if !strings.Contains(unquote(refusal), unquote(refused.Text)) {
					return fmt.Errorf("the model received %q for kg's %q", refusal, refused.Text)
				}
				t.Logf("an error: kg's %d chars reached the model as %d", len(refused.Text), len(refusal))
				return nil
			})
			for i, c := range calls {
				t.Logf("%-15s kg text %5d chars, structuredContent %5d; the model received %5d chars (%s)",
					c.Tool, len(c.Text), len(c.Structured), len(last.Results[i]), form(last.Results[i], c))
				if strings.HasPrefix(c.Text, "Error") {
					t.Errorf("%s: kg answered an error to the script's valid call: %s", c.Tool, c.Text)
				}
			}
			check(t, a.name, checkResultCarriesText, func() error { return eachResult(calls, last.Results, carriesText) })
			check(t, a.name, checkResultNoLarger, func() error { return eachResult(calls, last.Results, noLarger) })
		})
	}
}

// offersKGTools: every kg tool is in the tools array, described, with an
// object schema.
func offersKGTools(a agent, ex exchange) error {
	offered := map[string]offeredTool{}
	for _, tool := range ex.Tools {
		offered[tool.Name] = tool
	}
	var errs []error
	for _, name := range kgTools {
		tool, ok := offered[a.tool(name)]
		if !ok {
			errs = append(errs, fmt.Errorf("%s not offered as %s", name, a.tool(name)))
			continue
		}
		var schema struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(tool.Schema, &schema); err != nil || !strings.EqualFold(schema.Type, "object") {
			errs = append(errs, fmt.Errorf("%s: schema %s is not an object schema", name, tool.Schema))
		}
		if tool.Description == "" {
			errs = append(errs, fmt.Errorf("%s: offered with no description", name))
		}
	}
	return errors.Join(errs...)
}

// eachResult applies ok to each call and what the model received of it.
func eachResult(calls []kgCall, received []string, ok func(kgCall, string) error) error {
	var errs []error
	for i, c := range calls {
		if err := ok(c, received[i]); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.Tool, err))
		}
	}
	return errors.Join(errs...)
}

// carriesText: every line of kg's text reaches the model.
func carriesText(c kgCall, got string) error {
	for _, line := range strings.Split(c.Text, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.Contains(got, line) {
			return fmt.Errorf("the model did not receive %q (it received %d chars: %.120s…)", line, len(got), got)
		}
	}
	return nil
}

// noLarger: what reaches the model is at most kg's text.
func noLarger(c kgCall, got string) error {
	if len(got) > len(c.Text) {
		return fmt.Errorf("the model received %d chars where kg's text is %d", len(got), len(c.Text))
	}
	return nil
}

// form says which of kg's forms reached the model.
func form(got string, c kgCall) string {
	switch {
	case strings.TrimSpace(got) == strings.TrimSpace(c.Text):
		return "the text"
	case c.Structured != "" && json.Valid([]byte(got)):
		return "structuredContent as JSON"
	default:
		return "other"
	}
}
