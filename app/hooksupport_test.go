package app

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/recall"
)

// preloadHeaderRoom is what a session start keeps of Config.PreloadChars
// for the header above the preload (hooks.MaxPreloadHeader) and the blank
// line after it.
const preloadHeaderRoom = 600 + 2

// preload is the preload of project a session start builds.
func (e *env) preload(project string) recall.Preload {
	e.t.Helper()
	pre, err := NewHookSupport(e.svc).Preload(e.ctx, project, e.clock.Now(), e.cfg.PreloadChars-preloadHeaderRoom)
	if err != nil {
		e.t.Fatal(err)
	}
	return pre
}

// A session start keeps each graph's preload order and uses it again while
// the graph is unchanged; a write makes the next one rank afresh, so the new
// node is preloaded (docs/design/hooks.md#the-preload). It reads the order
// kept on the graph's entry, which only app sees.
func TestPreloadKeepsItsOrderUntilAWrite(t *testing.T) {
	e := newEnv(t)
	w := e.session(projA)
	for i := range 400 {
		e.put(project(w), fmt.Sprintf("p%04d", i), fmt.Sprintf("project insight number %d about the build cache", i))
	}
	for i := range 100 {
		e.put(user(w), fmt.Sprintf("u%04d", i), fmt.Sprintf("user insight number %d about code review", i))
	}
	e.clock.Advance(time.Second)
	kept := func() *recall.PreloadRanking {
		en, err := e.svc.store.Get(e.ctx, domain.ProjectGraph(projA))
		if err != nil {
			t.Fatal(err)
		}
		return en.Preload.Load()
	}
	first := e.preload(projA)
	r1 := kept()
	if r1 == nil {
		t.Fatal("the project graph's preload order was not kept")
	}
	second := e.preload(projA)
	if kept() != r1 || second.Text != first.Text {
		t.Errorf("with no write between them, the second preload ranked again (%v) or preloaded otherwise", kept() != r1)
	}

	e.put(project(w), "fresh-insight", "a node written after the first preloads")
	third := e.preload(projA)
	if kept() == r1 {
		t.Error("the kept order survived a write")
	}
	if !strings.Contains(third.Text, "  fresh-insight: a node written after the first preloads") {
		t.Errorf("the node written since is not preloaded (a stale order):\n%.600s", third.Text)
	}
}
