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
	count := func(project, target, session string, now domain.Micros) ports.ToolTargetCounts {
		h.t.Helper()
		got, err := repo.CountToolEvent(h.ctx, ports.ToolEventCount{Project: project, Target: target, Session: session,
			Now: now, MaxSessions: 2, MaxTargets: 3})
		if err != nil {
			h.t.Fatalf("CountToolEvent(%s, %s): %v", project, target, err)
		}
		return got
	}
	const p, f = "github.com/acme/odd name ü", "file:src/pay.go"
	check := func(what string, got ports.ToolTargetCounts, n int, sessions []string, seen domain.Micros) {
		h.t.Helper()
		if got.Count != n || !slices.Equal(got.Sessions, sessions) || got.LastSeen != seen {
			h.t.Errorf("%s: %+v; want count %d, sessions %v, last seen %d", what, got, n, sessions, seen)
		}
	}
	check("first use", count(p, f, "conv-1", 10), 1, []string{"conv-1"}, 10)
	check("the same conversation again", count(p, f, "conv-1", 30), 2, []string{"conv-1"}, 30)
	check("another conversation, earlier by its clock", count(p, f, "conv-2", 20), 3, []string{"conv-1", "conv-2"}, 30)
	check("no conversation", count(p, f, "", 40), 4, []string{"conv-1", "conv-2"}, 40)
	check("a third conversation, past the limit of two", count(p, f, "conv-3", 50), 5, []string{"conv-1", "conv-2"}, 50)
	check("another project, same target", count("github.com/acme/other", f, "conv-9", 60), 1, []string{"conv-9"}, 60)

	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for range 5 {
				if _, err := repo.CountToolEvent(h.ctx, ports.ToolEventCount{Project: p, Target: f, Now: 70, MaxSessions: 2, MaxTargets: 3}); err != nil {
					h.t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	check("after 50 counted at once", count(p, f, "", 80), 56, []string{"conv-1", "conv-2"}, 80)

	if ok, err := repo.ClaimToolNudge(h.ctx, p, "file:never-counted.go", 100, 50); ok || err != nil {
		h.t.Errorf("a nudge about a target never counted: %v, %v; want false", ok, err)
	}
	for _, c := range []struct {
		now  domain.Micros
		want bool
	}{{100, true}, {120, false}, {150, true}, {151, false}} {
		if ok, err := repo.ClaimToolNudge(h.ctx, p, f, c.now, 50); ok != c.want || err != nil {
			h.t.Errorf("a nudge at %d, gap 50: %v, %v; want %v", c.now, ok, err, c.want)
		}
	}
	var claimed atomic.Int32
	for range 8 {
		wg.Go(func() {
			if ok, err := repo.ClaimToolNudge(h.ctx, p, f, 1000, 50); err != nil {
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

	// The limit of three targets: a fourth makes the least recently used
	// go. p holds f (last used at 80); two more, then a fourth.
	count(p, "url:https://example.com/a", "", 90)
	count(p, "search:zebra", "", 95)
	count(p, "file:new.go", "", 99)
	check("the least recently used target, counted again", count(p, f, "conv-4", 200), 1, []string{"conv-4"}, 200)

	if h.o.InjectFault != nil {
		before := count(p, "search:zebra", "", 300)
		h.o.InjectFault(errDiskFull)
		_, err := repo.CountToolEvent(h.ctx, ports.ToolEventCount{Project: p, Target: "search:zebra", Now: 301, MaxSessions: 2, MaxTargets: 3})
		h.o.InjectFault(nil)
		if domain.KindOf(err) != domain.KindUnavailable {
			h.t.Errorf("CountToolEvent failing: %v; want an unavailable error", err)
		}
		check("after a failed count", count(p, "search:zebra", "", 302), before.Count+1, nil, 302)
	}

	h.reopen()
	repo = h.o.Graphs.(ports.SharedToolEventRepository)
	check("after a reopen", count("github.com/acme/other", f, "conv-9", 61), 2, []string{"conv-9"}, 61)
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
