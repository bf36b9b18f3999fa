// Package apptest is a test environment for the packages built on app
// (app/hooks): one service opened through app.Open on the memory adapters,
// with a manual clock, driven only through app's exported API, so that a
// test outside app asserts what the service really does.
package apptest

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"path"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/clock"
	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Projects the tests work in.
const (
	ProjA = "/work/proj-a"
	ProjB = "/work/proj-b"
)

// T0 is when the manual clock starts.
var T0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// Env is one service on a memory store with a manual clock.
type Env struct {
	T     *testing.T
	Ctx   context.Context
	Store *memory.Store
	Clock *clock.Manual
	Cfg   app.Config
	Svc   *app.Service
	// Transcripts, when set before Restart, reads Claude Code transcripts.
	Transcripts ports.Transcripts

	ticks chan struct{} // a maintenance tick done, as the service logs it
}

// tickInterval is the maintenance interval of Tick's loop: short, since
// the loop runs only while Tick waits for one tick.
const tickInterval = 2 * time.Millisecond

// New opens a service with the default configuration changed by opts.
func New(t *testing.T, opts ...func(*app.Config)) *Env {
	t.Helper()
	e := &Env{T: t, Ctx: context.Background(), Store: memory.New(), Clock: clock.NewManual(T0), Cfg: app.DefaultConfig(),
		ticks: make(chan struct{}, 1)}
	for _, o := range opts {
		o(&e.Cfg)
	}
	e.Cfg.MaintenanceInterval = tickInterval
	e.Svc = e.open()
	return e
}

// open starts a service on the env's store and clock.
func (e *Env) open() *app.Service {
	e.T.Helper()
	log := slog.New(tickSignal{ticks: e.ticks})
	svc, err := app.Open(e.Ctx, e.Cfg, app.Deps{Graphs: e.Store, Sessions: e.Store, Clock: e.Clock, Events: Discard{},
		Paths: CleanPaths{}, Log: log, Transcripts: e.Transcripts})
	if err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(func() { _ = svc.Close(context.Background()) })
	return svc
}

// Restart closes the service and opens a new one on the same store.
func (e *Env) Restart() {
	e.T.Helper()
	if err := e.Svc.Close(e.Ctx); err != nil {
		e.T.Fatal(err)
	}
	e.Svc = e.open()
}

// Support is the service's hook support.
func (e *Env) Support() *app.HookSupport { return app.NewHookSupport(e.Svc) }

// Tick runs the service's maintenance loop (Service.Run) until it has done
// one tick, then stops it: the tick's duties are app's own, and the loop is
// how anything outside app has them done.
func (e *Env) Tick() {
	e.T.Helper()
	select { // a signal left from an earlier loop's last tick
	case <-e.ticks:
	default:
	}
	ctx, cancel := context.WithCancel(e.Ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Svc.Run(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	select {
	case <-e.ticks:
	case <-time.After(10 * time.Second):
		e.T.Fatal("no maintenance tick within 10s")
	}
}

// Session registers a session of project and returns its id.
func (e *Env) Session(project string) string {
	e.T.Helper()
	s, err := e.Svc.RegisterSession(e.Ctx, project, "")
	if err != nil {
		e.T.Fatal(err)
	}
	return s.ID
}

// Put writes node id with gist in scope sc.
func (e *Env) Put(sc app.Scope, id, gist string) app.PutNodeResult {
	e.T.Helper()
	r, err := e.Svc.PutNode(e.Ctx, sc, domain.NodeInput{ID: id, Gist: gist})
	if err != nil {
		e.T.Fatalf("PutNode %s: %v", id, err)
	}
	return r
}

// Edge writes the edge from --rel--> to in scope sc.
func (e *Env) Edge(sc app.Scope, from, to, rel string) {
	e.T.Helper()
	if _, err := e.Svc.PutEdge(e.Ctx, sc, domain.EdgeInput{From: from, To: to, Rel: rel}); err != nil {
		e.T.Fatalf("PutEdge: %v", err)
	}
}

// User is the user graph of session.
func User(session string) app.Scope { return app.Scope{SessionID: session, Level: domain.LevelUser} }

// Project is the project graph of session.
func Project(session string) app.Scope {
	return app.Scope{SessionID: session, Level: domain.LevelProject}
}

// WantKind fails unless err is a *domain.Error of kind k (and field, when
// given).
func WantKind(t *testing.T, err error, k domain.Kind, field string) *domain.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", k)
	}
	if got := domain.KindOf(err); got != k {
		t.Fatalf("error %q has kind %s, want %s", err, got, k)
	}
	var de *domain.Error
	if !errors.As(err, &de) {
		t.Fatalf("error %q is not a *domain.Error", err)
	}
	if field != "" && de.Field != field {
		t.Fatalf("error %q names field %q, want %q", err, de.Field, field)
	}
	return de
}

// CleanPaths is a PathResolver without I/O: absolute paths are cleaned,
// relative ones refused, as paths.OS does.
type CleanPaths struct{}

// Canonical cleans the absolute path p.
func (CleanPaths) Canonical(p string) (string, error) {
	if !path.IsAbs(p) {
		return "", domain.Invalidf("path", "must be an absolute path")
	}
	return path.Clean(p), nil
}

// Discard is an Events sink that drops what it is given.
type Discard struct{}

// Publish drops the events.
func (Discard) Publish(iter.Seq[ports.Event]) {}

// tickSignal is a log handler that drops every record but signals the end
// of a maintenance tick, which the service logs at debug level.
type tickSignal struct{ ticks chan struct{} }

func (h tickSignal) Enabled(context.Context, slog.Level) bool { return true }

func (h tickSignal) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "maintenance tick done" {
		select {
		case h.ticks <- struct{}{}:
		default:
		}
	}
	return nil
}

func (h tickSignal) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h tickSignal) WithGroup(string) slog.Handler      { return h }
