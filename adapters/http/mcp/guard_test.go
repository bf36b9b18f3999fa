package mcp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestGuardRewritesOnlyPlainTextErrors drives guard with a stand-in for
// mcp-go that answers each way it can: a plain-text refusal becomes a
// JSON-RPC error with the same status and text; every other answer passes
// through untouched.
func TestGuardRewritesOnlyPlainTextErrors(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		wantStatus  int
		wantType    string
		wantBody    string
	}{
		{"a plain-text refusal", 400, "text/plain; charset=utf-8", "Unsupported protocol version: 1999-01-01\n",
			400, "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Unsupported protocol version: 1999-01-01"}}` + "\n"},
		{"a plain-text failure with no text", 500, "text/plain", "",
			500, "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Internal Server Error"}}` + "\n"},
		{"a JSON-RPC result", 200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`,
			200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"a JSON-RPC error", 400, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"m"}}`,
			400, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"m"}}`},
		{"an accepted notification", 202, "", "",
			202, "", ""},
		{"plain text that is no error", 200, "text/plain", "fine",
			200, "text/plain", "fine"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tc.contentType != "" {
					w.Header().Set("Content-Type", tc.contentType)
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			})
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			guard(next).ServeHTTP(rec, req)
			if rec.Code != tc.wantStatus {
				t.Errorf("status %d, want %d", rec.Code, tc.wantStatus)
			}
			if ct := rec.Header().Get("Content-Type"); ct != tc.wantType {
				t.Errorf("Content-Type %q, want %q", ct, tc.wantType)
			}
			if got := rec.Body.String(); got != tc.wantBody {
				t.Errorf("body %q, want %q", got, tc.wantBody)
			}
		})
	}
}

// TestGuardBoundsAPlainTextRefusal: the text held back is cut at
// maxRefusal bytes, however much the handler writes.
func TestGuardBoundsAPlainTextRefusal(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadRequest)
		for range 10 {
			_, _ = w.Write([]byte(strings.Repeat("x", maxRefusal)))
		}
	})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	guard(next).ServeHTTP(rec, req)
	if !strings.Contains(rec.Body.String(), `"message":"`+strings.Repeat("x", maxRefusal)+`"`) {
		t.Errorf("the message is not the first %d bytes of the text", maxRefusal)
	}
	if n := rec.Body.Len(); n > maxRefusal+200 {
		t.Errorf("body of %d bytes, want about %d", n, maxRefusal)
	}
}

// TestGuardKeepsFlushing: a reply the handler flushes as it goes still
// reaches the connection's writer.
func TestGuardKeepsFlushing(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("data: 1\n\n"))
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("flush: %v", err)
		}
	})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	guard(next).ServeHTTP(rec, req)
	if !rec.Flushed {
		t.Error("the reply was not flushed")
	}
}

// TestGuardSendsAJSONAnswerWhole: a 200 JSON answer written in pieces, as
// large as a search's, reaches the client as one body with its length,
// not in chunks.
func TestGuardSendsAJSONAnswerWhole(t *testing.T) {
	piece := `"` + strings.Repeat("x", 3000) + `"`
	want := `{"jsonrpc":"2.0","id":1,"result":[` + piece + "," + piece + "," + piece + `]}` + "\n"
	srv := httptest.NewServer(guard(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		for i := 0; i < len(want); i += 1000 {
			_, _ = w.Write([]byte(want[i:min(i+1000, len(want))]))
		}
	})))
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || string(body) != want {
		t.Fatalf("%d, %d bytes; want 200 and the %d bytes written", resp.StatusCode, len(body), len(want))
	}
	if resp.ContentLength != int64(len(want)) || len(resp.TransferEncoding) != 0 {
		t.Errorf("Content-Length %d, Transfer-Encoding %v; want %d and none", resp.ContentLength, resp.TransferEncoding, len(want))
	}
}
