package app

import (
	"context"
	"slices"

	"github.com/kg-memory/kg/domain"
)

// Projects is GET /api/projects: every stored project graph and every
// loaded one not stored yet that holds something, with counts per tier and
// the time of the last change. A stored graph that is not loaded is read for its counts but not
// loaded into the store: listing must not run compaction on every project.
func (s *Service) Projects(ctx context.Context) ([]ProjectInfo, error) {
	stored, err := s.graphs.List(ctx)
	if err != nil {
		return nil, wrapErr(err, "list projects")
	}
	loaded := map[domain.GraphKey]*graphEntry{}
	var keys []domain.GraphKey
	for _, e := range s.store.loaded() {
		if e.key.Level == domain.LevelProject {
			loaded[e.key] = e
			keys = append(keys, e.key)
		}
	}
	s.store.fresh(ctx, keys...) // team mode: the loaded copies' counts as committed, in one round trip
	var out []ProjectInfo
	reader := target{owner: s.owner(ctx)}
	info := func(k domain.GraphKey, slug string) {
		if !reader.mayRead(k) {
			return // team mode: another person's private project is theirs alone
		}
		pi := ProjectInfo{Slug: slug, ProjectPath: k.Project}
		if e, ok := loaded[k]; ok {
			e.mu.RLock()
			pi.count(s.cfg.Policy, e.g, e.g.Data().LastChange())
			e.mu.RUnlock()
		} else {
			data, err := s.graphs.Load(ctx, k)
			if err != nil {
				s.log.Warn("project listed without counts", "graph", k.String(), "err", err)
			} else {
				pi = ProjectInfoOf(s.cfg.Policy, slug, k, data)
			}
		}
		out = append(out, pi)
	}
	for _, sg := range stored {
		info(sg.Key, sg.Slug)
		delete(loaded, sg.Key)
	}
	rest := make([]domain.GraphKey, 0, len(loaded))
	for k := range loaded {
		rest = append(rest, k)
	}
	slices.SortFunc(rest, cmpKey)
	for _, k := range rest {
		e := loaded[k]
		e.mu.RLock()
		nothing := e.g.HoldsNothing()
		e.mu.RUnlock()
		if nothing {
			continue // only named (read, a session started): it has no memory
		}
		info(k, "") // not saved yet: it has no folder
	}
	return out, nil
}

// ProjectInfoOf is the listing entry of the stored project graph k, read from
// its data under policy p: what GET /api/projects shows of a graph that is
// not loaded, and what a listing made without the server shows.
func ProjectInfoOf(p domain.Policy, slug string, k domain.GraphKey, data domain.GraphData) ProjectInfo {
	pi := ProjectInfo{Slug: slug, ProjectPath: k.Project}
	g, _ := domain.Restore(k, data, domain.RestoreOptions{})
	pi.count(p, g, data.LastChange())
	return pi
}

// count fills in the counts and token figures of g.
func (pi *ProjectInfo) count(p domain.Policy, g *domain.Graph, last domain.Micros) {
	pi.Stats, pi.LastChange = g.Stats(), last
	pi.Estimate, pi.MaxTokens, pi.TargetTokens = p.Estimate(g), p.MaxTokens, p.Target()
}
