package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Watch keeps one connection of its own (not the pool's, never through a
// transaction pooler) listening for commit notifications, and tells w of
// every batch another server commits (ports.SharedGraphRepository). After
// each (re)connection it listens first and then calls w.Resync, so nothing
// committed while it was away is missed; every PollInterval it calls
// w.Resync again, the fallback for a notification lost some other way
// (docs/design/team.md#the-listener).
// maxListenBackoff is the longest wait between two attempts to reconnect
// the listener.
const maxListenBackoff = time.Second

func (s *Store) Watch(ctx context.Context, w ports.Watcher) {
	backoff := 100 * time.Millisecond
	connected := false
	for ctx.Err() == nil {
		conn, err := s.listenConn(ctx)
		if err != nil {
			s.listenerDown()
			if ctx.Err() != nil {
				return
			}
			s.log.Warn("postgres: the listener cannot connect; retrying", "in", backoff, "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			// At most 1 s apart: a server whose listener is away for more
			// than 5 s reports degraded, and must be ok again within 5 s of
			// the database coming back (docs/design/team.md#when-the-database-is-away).
			backoff = min(2*backoff, maxListenBackoff)
			continue
		}
		if connected {
			s.stats.reconnects.Inc()
			s.log.Info("postgres: the listener is back; catching up every loaded graph")
		}
		connected = true
		backoff = 100 * time.Millisecond
		s.stats.up.Store(true)
		s.stats.downSince.Store(0)
		w.Resync()
		err = s.listen(ctx, conn, w)
		_ = conn.Close(context.Background())
		s.listenerDown()
		if ctx.Err() == nil {
			s.log.Warn("postgres: the listener lost its connection; reconnecting", "err", err)
		}
	}
}

func (s *Store) listenerDown() {
	s.stats.up.Store(false)
	s.stats.downSince.CompareAndSwap(0, time.Now().UnixNano())
}

func (s *Store) listenConn(ctx context.Context) (*pgx.Conn, error) {
	cfg := s.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = "kg " + s.instance + " listener"
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(cctx, "LISTEN "+notifyChannel); err != nil {
		_ = conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// listen delivers notifications to w until the connection fails or ctx is
// done. A goroutine reads them, so that the poll can interleave; w is
// called from this goroutine only.
func (s *Store) listen(ctx context.Context, conn *pgx.Conn, w ports.Watcher) error {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	notes := make(chan string, 256)
	failed := make(chan error, 1)
	go func() {
		defer close(notes)
		for {
			n, err := conn.WaitForNotification(lctx)
			if err != nil {
				failed <- err
				return
			}
			select {
			case notes <- n.Payload:
			case <-lctx.Done():
				failed <- lctx.Err()
				return
			}
		}
	}()
	poll := time.NewTicker(s.opt.PollInterval)
	defer poll.Stop()
	for {
		select {
		case p, ok := <-notes:
			if !ok {
				return <-failed
			}
			s.deliver(ctx, p, w)
		case <-poll.C:
			w.Resync()
		case <-ctx.Done():
			cancel()
			for range notes {
			}
			return ctx.Err()
		}
	}
}

// deliver tells w of one notification, unless this server sent it.
func (s *Store) deliver(ctx context.Context, payload string, w ports.Watcher) {
	n, err := decodeNotification(payload)
	if err != nil {
		s.log.Warn("postgres: a notification that does not decode; checking every graph", "err", err)
		w.Resync()
		return
	}
	if n.Instance == s.instance {
		return
	}
	if n.At > 0 {
		lag := time.Since(time.UnixMicro(n.At))
		s.stats.lastLagNano.Store(int64(lag))
		s.stats.listenLag.Observe(max(lag, 0).Seconds())
	}
	if r := n.Removed; r != nil {
		key := domain.ProjectGraph(r.Project)
		s.keysMu.Lock()
		delete(s.keys, n.Graph)
		s.keysMu.Unlock()
		w.Removed(key, n.Rev, r.Nodes, r.Edges)
		return
	}
	key, ok := s.keyByID(ctx, n.Graph)
	if !ok {
		return // removed since, or the database is away: the poll covers it
	}
	w.Changed(key, n.Rev)
}
