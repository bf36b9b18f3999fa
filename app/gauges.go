package app

import "github.com/kg-memory/kg/domain"

// Gauges is what the app holds at one moment, for the metrics a scrape
// reads (docs/design/operations.md#metrics).
type Gauges struct {
	Sessions int          // live, unexpired sessions
	Graphs   []GraphGauge // the loaded graphs: the user graph first, then projects by path
}

// GraphGauge is the size of one loaded graph.
type GraphGauge struct {
	Key   domain.GraphKey
	Stats domain.Stats
}

// Gauges returns the live sessions and the size of every loaded graph. It
// never loads a graph or touches the disk: a project graph unloaded when
// idle is not listed.
func (s *Service) Gauges() Gauges {
	loaded := s.store.Loaded()
	out := Gauges{Sessions: s.sessions.Count(s.clock.Now()), Graphs: make([]GraphGauge, 0, len(loaded))}
	for _, e := range loaded {
		e.RLock()
		st := e.Graph().Stats()
		e.RUnlock()
		out.Graphs = append(out.Graphs, GraphGauge{Key: e.Key(), Stats: st})
	}
	return out
}
