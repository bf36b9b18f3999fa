package http

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestRejectCrossSite(t *testing.T) {
	tests := []struct {
		value string
		want  int
	}{
		{"", 204}, {"none", 204}, {"same-origin", 204}, {"same-site", 204}, {"cross-site", 403},
	}
	for _, tc := range tests {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			t.Run(method+" "+tc.value, func(t *testing.T) {
				req := httptest.NewRequest(method, "/api/nodes/user/x", nil)
				if tc.value != "" {
					req.Header.Set("Sec-Fetch-Site", tc.value)
				}
				if got := serve(t, rejectCrossSite, req); got != tc.want {
					t.Errorf("%d, want %d", got, tc.want)
				}
			})
		}
	}
}
