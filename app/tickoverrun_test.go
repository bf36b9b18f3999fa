package app

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain/stale"
	"github.com/kg-memory/kg/ports"
)

// hungFiles is a file hasher whose reads, once armed, hang — a hung
// network mount — until released, or, with honourCtx, until their
// context is done.
type hungFiles struct {
	armed     atomic.Bool
	honourCtx bool
	entered   chan struct{} // closed when a hung read starts
	release   chan struct{}
}

func newHungFiles(honourCtx bool) *hungFiles {
	return &hungFiles{honourCtx: honourCtx, entered: make(chan struct{}), release: make(chan struct{})}
}

func (h *hungFiles) HashFiles(ctx context.Context, _ string, files []ports.FileQuery) ([]stale.FileHash, error) {
	if h.armed.CompareAndSwap(true, false) {
		close(h.entered)
		if h.honourCtx {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		<-h.release
	}
	out := make([]stale.FileHash, len(files))
	for i := range out {
		out[i] = stale.FileHash{State: stale.FileFound, Hash: "sha256:00"}
	}
	return out, nil
}

func tickProblems(svc *Service) []string {
	var out []string
	for _, p := range svc.Health(context.Background()).Problems {
		if strings.Contains(p, "maintenance tick") {
			out = append(out, p)
		}
	}
	return out
}

// /health is degraded while a maintenance tick runs past its limit, naming
// it, and ok again once the tick ends (docs/design/http.md#health).
func TestHealthIsDegradedWhileATickOverruns(t *testing.T) {
	files := newHungFiles(false)
	e := newEnv(t)
	e.files = files
	e.restart()
	root := filepath.Join(t.TempDir(), "p")
	sid := e.session(root)
	e.putTouches(sid, "n", "touches a file", "a.txt")
	files.armed.Store(true)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.svc.maint.Tick(e.ctx)
	}()
	<-files.entered
	if got := tickProblems(e.svc); len(got) != 0 {
		t.Errorf("a tick just started: %q, want no problem", got)
	}
	e.clock.Advance(e.svc.maint.TickOverrun() + time.Second)
	if got := tickProblems(e.svc); len(got) != 1 || !strings.Contains(got[0], "has run for") {
		t.Errorf("a tick past its limit: problems %q, want one naming the overrun", got)
	}
	close(files.release)
	<-done
	if got := tickProblems(e.svc); len(got) != 0 {
		t.Errorf("after the tick ended: %q, want none", got)
	}
}

// The staleness duty of a tick has a deadline: a read that never returns
// (but honours its context, as every read of a named file does) cannot
// hold the tick for ever.
func TestTickStalenessDutyHasADeadline(t *testing.T) {
	files := newHungFiles(true)
	e := newEnv(t, func(c *Config) { c.MaintenanceInterval = 50 * time.Millisecond })
	e.files = files
	e.restart()
	root := filepath.Join(t.TempDir(), "p")
	sid := e.session(root)
	e.putTouches(sid, "n", "touches a file", "a.txt")
	files.armed.Store(true)
	within(t, 10*time.Second, "the maintenance tick", func() { e.svc.maint.Tick(e.ctx) })
}
