package app

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/importing"
)

// readLogIDs is how many ids one session reads in BenchmarkReadByIDStorage
// (issue 28, item 8: 76 sessions reading 5,000 ids each grew the change
// log to 143 MB and sessions.json by 260 KB a session).
const readLogIDs = 5000

// BenchmarkReadByIDStorage: one session reads 5,000 ids of a user graph
// far over its budget (every read promotes an archived node, and the
// maintenance tick, run every 100 reads, archives others again), on the
// json backend. It reports what the reads leave on disk per id read: the
// change log's bytes (every history.jsonl file) and the session's bytes in
// sessions.json, once the service has closed.
func BenchmarkReadByIDStorage(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		root := b.TempDir()
		st, err := jsonfile.Open(root, jsonfile.Options{})
		if err != nil {
			b.Fatal(err)
		}
		clk := clock.NewManual(t0)
		cfg := DefaultConfig()
		cfg.Policy.MaxTokens = 2000
		svc, err := New(cfg, Deps{Graphs: st, Sessions: st, Clock: clk, Events: &recorder{}, Paths: fakePaths{}})
		if err != nil {
			b.Fatal(err)
		}
		doc := domain.GraphData{}
		old := domain.Micros(t0.Add(-60 * 24 * time.Hour).UnixMicro())
		for i := range readLogIDs {
			doc.Nodes = append(doc.Nodes, domain.Node{ID: fmt.Sprintf("lesson-about-subsystem-%05d", i),
				Gist: fmt.Sprintf("what was learnt about subsystem %d, in a sentence", i), Created: old, Version: domain.Version{TS: old}})
		}
		if _, err := svc.Import(ctx, Scope{Level: domain.LevelUser}, importing.Replace, doc, ImportOptions{}); err != nil {
			b.Fatal(err)
		}
		svc.maint.Tick(ctx)
		logBefore := historyBytes(b, root)
		sess, err := svc.RegisterSession(ctx, "", "")
		if err != nil {
			b.Fatal(err)
		}
		svc.maint.Tick(ctx)
		sessBefore := sessionBytes(b, root)
		b.StartTimer()
		for i := range readLogIDs {
			clk.Advance(time.Second)
			if _, err := svc.Read(ctx, ReadRequest{SessionID: sess.ID, IDs: []string{doc.Nodes[i].ID}}); err != nil {
				b.Fatal(err)
			}
			if i%100 == 99 {
				svc.maint.Tick(ctx)
			}
		}
		b.StopTimer()
		if err := svc.Close(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(historyBytes(b, root)-logBefore)/readLogIDs, "log-B/id")
		b.ReportMetric(float64(sessionBytes(b, root)-sessBefore)/readLogIDs, "session-B/id")
		b.StartTimer()
	}
}

// historyBytes is the size of every change log file under root.
func historyBytes(tb testing.TB, root string) int64 {
	return filesBytes(tb, root, func(name string) bool { return strings.Contains(name, "history.jsonl") })
}

// sessionBytes is the size of sessions.json and its journal.
func sessionBytes(tb testing.TB, root string) int64 {
	return filesBytes(tb, root, func(name string) bool { return strings.HasPrefix(name, "sessions.") })
}

func filesBytes(tb testing.TB, root string, match func(string) bool) int64 {
	tb.Helper()
	var n int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !match(d.Name()) {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		n += fi.Size()
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}
