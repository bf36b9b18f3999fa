package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kg-memory/kg/ports"
)

// stats are the store's own series on /metrics
// (docs/design/team.md#health-and-metrics).
type stats struct {
	roundTrip   prometheus.Histogram
	lockWait    prometheus.Histogram
	catchUps    prometheus.Counter
	listenLag   prometheus.Histogram
	reconnects  prometheus.Counter
	listenerUp  prometheus.GaugeFunc
	up          atomic.Bool
	downSince   atomic.Int64 // unix nanos when the listener went down; 0 while up
	lastLagNano atomic.Int64
}

var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}

func newStats() *stats {
	s := &stats{
		roundTrip: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "kg_team_db_round_trip_seconds",
			Help: "One round trip to the database (a ping, every maintenance tick and on /health).", Buckets: latencyBuckets}),
		lockWait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "kg_team_lock_wait_seconds",
			Help: "How long a write waited for its graph's lock in the database.", Buckets: latencyBuckets}),
		catchUps: prometheus.NewCounter(prometheus.CounterOpts{Name: "kg_team_catchup_batches_total",
			Help: "Batches other servers committed that this server read from the change log to catch a graph up."}),
		listenLag: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "kg_team_listener_lag_seconds",
			Help: "From another server's commit to its notification reaching this server's listener.", Buckets: latencyBuckets}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{Name: "kg_team_listener_reconnects_total",
			Help: "Times the listener's connection was lost and made again."}),
	}
	s.listenerUp = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kg_team_listener_up",
		Help: "1 while the listener's connection to the database is up."}, func() float64 {
		if s.up.Load() {
			return 1
		}
		return 0
	})
	return s
}

// Collectors returns the store's series for the server's registry.
func (s *Store) Collectors() []prometheus.Collector {
	st := s.stats
	return []prometheus.Collector{st.roundTrip, st.lockWait, st.catchUps, st.listenLag, st.reconnects, st.listenerUp}
}

// ListenerState is what /health and kg status say of the listener.
type ListenerState struct {
	Up        bool
	DownFor   time.Duration // how long it has been down; 0 while up
	LastLag   time.Duration // the lag of the last notification received
	Listening bool          // Watch runs at all
}

// Listener returns the listener's state.
func (s *Store) Listener() ListenerState {
	st := s.stats
	ls := ListenerState{Up: st.up.Load(), LastLag: time.Duration(st.lastLagNano.Load())}
	if d := st.downSince.Load(); d != 0 {
		ls.DownFor = time.Since(time.Unix(0, d))
		ls.Listening = true
	}
	if ls.Up {
		ls.Listening = true
	}
	return ls
}

var _ ports.DamageReporter = (*Store)(nil)

// Damage reports, one line each, what keeps this server from serving as
// one with the others (ports.DamageReporter): /health is then degraded. It
// makes one round trip to the database, bounded by 2 s.
func (s *Store) Damage() []string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var out []string
	if _, err := s.Ping(ctx); err != nil {
		out = append(out, "the database cannot be reached ("+err.Error()+"): writes fail and reads are served from memory until it is back")
	}
	ls := s.Listener()
	if ls.Listening && !ls.Up && ls.DownFor > 5*time.Second {
		out = append(out, fmt.Sprintf("the listener has been disconnected for %s: other servers' changes reach this one only when a request reads them", ls.DownFor.Round(time.Second)))
	}
	return out
}
