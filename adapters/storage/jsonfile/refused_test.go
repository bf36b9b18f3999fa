package jsonfile

import (
	"errors"
	"slices"
	"syscall"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// refusedAppend commits "old", then fails the commit of "new" with the
// faults of fail (op and the path relative to the root), and returns the
// root and that commit's error.
func refusedAppend(t *testing.T, fail func(op, name string) error) (string, error) {
	t.Helper()
	root := t.TempDir()
	s, tfs, _ := openTest(t, root)
	ctx := t.Context()
	g := oldThenNew(t, s, "refused")
	tfs.mu.Lock()
	tfs.fail = fail
	tfs.mu.Unlock()
	err := s.Commit(ctx, domain.UserGraph, g, g.Pending())
	tfs.setFault(nil)
	if err == nil {
		t.Fatal("the commit succeeded; the faults were not met")
	}
	// In this process the refused batch is not part of the graph.
	if d, lerr := s.Load(ctx, domain.UserGraph); lerr != nil || !slices.Equal(nodeIDs(d), []string{"old"}) {
		t.Errorf("load in the same process: %v, %v; want [old]", nodeIDs(d), lerr)
	}
	return root, err
}

// TestRefusedAppendIsNeverReplayed: the journal's fsync fails and cutting
// the record off fails too (the disk went read-only in between). The commit
// is refused, so a restart from the same root must not replay the record:
// it is made unreplayable on disk before the refusal returns
// (docs/decisions/0075-a-refused-journal-record-is-voided-on-disk.md).
func TestRefusedAppendIsNeverReplayed(t *testing.T) {
	fsyncs := 0
	root, err := refusedAppend(t, func(op, name string) error {
		switch {
		case name != "user.journal":
			return nil
		case op == "truncate":
			return syscall.EROFS
		case op == "fsync":
			fsyncs++
			if fsyncs == 1 { // the record's own fsync
				return syscall.EIO
			}
		}
		return nil
	})
	if domain.KindOf(err) != domain.KindUnavailable || !errors.Is(err, syscall.EIO) || errors.Is(err, ports.ErrMaybeSaved) {
		t.Fatalf("commit = %v, want a refusal (unavailable, wrapping EIO, not maybe saved)", err)
	}
	s2, _, logs := openTest(t, root)
	d, err := s2.Load(t.Context(), domain.UserGraph)
	if err != nil || !slices.Equal(nodeIDs(d), []string{"old"}) {
		t.Fatalf("after a restart: %v, %v; want [old]: the refused write came back", nodeIDs(d), err)
	}
	if logs.Len() == 0 {
		t.Error("dropping the voided record was not logged")
	}
	// The journal takes records again after the restart.
	g, _ := domain.Restore(domain.UserGraph, d, domain.RestoreOptions{})
	if _, err := g.PutNode(domain.NodeInput{ID: "later", Gist: "kept"}, domain.Stamp{Now: 1716400003_000000}); err != nil {
		t.Fatal(err)
	}
	if err := s2.Commit(t.Context(), domain.UserGraph, g, g.Pending()); err != nil {
		t.Fatal(err)
	}
	s3, _, _ := openTest(t, root)
	if d, err := s3.Load(t.Context(), domain.UserGraph); err != nil || !slices.Equal(nodeIDs(d), []string{"later", "old"}) {
		t.Errorf("after the next write and a restart: %v, %v; want [later old]", nodeIDs(d), err)
	}
}

// TestUnvoidableAppendIsNotReportedRefused: when no write reaches the
// journal any more (fsync, truncate and the voiding write all fail), the
// record may still be on disk and come back at the next start, so the
// error must not say nothing changed: it wraps ports.ErrMaybeSaved.
func TestUnvoidableAppendIsNotReportedRefused(t *testing.T) {
	writes := 0
	_, err := refusedAppend(t, func(op, name string) error {
		if name != "user.journal" {
			return nil
		}
		switch op {
		case "fsync", "truncate":
			return syscall.EROFS
		case "write":
			writes++
			if writes > 1 { // the record itself is written; nothing after it
				return syscall.EROFS
			}
		}
		return nil
	})
	if domain.KindOf(err) != domain.KindUnavailable || !errors.Is(err, ports.ErrMaybeSaved) {
		t.Fatalf("commit = %v, want unavailable wrapping ports.ErrMaybeSaved", err)
	}
}

// A record whose write was cut short holds no newline: when it cannot be
// cut off either, it is a torn tail already, dropped by every load, so the
// refusal stands without voiding anything.
func TestShortWriteThatCannotBeCutOffIsStillRefused(t *testing.T) {
	root, err := refusedAppend(t, func(op, name string) error {
		if name == "user.journal" && (op == "write" || op == "truncate") {
			return syscall.ENOSPC
		}
		return nil
	})
	if domain.KindOf(err) != domain.KindUnavailable || !errors.Is(err, syscall.ENOSPC) || errors.Is(err, ports.ErrMaybeSaved) {
		t.Fatalf("commit = %v, want a refusal (unavailable, wrapping ENOSPC, not maybe saved)", err)
	}
	s2, _, _ := openTest(t, root)
	if d, err := s2.Load(t.Context(), domain.UserGraph); err != nil || !slices.Equal(nodeIDs(d), []string{"old"}) {
		t.Fatalf("after a restart: %v, %v; want [old]", nodeIDs(d), err)
	}
}
