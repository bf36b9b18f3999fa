package apijson

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kg-memory/kg/domain"
)

func TestErrorOf(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		body   Error
	}{
		{"invalid", domain.Invalidf("gist", "1204 chars, limit 1000"), 400,
			Error{Detail: "gist: 1204 chars, limit 1000", Kind: "invalid", Field: "gist"}},
		{"not found names the thing", domain.NotFoundf("id", `node "x" not found in user graph`), 404,
			Error{Detail: `node "x" not found in user graph`, Kind: "not_found", Field: "id"}},
		{"conflict", domain.Conflictf("expected_version", "node %q is at version 2, not 1", "n"), 409,
			Error{Detail: `expected_version: node "n" is at version 2, not 1`, Kind: "conflict", Field: "expected_version"}},
		{"unavailable", domain.Unavailable(errors.New("disk full"), "the user graph could not be saved"), 503,
			Error{Detail: "the user graph could not be saved", Kind: "unavailable"}},
		{"wrapped keeps its kind", fmt.Errorf("context: %w", domain.Invalidf("level", "bad")), 400,
			Error{Detail: "level: bad", Kind: "invalid", Field: "level"}},
		{"a bug shows nothing of itself", errors.New("nil map write at /secret/path"), 500,
			Error{Detail: internalDetail, Kind: "internal"}},
		{"an internal domain error too", &domain.Error{Kind: domain.KindInternal, Msg: "invariant broken: /secret"}, 500,
			Error{Detail: internalDetail, Kind: "internal"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := ErrorOf(tc.err)
			if status != tc.status {
				t.Errorf("status %d, want %d", status, tc.status)
			}
			if diff := cmp.Diff(tc.body, body); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}
