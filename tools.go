//go:build tools

// Package tools pins the modules kg's build and tests use before every
// package imports them, so that go.mod does not churn while they land.
package tools

import (
	_ "github.com/coder/websocket"
	_ "github.com/go-chi/chi/v5"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/google/wire"
	_ "github.com/mark3labs/mcp-go/server"
	_ "go.etcd.io/bbolt"
	_ "pgregory.net/rapid"
)
