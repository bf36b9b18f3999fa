package hooks

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/transcript"
)

// within runs fn and fails the test when it has not returned within d: a
// call that blocks on a named pipe must fail the test, not hang it.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not answer within %s", what, d)
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A session start whose transcript_path names a named pipe in the home
// folder answers, with a new session: the pipe is never opened for read.
func TestBootstrapWithANamedPipeTranscriptAnswers(t *testing.T) {
	e := newEnv(t)
	home := t.TempDir()
	pipe := filepath.Join(home, "t.jsonl")
	mkfifo(t, pipe)
	e.Transcripts = transcript.Home{Dir: home}
	e.Restart()
	var r BootstrapResult
	var err error
	within(t, 10*time.Second, "session_bootstrap with a named pipe as transcript", func() {
		r, err = e.hooks().SessionBootstrap(e.Ctx, BootstrapRequest{ProjectPath: projA, Source: "resume", TranscriptPath: pipe})
	})
	if err != nil || r.Reused || r.SessionID == "" {
		t.Errorf("bootstrap: %+v, %v; want a new session", r, err)
	}
}
