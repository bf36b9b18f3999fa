package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/domain"
)

// jsonEnv is a service on the json backend in a temporary root, so that
// the checkpoint hook (ports.GraphCheckpointer) is exercised on real
// files.
func jsonEnv(t *testing.T) (*Service, string) {
	t.Helper()
	root := t.TempDir()
	svc, _ := jsonService(t, root, nil)
	return svc, root
}

// jsonService is a service on the json backend in root, through the file
// system fsys (nil: the real one), on a manual clock.
func jsonService(t *testing.T, root string, fsys jsonfile.FS) (*Service, *clock.Manual) {
	t.Helper()
	st, err := jsonfile.Open(root, jsonfile.Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(t0)
	svc, err := New(DefaultConfig(), Deps{Graphs: st, Sessions: st, Clock: clk, Events: &recorder{}, Paths: fakePaths{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	return svc, clk
}

func fileHolds(t *testing.T, path, what string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return bytes.Contains(b, []byte(what))
}

// TestTickAndCloseFoldTheJournals checks the checkpoint hook: a write and a new
// session go to the journals at once, and the maintenance tick (or Close)
// writes them into user.json and sessions.json and empties the journals
// (docs/design/storage.md#checkpoint).
func TestTickAndCloseFoldTheJournals(t *testing.T) {
	for _, end := range []string{"tick", "close"} {
		t.Run(end, func(t *testing.T) {
			svc, root := jsonEnv(t)
			ctx := context.Background()
			sess, err := svc.RegisterSession(ctx, "", "")
			if err != nil {
				t.Fatal(err)
			}
			// The user graph's file exists from its first write on; the
			// second goes to the journal only.
			for _, id := range []string{"first", "second"} {
				if _, err := svc.PutNode(ctx, user(sess.ID), domain.NodeInput{ID: id, Gist: "a gist for " + id}); err != nil {
					t.Fatal(err)
				}
			}
			userJSON, userJournal := filepath.Join(root, "user.json"), filepath.Join(root, "user.journal")
			if fileHolds(t, userJSON, `"second"`) || !fileHolds(t, userJournal, `"second"`) {
				t.Fatal("the second write is not (only) in the journal before the checkpoint")
			}
			if !fileHolds(t, filepath.Join(root, "sessions.json"), sess.ID) && !fileHolds(t, filepath.Join(root, "sessions.journal"), sess.ID) {
				t.Fatal("the new session is stored nowhere")
			}
			if end == "tick" {
				svc.maint.Tick(ctx)
			} else if err := svc.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if !fileHolds(t, userJSON, `"second"`) {
				t.Errorf("user.json lacks the write after the %s", end)
			}
			if !fileHolds(t, filepath.Join(root, "sessions.json"), sess.ID) {
				t.Errorf("sessions.json lacks the session after the %s", end)
			}
			for _, j := range []string{userJournal, filepath.Join(root, "sessions.journal")} {
				if fi, err := os.Stat(j); err == nil && fi.Size() != 0 {
					t.Errorf("%s holds %d bytes after the %s, want none", filepath.Base(j), fi.Size(), end)
				}
			}
		})
	}
}
