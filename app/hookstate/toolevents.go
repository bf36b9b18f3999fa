package hookstate

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Limits of the tool-event counts (docs/design/hooks.md#tool-events).
const (
	// maxToolTargets is how many targets a project keeps counts of; past
	// it the least recently seen goes.
	maxToolTargets = 1000
	// maxTargetSessions is how many distinct conversations a target
	// remembers: two are what a nudge needs.
	maxTargetSessions = 4
)

// ToolEvents counts the targets of tool events per project, in memory. The
// counts are saved whole with the maintenance tick (Save), through the
// repository when it keeps them, so an event costs no write
// (docs/design/hooks.md#tool-events).
//
// In team mode the shared repository counts each event instead, so that
// every server sees every server's counts
// (docs/design/team.md#tool-event-counts); the counts in memory then only
// stand in while the database cannot be reached.
type ToolEvents struct {
	repo   ports.ToolEventRepository       // nil: counts are not kept across restarts
	shared ports.SharedToolEventRepository // team mode; nil otherwise
	log    *slog.Logger

	mu       sync.Mutex
	projects map[string]map[string]*Target
	dirty    bool
	saveMu   sync.Mutex
}

// Target is what is known of one target of one project.
type Target struct {
	Sessions  []string      `json:"sessions,omitempty"` // distinct Claude sessions that used it, at most maxTargetSessions
	Count     int           `json:"count"`
	LastSeen  domain.Micros `json:"last_seen_us"`
	LastNudge domain.Micros `json:"last_nudge_us,omitempty"`
}

// toolEventsDoc is the stored document.
type toolEventsDoc struct {
	Version  int                           `json:"version"`
	Projects map[string]map[string]*Target `json:"projects"`
}

// LoadToolEvents reads the stored counts. Counts are disposable: a document
// that cannot be read is logged and the counts start empty.
func LoadToolEvents(ctx context.Context, repo ports.ToolEventRepository, shared ports.SharedToolEventRepository, log *slog.Logger) *ToolEvents {
	t := &ToolEvents{repo: repo, shared: shared, log: log, projects: map[string]map[string]*Target{}}
	if repo == nil {
		return t
	}
	raw, err := repo.LoadToolEvents(ctx)
	if err != nil {
		log.Warn("tool-event counts could not be loaded; starting with none", "err", err)
		return t
	}
	if raw == nil {
		return t
	}
	var doc toolEventsDoc
	if err := json.Unmarshal(raw, &doc); err != nil || doc.Version != 1 {
		log.Warn("tool-event counts are not in a known form; starting with none", "err", err, "version", doc.Version)
		return t
	}
	for p, targets := range doc.Projects {
		for k, tt := range targets {
			if tt == nil {
				delete(targets, k)
			}
		}
		t.projects[p] = targets
	}
	return t
}

// Record counts one use of target in project by the Claude session claude
// at now and returns a copy of what is now known of it.
func (t *ToolEvents) Record(ctx context.Context, project, target, claude string, now domain.Micros) Target {
	if t.shared != nil {
		c, err := t.shared.CountToolEvent(ctx, ports.ToolEventCount{Project: project, Target: target, Session: claude, Now: now,
			MaxSessions: maxTargetSessions, MaxTargets: maxToolTargets})
		if err == nil {
			return Target{Sessions: c.Sessions, Count: c.Count, LastSeen: c.LastSeen, LastNudge: c.LastNudge}
		}
		t.log.Warn("a tool event could not be counted in the database; counted on this server alone", "err", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	targets := t.projects[project]
	if targets == nil {
		targets = map[string]*Target{}
		t.projects[project] = targets
	}
	tt := targets[target]
	if tt == nil {
		if len(targets) >= maxToolTargets {
			evictOldest(targets)
		}
		tt = &Target{}
		targets[target] = tt
	}
	tt.Count++
	tt.LastSeen = max(tt.LastSeen, now)
	if claude != "" && len(tt.Sessions) < maxTargetSessions && !contains(tt.Sessions, claude) {
		tt.Sessions = append(tt.Sessions, claude)
	}
	t.dirty = true
	c := *tt
	c.Sessions = append([]string(nil), tt.Sessions...)
	return c
}

// ClaimNudge records a nudge about target at now unless one was given in
// the last day: the per-target throttle. It reports whether the nudge may
// go.
func (t *ToolEvents) ClaimNudge(ctx context.Context, project, target string, now domain.Micros) bool {
	if t.shared != nil {
		ok, err := t.shared.ClaimToolNudge(ctx, project, target, now, domain.Day)
		if err == nil {
			return ok
		}
		t.log.Warn("a tool-event nudge could not be recorded in the database; decided on this server alone", "err", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	tt := t.projects[project][target]
	if tt == nil || tt.LastNudge != 0 && now-tt.LastNudge < domain.Day {
		return false
	}
	tt.LastNudge = now
	t.dirty = true
	return true
}

// evictOldest drops the least recently seen target.
func evictOldest(targets map[string]*Target) {
	var oldest string
	var at domain.Micros
	for k, tt := range targets {
		if oldest == "" || tt.LastSeen < at || tt.LastSeen == at && k < oldest {
			oldest, at = k, tt.LastSeen
		}
	}
	delete(targets, oldest)
}

// Save stores the counts whole when they changed since the last save. Its
// error is the repository's, for the caller to wrap.
func (t *ToolEvents) Save(ctx context.Context) error {
	if t.repo == nil {
		return nil
	}
	t.saveMu.Lock()
	defer t.saveMu.Unlock()
	t.mu.Lock()
	if !t.dirty {
		t.mu.Unlock()
		return nil
	}
	raw, err := json.Marshal(toolEventsDoc{Version: 1, Projects: t.projects})
	t.dirty = false
	t.mu.Unlock()
	if err == nil {
		err = t.repo.SaveToolEvents(ctx, raw)
	}
	if err != nil {
		t.mu.Lock()
		t.dirty = true
		t.mu.Unlock()
		return err
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
