package porttest

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// testSharedToolEvents: a repository that counts tool events for several
// servers (ports.SharedToolEventRepository) counts every event, concurrent
// ones included, per project and target; remembers the first distinct
// sessions; keeps the latest use; keeps a project's targets under its limit
// by dropping the least recently used; keeps its counts across a reopen;
// lets one claim of a nudge through per gap, of several at once too; and
// counts nothing when the save fails.
func testSharedToolEvents(h *harness) {
	repo, ok := h.o.Graphs.(ports.SharedToolEventRepository)
	if !ok {
		h.t.Skip("the backend is not shared: tool-event counts are the app's document (ToolEventsRoundTrip)")
	}
	c := &toolEventCase{h: h, repo: repo}
	const p, f = sharedToolProject, sharedToolTarget
	c.check("first use", c.count(p, f, "conv-1", 10), 1, []string{"conv-1"}, 10)
	c.check("the same conversation again", c.count(p, f, "conv-1", 30), 2, []string{"conv-1"}, 30)
	c.check("another conversation, earlier by its clock", c.count(p, f, "conv-2", 20), 3, []string{"conv-1", "conv-2"}, 30)
	c.check("no conversation", c.count(p, f, "", 40), 4, []string{"conv-1", "conv-2"}, 40)
	c.check("a third conversation, past the limit of two", c.count(p, f, "conv-3", 50), 5, []string{"conv-1", "conv-2"}, 50)
	c.check("another project, same target", c.count("github.com/acme/other", f, "conv-9", 60), 1, []string{"conv-9"}, 60)
	c.countAtOnce()
	c.claimNudges()

	// The limit of three targets: a fourth makes the least recently used
	// go. p holds f (last used at 80); two more, then a fourth.
	c.count(p, "url:https://example.com/a", "", 90)
	c.count(p, "search:zebra", "", 95)
	c.count(p, "file:new.go", "", 99)
	c.check("the least recently used target, counted again", c.count(p, f, "conv-4", 200), 1, []string{"conv-4"}, 200)

	if h.o.InjectFault != nil {
		c.failedCountChangesNothing()
	}

	h.reopen()
	c.repo = h.o.Graphs.(ports.SharedToolEventRepository)
	c.check("after a reopen", c.count("github.com/acme/other", f, "conv-9", 61), 2, []string{"conv-9"}, 61)
}

// The project and target most of testSharedToolEvents counts.
const sharedToolProject, sharedToolTarget = "github.com/acme/odd name ü", "file:src/pay.go"

// toolEventCase counts tool events in a shared store and checks the counts.
type toolEventCase struct {
	h    *harness
	repo ports.SharedToolEventRepository
}

func (c *toolEventCase) count(project, target, session string, now domain.Micros) ports.ToolTargetCounts {
	c.h.t.Helper()
	got, err := c.repo.CountToolEvent(c.h.ctx, ports.ToolEventCount{Project: project, Target: target, Session: session,
		Now: now, MaxSessions: 2, MaxTargets: 3})
	if err != nil {
		c.h.t.Fatalf("CountToolEvent(%s, %s): %v", project, target, err)
	}
	return got
}

func (c *toolEventCase) check(what string, got ports.ToolTargetCounts, n int, sessions []string, seen domain.Micros) {
	c.h.t.Helper()
	if got.Count != n || !slices.Equal(got.Sessions, sessions) || got.LastSeen != seen {
		c.h.t.Errorf("%s: %+v; want count %d, sessions %v, last seen %d", what, got, n, sessions, seen)
	}
}

