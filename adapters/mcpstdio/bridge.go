// Package mcpstdio serves MCP over stdio by forwarding every message to an
// MCP server that speaks Streamable HTTP in stateless mode, so that
// clients that only start a process (Claude Desktop and others) reach kg
// without a Node bridge (docs/design/mcp.md#transport).
//
// # Caveats
//
//   - The server is stateless: it never sends a request of its own and
//     keeps no session, so each line from the client is one POST and each
//     answer one line back. A message the client sends in answer to a
//     server request is forwarded like any other.
//   - Requests are forwarded concurrently (up to Bridge.MaxInFlight), so
//     answers may come back in another order than the requests; JSON-RPC
//     matches them by id.
//   - Lines are read whole: a client that never ends a line makes the bridge
//     hold what it sent, up to MaxMessageBytes.
package mcpstdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"
)

// MaxMessageBytes bounds one line from the client. The server refuses far
// smaller bodies; past this the bridge answers with an error instead of
// holding the line in memory.
const MaxMessageBytes = 64 << 20

// metaProtocolVersion is where a message of protocol version 2026-07-28 or
// later states its version; over HTTP the same version must be in the
// MCP-Protocol-Version header.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// JSON-RPC error codes the bridge answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInternalError  = -32603
)

// Bridge forwards MCP messages between a stdio client and a Streamable HTTP
// server.
type Bridge struct {
	// Connect returns the URL of the server's MCP endpoint. The bridge
	// calls it before the first message and again when the server cannot
	// be reached, so that it may find (or start) the server anew.
	Connect func(ctx context.Context) (string, error)
	// Token, when set, is sent as "Authorization: Bearer <Token>".
	Token string
	// HTTP makes the requests; nil means a client without a timeout (a
	// tool call may take as long as the server needs).
	HTTP *http.Client
	// Log receives what the bridge notices; nil discards it. It must not
	// write to the client's stdout.
	Log *slog.Logger
	// MaxInFlight bounds the requests forwarded at once; 0 means 8.
	MaxInFlight int
	// ProjectKey, when set, finds the key of the project whose root is a
	// folder; the bridge sends it with a kg_read that gives a cwd
	// (withProjectKey).
	ProjectKey func(root string) (key string, ok bool)

	out     sync.Mutex // one line at a time on the client's stdout
	mu      sync.Mutex // guards url and version
	url     string
	version string // the protocol version initialize agreed on
	reach   sync.Mutex
}

// Run forwards the messages read from in, one per line, and writes every
// answer to out, one per line, until in ends (then it waits for the
// answers still due) or ctx is done. It returns an error only when the
// server cannot be found at the start, or reading or writing fails.
func (b *Bridge) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	if b.Log == nil {
		b.Log = slog.New(slog.DiscardHandler)
	}
	if b.HTTP == nil {
		b.HTTP = &http.Client{}
	}
	n := b.MaxInFlight
	if n <= 0 {
		n = 8
	}
	if _, err := b.connect(ctx, ""); err != nil {
		return err
	}

	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, n)
	var writeErr error
	var once sync.Once
	write := func(msg []byte) {
		b.out.Lock()
		defer b.out.Unlock()
		if _, err := out.Write(append(msg, '\n')); err != nil {
			once.Do(func() { writeErr = err })
		}
	}

	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			wg.Add(1)
			go func(msg []byte) {
				defer wg.Done()
				defer func() { <-slots }()
				for _, answer := range b.forward(ctx, msg) {
					write(answer)
				}
			}(line)
		}
		if errors.Is(err, errTooLong) {
			write(errorMessage(nil, codeInvalidRequest, fmt.Sprintf("message longer than %d bytes", MaxMessageBytes)))
			continue
		}
		if errors.Is(err, io.EOF) {
			wg.Wait()
			return writeErr
		}
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		if writeErr != nil {
			return fmt.Errorf("write stdout: %w", writeErr)
		}
	}
}

var errTooLong = errors.New("line too long")

// readLine returns the next line without its end. A line over
// MaxMessageBytes is read to its end and dropped with errTooLong.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > MaxMessageBytes {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err == nil {
				err = errTooLong
			}
			return nil, err
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// connect returns the server's URL, asking Connect for it when there is
// none yet or when failed is the URL that just could not be reached. One
// caller at a time asks, so that failing requests do not each start a
// server.
func (b *Bridge) connect(ctx context.Context, failed string) (string, error) {
	b.reach.Lock()
	defer b.reach.Unlock()
	b.mu.Lock()
	url := b.url
	b.mu.Unlock()
	if url != "" && url != failed {
		return url, nil // another request reconnected meanwhile
	}
	url, err := b.Connect(ctx)
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	b.url = url
	b.mu.Unlock()
	return url, nil
}

// envelope is what the bridge reads of a message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
}

// isRequest reports whether the message wants an answer.
func (e envelope) isRequest() bool { return e.Method != "" && len(e.ID) > 0 && string(e.ID) != "null" }

