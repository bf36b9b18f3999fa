package postgres_test

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/postgres"
	"github.com/kg-memory/kg/adapters/storage/postgres/pgtest"
	"github.com/kg-memory/kg/ports/porttest"
)

// TestMain runs the package's tests on one throwaway cluster (pgtest).
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// backend opens a Store for the contract suites on the database of dir: the
// suite's folder names the database, so a reopen (and a crash child) finds
// the same one.
var backend = porttest.Backend{Name: "postgres", Open: func(t testing.TB, dir string) porttest.Opened {
	t.Helper()
	url := pgtest.DatabaseFor(t, pgtest.NameFor(dir))
	s, err := postgres.Open(context.Background(), url, postgres.Options{Logger: quiet})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return porttest.Opened{Graphs: s, Sessions: s, InjectFault: s.InjectFault, Close: func() error {
		s.Close()
		return nil
	}}
}, Parallel: true, Summaries: true}

// TestContract runs the storage contract suite, its cases beside each other
// (each on a database of its own; they spend their time waiting on the
// server).
func TestContract(t *testing.T) {
	t.Parallel()
	porttest.Run(t, backend)
}

// TestRemoveProject runs the contract of `kg project rm`.
func TestRemoveProject(t *testing.T) {
	t.Parallel()
	porttest.RunRemoveProject(t, backend)
}

// TestCrash kills a writing child process with SIGKILL and checks that every
// acknowledged write survived (porttest.RunCrash). It runs beside the other
// tests: its rounds spend their time starting child processes.
func TestCrash(t *testing.T) {
	t.Parallel()
	porttest.RunCrash(t, backend, 10)
}

// quiet is the logger of the stores tests open: what they log is not news.
var quiet = slog.New(slog.DiscardHandler)