// countAtOnce counts 50 events from 10 goroutines: none is lost.
func (c *toolEventCase) countAtOnce() {
	const p, f = sharedToolProject, sharedToolTarget
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for range 5 {
				if _, err := c.repo.CountToolEvent(c.h.ctx, ports.ToolEventCount{Project: p, Target: f, Now: 70, MaxSessions: 2, MaxTargets: 3}); err != nil {
					c.h.t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	c.check("after 50 counted at once", c.count(p, f, "", 80), 56, []string{"conv-1", "conv-2"}, 80)
}

// claimNudges claims nudges about a target: one a gap, and one of eight
// claimed at once.
func (c *toolEventCase) claimNudges() {
	const p, f = sharedToolProject, sharedToolTarget
	h := c.h
	if ok, err := c.repo.ClaimToolNudge(h.ctx, p, "file:never-counted.go", 100, 50); ok || err != nil {
		h.t.Errorf("a nudge about a target never counted: %v, %v; want false", ok, err)
	}
	for _, tc := range []struct {
		now  domain.Micros
		want bool
	}{{100, true}, {120, false}, {150, true}, {151, false}} {
		if ok, err := c.repo.ClaimToolNudge(h.ctx, p, f, tc.now, 50); ok != tc.want || err != nil {
			h.t.Errorf("a nudge at %d, gap 50: %v, %v; want %v", tc.now, ok, err, tc.want)
		}
	}
	var wg sync.WaitGroup
	var claimed atomic.Int32
	for range 8 {
		wg.Go(func() {
			if ok, err := c.repo.ClaimToolNudge(h.ctx, p, f, 1000, 50); err != nil {
				h.t.Error(err)
			} else if ok {
				claimed.Add(1)
			}
		})
	}
	wg.Wait()
	if claimed.Load() != 1 {
		h.t.Errorf("8 claims at once: %d went through, want 1", claimed.Load())
	}
}

// failedCountChangesNothing counts while the store fails: an unavailable
// error, and the next count is one more than before it.
func (c *toolEventCase) failedCountChangesNothing() {
	const p = sharedToolProject
	h := c.h
	before := c.count(p, "search:zebra", "", 300)
	h.o.InjectFault(errDiskFull)
	_, err := c.repo.CountToolEvent(h.ctx, ports.ToolEventCount{Project: p, Target: "search:zebra", Now: 301, MaxSessions: 2, MaxTargets: 3})
	h.o.InjectFault(nil)
	if domain.KindOf(err) != domain.KindUnavailable {
		h.t.Errorf("CountToolEvent failing: %v; want an unavailable error", err)
	}
	c.check("after a failed count", c.count(p, "search:zebra", "", 302), before.Count+1, nil, 302)
}

// testFindSession: a session repository several servers share finds a
// person's session by the conversation it is bound to, else their most
// recently active session of the project, with its hook state, and never
// another person's (ports.SharedSessionRepository.FindSession).
func testFindSession(h *harness) {
	repo, ok := h.o.Sessions.(ports.SharedSessionRepository)
	if !ok {
		h.t.Skip("the backend's sessions are not shared")
	}
	const p = "github.com/acme/api"
	sessions := []ports.Session{
		{ID: "a000000000000001", Principal: "alice", ProjectPath: p, Start: 1, LastActivity: 10,
			Hooks: ports.HookState{ClaudeSessionID: "conv-1", Seen: []string{"p:pay", "u:habit"}, FullReadDone: true}},
		{ID: "a000000000000002", Principal: "alice", ProjectPath: p, Start: 1, LastActivity: 20},
		{ID: "a000000000000003", Principal: "alice", ProjectPath: "github.com/acme/other", Start: 1, LastActivity: 40},
		{ID: "b000000000000001", Principal: "bob", ProjectPath: p, Start: 1, LastActivity: 30,
			Hooks: ports.HookState{ClaudeSessionID: "conv-bob"}},
	}
	if err := repo.UpdateSessions(h.ctx, ports.SessionChanges{Put: sessions}); err != nil {
		h.t.Fatal(err)
	}
	for _, c := range []struct {
		principal, claude, project, want string
	}{
		{"alice", "conv-1", p, "a000000000000001"},  // bound beats more recent
		{"alice", "conv-1", "", "a000000000000001"}, // bound, project unknown
		{"alice", "", p, "a000000000000002"},        // the most recent of the project
		{"alice", "conv-unknown", p, "a000000000000002"},
		{"bob", "conv-bob", p, "b000000000000001"},
		{"alice", "conv-bob", "", ""}, // bob's conversation is not alice's
		{"carol", "", p, ""},
		{"alice", "", "", ""},
	} {
		got, found, err := repo.FindSession(h.ctx, c.principal, c.claude, c.project)
		if err != nil {
			h.t.Fatalf("FindSession(%q, %q, %q): %v", c.principal, c.claude, c.project, err)
		}
		if found != (c.want != "") || got.ID != c.want {
			h.t.Errorf("FindSession(%q, %q, %q) = %q (found %v), want %q", c.principal, c.claude, c.project, got.ID, found, c.want)
		}
	}
	got, _, _ := repo.FindSession(h.ctx, "alice", "conv-1", p)
	if !got.Hooks.Equal(sessions[0].Hooks) || got.Principal != "alice" || got.LastActivity != 10 {
		h.t.Errorf("the session found: %+v; want it whole, hook state included", got)
	}
}
