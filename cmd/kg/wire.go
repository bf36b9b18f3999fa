//go:build wireinject

package main

// The injectors (google/wire): one per storage backend, which
// opens it, and one that builds the server on whatever storage was opened.
// `go tool wire ./cmd/kg` writes wire_gen.go from this file; `make
// wire-check` fails when it is stale.

import (
	"context"
	"log/slog"

	"github.com/google/wire"

	"github.com/kg-memory/kg/adapters/events"
	khttp "github.com/kg-memory/kg/adapters/http"
	"github.com/kg-memory/kg/adapters/metrics"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/hooks"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
	"github.com/kg-memory/kg/ports"
)

// Each backend's providers (internal/store) are listed in its injector
// rather than in a wire.NewSet variable: two providers, as the backend's
// line in backends() names one injector.

// injectJSON opens the JSON-file backend as `kg serve` does. It lives in
// the root, so it takes the root's lock first.
func injectJSON(ctx context.Context, cfg config.Config, addr store.LockAddr, log *slog.Logger) (store.Storage, func(), error) {
	panic(wire.Build(store.LockRoot, store.OpenJSON))
}

// injectBolt opens the bolt backend, <root>/kg.db, under the root's lock.
func injectBolt(ctx context.Context, cfg config.Config, addr store.LockAddr, log *slog.Logger) (store.Storage, func(), error) {
	panic(wire.Build(store.LockRoot, store.OpenBolt))
}

// injectPostgres opens the team-mode backend on KG_DATABASE_URL. It keeps
// nothing in the root, so it takes no lock: every server of a team shares
// the database.
func injectPostgres(ctx context.Context, cfg config.Config, addr store.LockAddr, log *slog.Logger) (store.Storage, func(), error) {
	panic(wire.Build(store.OpenPostgres))
}

// appSet is the app on an opened storage.
var appSet = wire.NewSet(
	wire.FieldsOf(new(store.Storage), "Graphs", "Sessions"),
	newHub,
	wire.Bind(new(ports.Events), new(*events.Hub)),
	systemClock,
	osPaths,
	homeTranscripts,
	osProjectKeys,
	osFiles,
	appConfig,
	wire.Struct(new(app.Deps), "*"),
	openService,
)

// httpSet is the HTTP side of the server, with the hooks its hook routes
// call.
var httpSet = wire.NewSet(
	httpConfig,
	hooks.New,
	khttp.NewServer,
	wire.Struct(new(server), "*"),
)

// initServer builds the server on an opened storage, with its metrics.
func initServer(ctx context.Context, cfg config.Config, st store.Storage, log *slog.Logger) (*server, func(), error) {
	panic(wire.Build(appSet, httpSet, newMetrics, wire.Bind(new(ports.Metrics), new(*metrics.Metrics)),
		wire.Bind(new(khttp.Service), new(*app.Service)), wire.Bind(new(khttp.Hooks), new(*hooks.Hooks))))
}

// initApp builds the app alone on an opened storage, for a command that
// works on the files while no server runs (`kg import`): it records no
// metrics.
func initApp(ctx context.Context, cfg config.Config, st store.Storage, log *slog.Logger) (*app.Service, func(), error) {
	panic(wire.Build(appSet, noMetrics))
}
