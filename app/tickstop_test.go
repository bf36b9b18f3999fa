package app

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/domain"
)

// syncBuffer is a log sink the service and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) take() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.b.String()
	s.b.Reset()
	return out
}

// A tick the server's stop cancels is no fault: its duties fail with the
// context's error, Close saves what is pending, and nothing is logged as
// an error. A save that fails while the server runs still is.
func TestTickStoppedByShutdownLogsNoError(t *testing.T) {
	fsys := &faultyFS{}
	st, err := jsonfile.Open(t.TempDir(), jsonfile.Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	clk := clock.NewManual(t0)
	svc, err := New(DefaultConfig(), Deps{Graphs: st, Sessions: st, Clock: clk, Events: &recorder{}, Paths: fakePaths{},
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.set(nil); _ = svc.Close(context.Background()) })

	sess, err := svc.RegisterSession(context.Background(), projA, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.PutNode(context.Background(), user(sess.ID), domain.NodeInput{ID: "pending", Gist: "not yet checkpointed"}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)

	stopping, stop := context.WithCancel(context.Background())
	stop()
	fsys.set(context.Canceled) // what the storage's I/O answers once the tick's context is done
	logs.take()
	svc.maint.Tick(stopping)
	if out := logs.take(); strings.Contains(out, "level=ERROR") {
		t.Errorf("a tick cancelled by the stop logged errors:\n%s", out)
	}

	fsys.set(syscall.ENOSPC)
	svc.maint.Tick(context.Background())
	if out := logs.take(); !strings.Contains(out, "level=ERROR") {
		t.Errorf("a tick whose saves fail while the server runs logged no error:\n%s", out)
	}
}
