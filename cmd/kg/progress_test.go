package main

import (
	"bytes"
	"strings"
	"testing"
)

// On a terminal the bar is drawn and cleared at the end; piped, nothing is
// written.
func TestProgress(t *testing.T) {
	t.Parallel()
	for _, interactive := range []bool{true, false} {
		var w bytes.Buffer
		p := newProgress(env{stderr: &w, interactive: interactive}, "copying")
		p.set(0, 4)
		p.describe("copying json → bolt")
		p.set(3, 4)
		drawn := w.String()
		p.finish()
		if !interactive {
			if w.Len() != 0 {
				t.Errorf("piped: wrote %q", w.String())
			}
			continue
		}
		if !strings.Contains(drawn, "copying json → bolt") || !strings.Contains(drawn, "3/4") {
			t.Errorf("on a terminal: %q", drawn)
		}
		if !strings.HasSuffix(w.String(), "\r") {
			t.Errorf("the bar is not cleared at the end: %q", w.String())
		}
	}
}
