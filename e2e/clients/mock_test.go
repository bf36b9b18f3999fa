package clients

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// offeredTool is one tool as the model is offered it.
type offeredTool struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

// exchange is one request of an agent's main loop (one that offers tools),
// read into what the model receives, whatever the wire format.
type exchange struct {
	Tools   []offeredTool
	Results []string // each tool result in the conversation, in order, as the model gets it
	Context string   // every other text the model is given (system and user turns), joined
	At      time.Time
}

// reply is the mock model's answer: a tool call, else text.
type reply struct {
	Tool string
	Args map[string]any
	Text string
}

// step is one turn of a script: the tool call to make, with arguments that
// may depend on what the model has received so far (a session id).
type step struct {
	Tool string
	Args func(ex exchange) map[string]any
}

// script answers the main loop's turn n (n tool results so far) with
// steps[n], and "Done." after the last step.
func script(steps ...step) func(exchange) reply {
	return func(ex exchange) reply {
		n := len(ex.Results)
		if n >= len(steps) {
			return reply{Text: "Done."}
		}
		var args map[string]any
		if steps[n].Args != nil {
			args = steps[n].Args(ex)
		}
		return reply{Tool: steps[n].Tool, Args: args}
	}
}

// fixed is a step with constant arguments.
func fixed(tool string, args map[string]any) step {
	return step{Tool: tool, Args: func(exchange) map[string]any { return args }}
}

var sessionLine = regexp.MustCompile(`(?:Session: |"session_id":\s*")([0-9A-Za-z_-]+)`)

// sessionOf is the kg session id the model was last told of, in a result
// or the context.
func sessionOf(ex exchange) string {
	for i := len(ex.Results) - 1; i >= 0; i-- {
		if m := sessionLine.FindStringSubmatch(ex.Results[i]); m != nil {
			return m[1]
		}
	}
	if m := sessionLine.FindStringSubmatch(ex.Context); m != nil {
		return m[1]
	}
	return ""
}

// withSession adds the session id the model has to fixed arguments.
func withSession(tool string, args map[string]any) step {
	return step{Tool: tool, Args: func(ex exchange) map[string]any {
		out := map[string]any{"session_id": sessionOf(ex)}
		for k, v := range args {
			out[k] = v
		}
		return out
	}}
}

// protocol is one model API's wire format.
type protocol interface {
	// parse reads a request; main is false for a request that offers no
	// tools (a title, a quota check), which gets plain text.
	parse(r *http.Request, body []byte) (ex exchange, main bool, ok bool)
	// write answers a request.
	write(w http.ResponseWriter, r *http.Request, body []byte, rep reply, seq int)
}

// modelMock is a model API on loopback: it records every request and
// answers the main loop from a script.
type modelMock struct {
	URL    string
	proto  protocol
	answer func(exchange) reply

	mu        sync.Mutex
	raw       []string // every request: method, path and body
	exchanges []exchange
	seq       int
}

func newModelMock(t testing.TB, proto protocol, answer func(exchange) reply) *modelMock {
	t.Helper()
	m := &modelMock{proto: proto, answer: answer}
	srv := httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(srv.Close)
	m.URL = srv.URL
	return m
}

func (m *modelMock) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	ex, main, ok := m.proto.parse(r, body)
	ex.At = time.Now()
	m.mu.Lock()
	m.raw = append(m.raw, r.Method+" "+r.URL.String()+"\n"+string(body))
	if main {
		m.exchanges = append(m.exchanges, ex)
	}
	m.seq++
	seq := m.seq
	m.mu.Unlock()
	if !ok {
		// An endpoint the mock does not model: an empty JSON object,
		// which every client here takes as "nothing".
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "{}")
		return
	}
	rep := reply{Text: "OK."}
	if main && m.answer != nil {
		rep = m.answer(ex)
	}
	m.proto.write(w, r, body, rep, seq)
}

// Exchanges are the main loop's requests so far.
func (m *modelMock) Exchanges() []exchange {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]exchange(nil), m.exchanges...)
}

// Raw is every request so far, for a failure's message.
func (m *modelMock) Raw() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	for _, r := range m.raw {
		if len(r) > 3000 {
			r = r[:3000] + "…"
		}
		b.WriteString(r + "\n\n")
	}
	return b.String()
}

// Last is the last exchange, the one that holds the whole conversation.
func (m *modelMock) Last(t testing.TB) exchange {
	t.Helper()
	ex := m.Exchanges()
	if len(ex) == 0 {
		t.Fatalf("the model received no request that offers tools; requests:\n%s", m.Raw())
	}
	return ex[len(ex)-1]
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// textOf reads a content value that is a string or a list of text blocks.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			parts = append(parts, b.Text)
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

func sse(w http.ResponseWriter, event string, data any) {
	if event != "" {
		_, _ = io.WriteString(w, "event: "+event+"\n")
	}
	_, _ = io.WriteString(w, "data: "+mustJSON(data)+"\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
