//go:build wireinject

package main

// The injectors: one per storage backend (style.md, google/wire). `go tool
// wire ./cmd/kg` writes wire_gen.go from this file; `make wire-check`
// fails when it is stale.

import (
	"context"
	"log/slog"

	"github.com/google/wire"

	"github.com/kg-memory/kg/adapters/events"
	khttp "github.com/kg-memory/kg/adapters/http"
	"github.com/kg-memory/kg/adapters/storage/bolt"
	"github.com/kg-memory/kg/adapters/storage/jsonfile"
	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/ports"
)

// common is everything but the storage.
var common = wire.NewSet(
	lockRoot,
	newHub,
	wire.Bind(new(ports.Events), new(*events.Hub)),
	systemClock,
	osPaths,
	appConfig,
	wire.Struct(new(app.Deps), "*"),
	openService,
	httpConfig,
	khttp.NewServer,
	wire.Bind(new(khttp.Service), new(*app.Service)),
	wire.Struct(new(server), "*"),
)

var jsonStorage = wire.NewSet(
	openJSON,
	wire.Bind(new(ports.GraphRepository), new(*jsonfile.Store)),
	wire.Bind(new(ports.SessionRepository), new(*jsonfile.Store)),
)

var boltStorage = wire.NewSet(
	openBolt,
	wire.Bind(new(ports.GraphRepository), new(*bolt.Store)),
	wire.Bind(new(ports.SessionRepository), new(*bolt.Store)),
)

// initJSON builds the server on the JSON-file backend.
func initJSON(ctx context.Context, cfg Config, addr lockAddr, log *slog.Logger) (*server, func(), error) {
	panic(wire.Build(common, jsonStorage))
}

// initBolt builds the server on the bolt backend.
func initBolt(ctx context.Context, cfg Config, addr lockAddr, log *slog.Logger) (*server, func(), error) {
	panic(wire.Build(common, boltStorage))
}
