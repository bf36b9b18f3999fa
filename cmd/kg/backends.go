package main

import (
	"context"
	"log/slog"

	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
)

// backend is one storage backend of store.Backends(), with the injector
// that opens it as `kg serve` does: for a backend that lives in the root it
// takes the root's lock and checks the marker first (wire_gen.go).
type backend struct {
	store.Backend
	inject injector
}

// injector is an injector of wire.go that opens a backend.
type injector func(ctx context.Context, cfg config.Config, addr store.LockAddr, log *slog.Logger) (store.Storage, func(), error)

// backends lists the storage backends, the first the default: those of
// store.Backends(), each with its injector.
func backends() []backend {
	injectors := map[string]injector{"json": injectJSON, "bolt": injectBolt, "postgres": injectPostgres}
	var out []backend
	for _, b := range store.Backends() {
		out = append(out, backend{Backend: b, inject: injectors[b.Name]})
	}
	return out
}

// backendNamed returns the backend called name.
func backendNamed(name string) (backend, bool) {
	for _, b := range backends() {
		if b.Name == name {
			return b, true
		}
	}
	return backend{}, false
}

// backendNames is the list of names for messages: "json, bolt or postgres".
func backendNames() string {
	var ns []string
	for _, b := range backends() {
		ns = append(ns, b.Name)
	}
	return config.OrList(ns)
}
