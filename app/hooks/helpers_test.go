package hooks

import (
	"testing"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/internal/apptest"
)

const (
	projA = apptest.ProjA
	projB = apptest.ProjB
)

// env is the app's test environment with the hooks on its service.
type env struct {
	*apptest.Env
}

func newEnv(t *testing.T, opts ...func(*app.Config)) *env {
	t.Helper()
	return &env{Env: apptest.New(t, opts...)}
}

// hooks are the hook routes' use cases on the env's service.
func (e *env) hooks() *Hooks { return New(e.Svc) }

func user(session string) app.Scope    { return apptest.User(session) }
func project(session string) app.Scope { return apptest.Project(session) }

var wantKind = apptest.WantKind
