package hooks

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/fullread"
)

// debtHorizon is the time since the last maintenance pass at which a graph's
// staleness is full.
const debtHorizon = 14 * domain.Day

// MaintenanceDebt is GET /api/maintenance_debt: the maintenance debt of the
// user graph and of every project graph, stored or loaded, worst first
// (docs/design/hooks.md#maintenance-debt). A stored graph that is not loaded
// is read for its figures, not loaded, as GET /api/projects does.
func (h *Hooks) MaintenanceDebt(ctx context.Context) (DebtReport, error) {
	now := h.sup.Now()
	var rep DebtReport
	// Team mode: the user graph caught up with what other servers
	// committed (Projects does the same for the loaded projects).
	h.sup.ReadUserGraph(ctx, func(g *domain.Graph) {
		rep.Graphs = append(rep.Graphs, debtOf(g, now, h.sup.Policy(), h.sup.LastMaintained(g)))
	})
	projects, err := h.svc.Projects(ctx)
	if err != nil {
		return DebtReport{}, err
	}
	for _, p := range projects {
		k := domain.ProjectGraph(p.ProjectPath)
		err := h.sup.ReadGraph(ctx, k, func(g *domain.Graph) {
			rep.Graphs = append(rep.Graphs, debtOf(g, now, h.sup.Policy(), h.sup.LastMaintained(g)))
		})
		if err != nil {
			h.sup.Log().Warn("maintenance debt without a graph", "graph", k.String(), "err", err)
		}
	}
	slices.SortStableFunc(rep.Graphs, func(a, b GraphDebt) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if a.Level != b.Level {
			if a.Level == domain.LevelUser {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Project, b.Project)
	})
	return rep, nil
}

// debtOf is the debt of one graph: staleness × wear, where staleness is the
// time since the last maintenance pass over debtHorizon (1 past it, and for
// a graph never maintained) and wear is 0.25 plus 0.75 × the mean of three
// shares — active nodes with no shown edge, archived nodes among the
// active and archived, and how far the estimate is over the budget's
// target. An empty graph owes nothing. maintained is when the last pass was
// recorded (app.HookSupport.LastMaintained); 0 for never.
func debtOf(g *domain.Graph, now domain.Micros, p compaction.Policy, maintained domain.Micros) GraphDebt {
	st := g.Stats()
	v := fullread.Build(g, p)
	d := GraphDebt{Level: g.Key().Level, Project: g.Key().Project, Active: st.Active, Archived: st.Archived,
		Orphaned: st.Orphaned, Unconnected: v.Health.Unconnected, SinceMaintained: -1}
	if maintained > 0 {
		d.SinceMaintained = max(now-maintained, 0)
	}
	if st.Active+st.Archived == 0 {
		return d
	}
	stale := 1.0
	if d.SinceMaintained >= 0 {
		stale = min(float64(d.SinceMaintained)/float64(debtHorizon), 1)
	}
	var unconnected, archived, over float64
	if st.Active > 0 {
		unconnected = float64(d.Unconnected) / float64(st.Active)
	}
	archived = float64(st.Archived) / float64(st.Active+st.Archived)
	if target := p.Target(); target > 0 {
		over = min(max(float64(p.Estimate(g)-target)/float64(target), 0), 1)
	}
	wear := 0.25 + 0.75*(unconnected+archived+over)/3
	d.Score = math.Round(stale*wear*10000) / 10000
	return d
}
