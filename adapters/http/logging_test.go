package http

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

func TestLogRequests(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	r := chi.NewRouter()
	r.Use(logRequests(log))
	r.Post("/api/nodes/{level}", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusCreated) })

	req := httptest.NewRequest(http.MethodPost, "/api/nodes/user", strings.NewReader(`{"gist":"top secret content"}`))
	r.ServeHTTP(httptest.NewRecorder(), req)

	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	for k, want := range map[string]any{"msg": "request", "method": "POST", "route": "/api/nodes/{level}", "status": float64(201)} {
		if line[k] != want {
			t.Errorf("%s = %v, want %v", k, line[k], want)
		}
	}
	if _, ok := line["duration"]; !ok {
		t.Error("no duration")
	}
	if strings.Contains(buf.String(), "secret") {
		t.Errorf("the body was logged: %s", buf.Bytes())
	}
}
