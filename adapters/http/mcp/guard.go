package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// guard answers, with a JSON-RPC error body a client can parse, the POSTs
// mcp-go would answer badly:
//   - a Content-Type other than application/json gets 415; mcp-go sends a
//     400 with a plain-text body;
//   - a JSON-RPC batch (a JSON array) gets 400 saying batches are not
//     supported; mcp-go says "request body is not valid json", which is
//     untrue and sends a client looking for the wrong fault;
//   - a body that is not valid UTF-8 gets 400 and a parse error; mcp-go's
//     decoder would turn the bad bytes into U+FFFD and store them so,
//     where every string must be valid UTF-8
//     (docs/design/model.md#identifiers-and-limits);
//   - a message with no method (and no result or error, so not a
//     response either) gets 400 and an invalid-request error; mcp-go
//     answers 202 and nothing, and a client waits for an answer that
//     never comes;
//   - any other refusal mcp-go writes as plain text (an MCP-Protocol-Version
//     header naming a version it does not know, for one) keeps its status
//     and message, in a JSON-RPC error body (plainErrorsAsJSON).
//
// Everything else, invalid JSON included (a JSON-RPC parse error from
// mcp-go), goes to next.
func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		ct := r.Header.Get("Content-Type")
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			msg := "Content-Type " + quoteHeader(ct) + " is not supported; send the JSON-RPC message as application/json"
			if ct == "" {
				msg = "no Content-Type; send the JSON-RPC message as application/json"
			}
			rpcError(w, http.StatusUnsupportedMediaType, mcpgo.INVALID_REQUEST, msg)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			rpcError(w, http.StatusBadRequest, mcpgo.INVALID_REQUEST, "could not read the request body")
			return
		}
		if !utf8.Valid(body) {
			rpcError(w, http.StatusBadRequest, mcpgo.PARSE_ERROR, "request body is not valid UTF-8; send the JSON-RPC message as UTF-8 text")
			return
		}
		trimmed := bytes.TrimLeft(body, " \t\r\n")
		if len(trimmed) > 0 && trimmed[0] == '[' && json.Valid(trimmed) {
			rpcError(w, http.StatusBadRequest, mcpgo.INVALID_REQUEST, "JSON-RPC batches are not supported; send one message per request")
			return
		}
		if len(trimmed) > 0 && trimmed[0] == '{' {
			var msg struct {
				Method, Result, Error json.RawMessage
			}
			if json.Unmarshal(trimmed, &msg) == nil && msg.Method == nil && msg.Result == nil && msg.Error == nil {
				rpcError(w, http.StatusBadRequest, mcpgo.INVALID_REQUEST, `the JSON-RPC message has no "method"; a request needs one`)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		pw := &plainErrorsAsJSON{ResponseWriter: w}
		next.ServeHTTP(pw, r)
		pw.finish()
	})
}

// plainErrorsAsJSON passes a response through unless it is an error (4xx or
// 5xx) with a text/plain body, as mcp-go writes its HTTP-level refusals;
// that one it holds back, and finish writes its status and its text as a
// JSON-RPC error instead.
type plainErrorsAsJSON struct {
	http.ResponseWriter
	status int          // the held-back error status; 0 while passing through
	whole  bool         // a 200 application/json answer, held back until finish
	text   bytes.Buffer // the held-back plain-text body, or JSON answer
}

func (p *plainErrorsAsJSON) WriteHeader(status int) {
	ct := p.Header().Get("Content-Type")
	switch {
	case status >= 400 && strings.HasPrefix(ct, "text/plain"):
		p.status = status
		return
	case status == http.StatusOK && ct == "application/json":
		// A JSON answer is written whole, once it is, with its length:
		// net/http would send one of more than 2 KiB (a search's) in
		// chunks as it is written, which the client must put together
		// again (docs/performance.md#search-through-the-client).
		p.whole = true
		return
	}
	p.ResponseWriter.WriteHeader(status)
}

func (p *plainErrorsAsJSON) Write(b []byte) (int, error) {
	switch {
	case p.status != 0:
		// A refusal is one short line; bound it all the same.
		if room := maxRefusal - p.text.Len(); room > 0 {
			p.text.Write(b[:min(len(b), room)])
		}
		return len(b), nil
	case p.whole:
		return p.text.Write(b)
	}
	return p.ResponseWriter.Write(b)
}

// Flush passes through, so a reply mcp-go streams still streams.
func (p *plainErrorsAsJSON) Flush() {
	if f, ok := p.ResponseWriter.(http.Flusher); ok && p.status == 0 && !p.whole {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (p *plainErrorsAsJSON) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// finish writes the held-back JSON answer or error, if there is one.
func (p *plainErrorsAsJSON) finish() {
	if p.whole {
		p.Header().Set("Content-Length", strconv.Itoa(p.text.Len()))
		p.ResponseWriter.WriteHeader(http.StatusOK)
		// The client may have gone; there is nobody left to tell.
		_, _ = p.ResponseWriter.Write(p.text.Bytes())
		return
	}
	if p.status == 0 {
		return
	}
	msg := strings.TrimSpace(p.text.String())
	if msg == "" {
		msg = http.StatusText(p.status)
	}
	rpcError(p.ResponseWriter, p.status, mcpgo.INVALID_REQUEST, msg)
}

// maxRefusal bounds the plain-text body plainErrorsAsJSON holds back.
const maxRefusal = 4 << 10

// rpcError writes a JSON-RPC error response with status and code. Its id
// is null: the request's id was not read (JSON-RPC 2.0, section 5).
func rpcError(w http.ResponseWriter, status, code int, msg string) {
	type details struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	body := struct {
		JSONRPC string  `json:"jsonrpc"`
		ID      *int    `json:"id"`
		Error   details `json:"error"`
	}{JSONRPC: "2.0", Error: details{Code: code, Message: msg}}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	// The client may have gone; there is nobody left to tell.
	_ = json.NewEncoder(w).Encode(body)
}

// quoteHeader quotes a header value for a message, bounded so a huge header
// does not make a huge response.
func quoteHeader(s string) string {
	const max = 100
	if len(s) > max {
		s = s[:max] + "…"
	}
	return `"` + s + `"`
}
