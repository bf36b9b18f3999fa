// Package memory is a storage adapter that keeps graphs and sessions in
// process memory. It is a real implementation of the ports, used by the app
// tests and by anything that wants kg without a disk; it passes the same
// contract suite as the file-backed adapters.
package memory

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var (
	_ ports.GraphRepository     = (*Store)(nil)
	_ ports.SessionRepository   = (*Store)(nil)
	_ ports.ToolEventRepository = (*Store)(nil)
)

// Store holds the committed state of every graph and the sessions.
type Store struct {
	mu       sync.Mutex
	graphs   map[domain.GraphKey]domain.GraphData
	sessions map[string]ports.Session
	tools    domain.RawJSON
	fault    func(op string) error
	history  map[domain.GraphKey][]storedBatch
}

// New returns an empty store.
func New() *Store {
	return &Store{graphs: map[domain.GraphKey]domain.GraphData{}, sessions: map[string]ports.Session{},
		history: map[domain.GraphKey][]storedBatch{}}
}

// InjectFault makes every following operation call f first with its name
// ("commit", "save-sessions") and fail with the error f returns, if any. A
// nil f removes the fault. This is how tests produce a failing disk.
func (s *Store) InjectFault(f func(op string) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = f
}

// Load returns a copy of the committed state of the graph.
func (s *Store) Load(ctx context.Context, key domain.GraphKey) (domain.GraphData, error) {
	if err := ctx.Err(); err != nil {
		return domain.GraphData{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.graphs[key]
	if !ok {
		return domain.GraphData{ProjectPath: key.Project}, nil
	}
	return copyData(d), nil
}

// Commit stores the whole current state of g.
func (s *Store) Commit(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet) error {
	return s.CommitLogged(ctx, key, g, cs, domain.HistoryBatch{})
}

// List returns the stored project graphs, sorted by slug (here: path).
func (s *Store) List(ctx context.Context) ([]ports.StoredGraph, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ports.StoredGraph
	for k := range s.graphs {
		if k.Level == domain.LevelProject {
			out = append(out, ports.StoredGraph{Key: k, Slug: k.Project})
		}
	}
	slices.SortFunc(out, func(a, b ports.StoredGraph) int {
		if a.Slug < b.Slug {
			return -1
		}
		if a.Slug > b.Slug {
			return 1
		}
		return 0
	})
	return out, nil
}

// LoadSessions returns a copy of the stored sessions.
func (s *Store) LoadSessions(ctx context.Context) (map[string]ports.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]ports.Session, len(s.sessions))
	for id, sess := range s.sessions {
		out[id] = copySession(sess)
	}
	return out, nil
}

// UpdateSessions applies one incremental save of the sessions.
func (s *Store) UpdateSessions(ctx context.Context, ch ports.SessionChanges) error {
	if err := ctx.Err(); err != nil {
		return domain.Unavailable(err, "save sessions")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fault != nil {
		if err := s.fault("save-sessions"); err != nil {
			return domain.Unavailable(err, "save sessions")
		}
	}
	for _, id := range ch.Delete {
		delete(s.sessions, id)
	}
	for _, sess := range ch.Put {
		s.sessions[sess.ID] = copySession(sess)
	}
	return nil
}

func copySession(s ports.Session) ports.Session {
	s.Synced = maps.Clone(s.Synced)
	s.Counted = maps.Clone(s.Counted) // its slices are never changed in place
	s.Extra = maps.Clone(s.Extra)
	s.Hooks = s.Hooks.Clone()
	return s
}

// copyData copies the containers of d. Strings, string slices and raw JSON
// inside items are never modified in place by the domain, so sharing them is
// safe.
func copyData(d domain.GraphData) domain.GraphData {
	d.Nodes = slices.Clone(d.Nodes)
	d.Edges = slices.Clone(d.Edges)
	d.NodeTombstones = maps.Clone(d.NodeTombstones)
	d.EdgeTombstones = maps.Clone(d.EdgeTombstones)
	d.Progress = maps.Clone(d.Progress)
	d.Meta = maps.Clone(d.Meta)
	return d
}

// LoadToolEvents returns the stored tool-event counts.
func (s *Store) LoadToolEvents(ctx context.Context) (domain.RawJSON, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tools), nil
}

// SaveToolEvents replaces the stored tool-event counts.
func (s *Store) SaveToolEvents(ctx context.Context, doc domain.RawJSON) error {
	if err := ctx.Err(); err != nil {
		return domain.Unavailable(err, "save the tool-event counts")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fault != nil {
		if err := s.fault("save-tool-events"); err != nil {
			return domain.Unavailable(err, "save the tool-event counts")
		}
	}
	s.tools = slices.Clone(doc)
	return nil
}
