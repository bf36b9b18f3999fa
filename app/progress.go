package app

import (
	"context"
	"strconv"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// maintainTask is the kg_progress task a maintenance pass records itself
// under (docs/design/hooks.md#maintenance-debt).
const maintainTask = "maintain"

// maintainedMeta is the graph metadata value that holds when the task
// maintain was last saved, in microseconds.
const maintainedMeta = "maintained_us"

// lastMaintained is when the task maintain was last saved on g; 0 for
// never.
func lastMaintained(g *domain.Graph) domain.Micros {
	if raw, ok := g.Meta(maintainedMeta); ok {
		if t, err := strconv.ParseInt(string(raw), 10, 64); err == nil && t > 0 {
			return domain.Micros(t)
		}
	}
	return 0
}

// progressKey resolves the graph of a kg_progress call: the user graph by
// default.
func (s *Service) progressKey(ctx context.Context, sc Scope) (target, domain.GraphKey, error) {
	t, err := s.scope.resolve(ctx, sc)
	if err != nil {
		return t, domain.GraphKey{}, err
	}
	level := sc.Level
	if level == "" {
		level = domain.LevelUser
	}
	k, err := t.key(level)
	return t, k, err
}

// SaveProgress is kg_progress with a state: it stores the state of task
// whole, replacing what was there, and returns once it is durable. The
// project level loads the project graph first.
func (s *Service) SaveProgress(ctx context.Context, sc Scope, task string, state domain.RawJSON) (err error) {
	t, k, err := s.progressKey(ctx, sc)
	if err != nil {
		return err
	}
	defer s.countOp(t.session, &err)
	if err := domain.ValidateID("task_id", task); err != nil {
		return err
	}
	if err := domain.ValidateProgressState("state", state); err != nil {
		return err
	}
	e, err := s.store.Get(ctx, k)
	if err != nil {
		return err
	}
	return s.store.Write(ctx, e, t.session, func(g *domain.Graph, at domain.Stamp) ([]ports.Event, error) {
		if err := g.SetProgress(task, state); err != nil {
			return nil, err
		}
		if task == maintainTask {
			// When the graph was last maintained, for its maintenance debt
			// (docs/design/hooks.md#maintenance-debt).
			g.SetMeta(maintainedMeta, domain.RawJSON(strconv.FormatInt(int64(at.Now), 10)))
		}
		return nil, nil
	})
}

// LoadProgress is kg_progress without a state: the stored state of task,
// and whether there is one.
func (s *Service) LoadProgress(ctx context.Context, sc Scope, task string) (_ domain.RawJSON, _ bool, err error) {
	t, k, err := s.progressKey(ctx, sc)
	if err != nil {
		return nil, false, err
	}
	defer s.countOp(t.session, &err)
	s.store.Fresh(ctx, k) // team mode: what other servers committed
	e, err := s.store.Get(ctx, k)
	if err != nil {
		return nil, false, err
	}
	e.RLock()
	defer e.RUnlock()
	p, ok := e.Graph().Progress(task)
	return append(domain.RawJSON(nil), p...), ok, nil
}
