package app

import (
	"context"
	"slices"

	"github.com/kg-memory/kg/app/graphstore"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// Projects is GET /api/projects: every stored project graph and every
// loaded one not stored yet that holds something, with counts per tier and
// the time of the last change. A stored graph's counts come from the
// summary its repository keeps with each commit (team mode), else from the
// loaded copy, else from reading it without loading it into the store:
// listing must not run compaction on every project, and with a summary it
// reads no graph at all (docs/design/team.md#scale).
func (s *Service) Projects(ctx context.Context) ([]ProjectInfo, error) {
	stored, err := s.graphs.List(ctx)
	if err != nil {
		return nil, domain.WrapError(err, "list projects")
	}
	loaded := map[domain.GraphKey]*graphstore.Entry{}
	for _, e := range s.store.Loaded() {
		if e.Key().Level == domain.LevelProject {
			loaded[e.Key()] = e
		}
	}
	var stale []domain.GraphKey // loaded copies the listing counts from
	for _, sg := range stored {
		if _, ok := loaded[sg.Key]; ok && sg.Summary == nil {
			stale = append(stale, sg.Key)
		}
	}
	s.store.Fresh(ctx, stale...) // team mode: the loaded copies' counts as committed, in one round trip
	var out []ProjectInfo
	reader := target{owner: s.scope.owner(ctx)}
	for _, sg := range stored {
		e, isLoaded := loaded[sg.Key]
		delete(loaded, sg.Key)
		if !reader.mayRead(sg.Key) {
			continue // team mode: another person's private project is theirs alone
		}
		switch {
		case sg.Summary != nil:
			out = append(out, ProjectInfoOfSummary(s.cfg.Policy, sg.Slug, sg.Key, *sg.Summary))
		case isLoaded:
			out = append(out, loadedProjectInfo(s.cfg.Policy, sg.Slug, e))
		default:
			pi := ProjectInfo{Slug: sg.Slug, ProjectPath: sg.Key.Project}
			if data, err := s.graphs.Load(ctx, sg.Key); err != nil {
				s.log.Warn("project listed without counts", "graph", sg.Key.String(), "err", err)
			} else {
				pi = ProjectInfoOf(s.cfg.Policy, sg.Slug, sg.Key, data)
			}
			out = append(out, pi)
		}
	}
	rest := make([]domain.GraphKey, 0, len(loaded))
	for k := range loaded {
		rest = append(rest, k)
	}
	slices.SortFunc(rest, graphstore.CompareKeys)
	for _, k := range rest {
		e := loaded[k]
		e.RLock()
		nothing := e.Graph().HoldsNothing()
		e.RUnlock()
		if nothing || !reader.mayRead(k) {
			continue // only named (read, a session started): it has no memory
		}
		out = append(out, loadedProjectInfo(s.cfg.Policy, "", e)) // not saved yet: it has no folder
	}
	return out, nil
}

// loadedProjectInfo is the listing entry of a loaded project graph, counted
// under policy p.
func loadedProjectInfo(p compaction.Policy, slug string, e *graphstore.Entry) ProjectInfo {
	e.RLock()
	defer e.RUnlock()
	pi := ProjectInfo{Slug: slug, ProjectPath: e.Key().Project}
	pi.count(p, e.Graph().Stats(), e.Graph().Data().LastChange())
	return pi
}

// ProjectInfoOf is the listing entry of the stored project graph k, read from
// its data under policy p: what GET /api/projects shows of a graph that is
// not loaded, and what a listing made without the server shows.
func ProjectInfoOf(p compaction.Policy, slug string, k domain.GraphKey, data domain.GraphData) ProjectInfo {
	pi := ProjectInfo{Slug: slug, ProjectPath: k.Project}
	g, _ := domain.Restore(k, data, domain.RestoreOptions{})
	pi.count(p, g.Stats(), data.LastChange())
	return pi
}

// ProjectInfoOfSummary is the listing entry of the stored project graph k
// from the summary its repository keeps, under policy p.
func ProjectInfoOfSummary(p compaction.Policy, slug string, k domain.GraphKey, sum ports.GraphSummary) ProjectInfo {
	pi := ProjectInfo{Slug: slug, ProjectPath: k.Project}
	pi.count(p, sum.Stats, sum.LastChange)
	return pi
}

// count fills in the counts st and the token figures under policy p.
func (pi *ProjectInfo) count(p compaction.Policy, st domain.Stats, last domain.Micros) {
	pi.Stats, pi.LastChange = st, last
	pi.Estimate, pi.MaxTokens, pi.TargetTokens = st.Estimate(p.EstimateNotes), p.MaxTokens, p.Target()
}