// forward sends one message and returns the messages to write back: none
// for a notification, the server's answer(s) for a request, or an error
// answer the bridge makes when the server gave none.
func (b *Bridge) forward(ctx context.Context, msg []byte) [][]byte {
	var env envelope
	batch := false
	if trimmed := bytes.TrimSpace(msg); len(trimmed) > 0 && trimmed[0] == '[' {
		if !json.Valid(trimmed) {
			return [][]byte{errorMessage(nil, codeParseError, "the message is not valid JSON")}
		}
		batch = true // the server answers it as it answers batches
	} else if err := json.Unmarshal(msg, &env); err != nil {
		return [][]byte{errorMessage(nil, codeParseError, "the message is not valid JSON: "+err.Error())}
	} else if env.Method == "tools/call" {
		msg = b.withProjectKey(msg)
	}

	answers, err := b.post(ctx, msg, env)
	if err != nil {
		b.Log.Warn("kg mcp: forwarding failed", "method", env.Method, "err", err)
		if env.isRequest() {
			return [][]byte{errorMessage(env.ID, codeInternalError, "kg server: "+err.Error())}
		}
		return nil
	}
	if env.Method == "initialize" {
		b.learnVersion(answers)
	}
	if !batch && !env.isRequest() {
		// A notification, or the client's answer to a request: JSON-RPC
		// answers neither, whatever the server said.
		if len(answers) > 0 {
			b.Log.Debug("kg mcp: the server answered a message that wants no answer; dropped", "method", env.Method)
		}
		return nil
	}
	return answers
}

// post sends msg to the server, reconnecting once when the server cannot
// be reached, and returns the JSON-RPC messages it answered with.
func (b *Bridge) post(ctx context.Context, msg []byte, env envelope) ([][]byte, error) {
	b.mu.Lock()
	url, version := b.url, b.version
	b.mu.Unlock()
	if v, ok := env.Params.Meta[metaProtocolVersion]; ok {
		_ = json.Unmarshal(v, &version) // the message's own version wins
	}
	for attempt := 0; ; attempt++ {
		answers, err := b.postTo(ctx, url, version, msg, env)
		var unreachable *unreachableError
		if attempt > 0 || !errors.As(err, &unreachable) || ctx.Err() != nil {
			return answers, err
		}
		b.Log.Info("kg mcp: the server does not answer; looking for it again", "url", url, "err", err)
		if url, err = b.connect(ctx, url); err != nil {
			return nil, err
		}
	}
}

// unreachableError is a request that never reached the server.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

func (b *Bridge) postTo(ctx context.Context, url, version string, msg []byte, env envelope) ([][]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(msg))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if version != "" && env.Method != "initialize" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	if b.Token != "" {
		req.Header.Set("Authorization", "Bearer "+b.Token)
	}
	resp, err := b.HTTP.Do(req)
	if err != nil {
		return nil, &unreachableError{err}
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxMessageBytes))
	if err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var answers [][]byte
	if ct == "text/event-stream" {
		answers = sseData(body)
	} else if msg := compact(body); msg != nil && isJSONRPC(msg) {
		answers = [][]byte{msg}
	}
	if len(answers) > 0 {
		return answers, nil // also for an error status: the server said it in JSON-RPC
	}
	if resp.StatusCode/100 == 2 {
		return nil, nil
	}
	return nil, fmt.Errorf("%s: %s", resp.Status, httpDetail(body))
}

// learnVersion keeps the protocol version an initialize result agreed on:
// later requests carry it in the MCP-Protocol-Version header.
func (b *Bridge) learnVersion(answers [][]byte) {
	for _, a := range answers {
		var res struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(a, &res) == nil && res.Result.ProtocolVersion != "" {
			b.mu.Lock()
			b.version = res.Result.ProtocolVersion
			b.mu.Unlock()
			return
		}
	}
}

// sseData returns the data of each event of a text/event-stream body that
// holds a JSON-RPC message, compacted to one line.
func sseData(body []byte) [][]byte {
	var out [][]byte
	var data []byte
	flush := func() {
		if msg := compact(data); msg != nil && isJSONRPC(msg) {
			out = append(out, msg)
		}
		data = nil
	}
	for _, line := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n") {
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
		}
	}
	flush()
	return out
}

// compact returns b as one line of JSON, or nil when it is not JSON.
func compact(b []byte) []byte {
	var buf bytes.Buffer
	if len(bytes.TrimSpace(b)) == 0 || json.Compact(&buf, b) != nil {
		return nil
	}
	return buf.Bytes()
}

// isJSONRPC reports whether msg is a JSON-RPC message or a batch of them.
func isJSONRPC(msg []byte) bool {
	var one struct {
		JSONRPC string `json:"jsonrpc"`
	}
	if json.Unmarshal(msg, &one) == nil {
		return one.JSONRPC == "2.0"
	}
	var many []struct {
		JSONRPC string `json:"jsonrpc"`
	}
	return json.Unmarshal(msg, &many) == nil && len(many) > 0 && many[0].JSONRPC == "2.0"
}

// httpDetail is what an HTTP error body says: the "detail" of kg's JSON
// errors, else the text itself.
func httpDetail(body []byte) string {
	var e struct {
		Detail string `json:"detail"`
	}
	if json.Unmarshal(body, &e) == nil && e.Detail != "" {
		return e.Detail
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// errorMessage is a JSON-RPC error answer to id (null when unknown).
func errorMessage(id json.RawMessage, code int, message string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return b
}
