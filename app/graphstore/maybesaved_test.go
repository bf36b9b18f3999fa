package graphstore

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// A save the store could not take back off the disk may come back at a
// restart: its writers are told so, never that nothing was changed.
func TestUnavailableWriteSaysMaybeSaved(t *testing.T) {
	k := domain.ProjectGraph("/home/dev/app")
	refused := unavailableWrite(k, syscall.EROFS)
	maybe := unavailableWrite(k, fmt.Errorf("%w (%w: voiding it: %w)", syscall.EIO, ports.ErrMaybeSaved, syscall.EROFS))
	if !strings.Contains(refused.Error(), "nothing was changed") {
		t.Errorf("refused: %q, want it to say nothing was changed", refused)
	}
	if strings.Contains(maybe.Error(), "nothing was changed") || !strings.Contains(maybe.Error(), "may be back after a restart") {
		t.Errorf("maybe saved: %q, want it to say the change may be back after a restart", maybe)
	}
	if domain.KindOf(maybe) != domain.KindUnavailable || !errors.Is(maybe, ports.ErrMaybeSaved) {
		t.Errorf("maybe saved: kind %v, want unavailable wrapping ports.ErrMaybeSaved", domain.KindOf(maybe))
	}
}
