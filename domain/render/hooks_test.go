package render

import (
	"strings"
	"testing"
)

func TestCaptureRequestNamesTheSessionAndFitsItsLimit(t *testing.T) {
	const session = "0123456789abcdef" // kg's ids: 16 hex characters
	got := CaptureRequest(session)
	if n := Runes(got); n > CaptureMaxChars {
		t.Errorf("%d characters, limit %d: %q", n, CaptureMaxChars, got)
	}
	for _, want := range []string{`session_id "` + session + `"`, "kg_put_node", "just stop"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}
