package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// Operation kinds, in the order a run does them.
const (
	kindCreate   = "create"
	kindEdge     = "edge"
	kindSearch   = "search"
	kindFullRead = "full_read"
	kindFloor    = "floor"
)

// Stats are the figures of one operation kind.
type Stats struct {
	Kind     string
	Ops      int // done (successful or not)
	Errors   int
	FirstErr error
	Elapsed  time.Duration // wall time of the phase
	P50, P99 time.Duration
}

// OpsPerSec is the phase's throughput over its wall time.
func (s Stats) OpsPerSec() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Ops) / s.Elapsed.Seconds()
}

// percentile returns the p-th percentile (0..100) of sorted latencies,
// nearest rank.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p/100*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// phase runs op(i) for i in [0, n) on the conns, one goroutine per conn,
// each taking the next i, and times every call.
func phase(ctx context.Context, kind string, conns []Conn, n int, op func(ctx context.Context, c Conn, i int) error) Stats {
	return timed(ctx, kind, len(conns), n, func(w, i int) error { return op(ctx, conns[w], i) })
}

// timed runs op(w, i) for i in [0, n) on workers goroutines (w is the
// goroutine's number), each taking the next i, and times every call.
func timed(ctx context.Context, kind string, workers, n int, op func(w, i int) error) Stats {
	st := Stats{Kind: kind, Ops: n}
	var next atomic.Int64
	var mu sync.Mutex
	lat := make([]time.Duration, 0, n)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			mine := make([]time.Duration, 0, n/workers+1)
			var errs int
			var first error
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					break
				}
				t := time.Now()
				err := op(w, i)
				mine = append(mine, time.Since(t))
				if err != nil {
					errs++
					if first == nil {
						first = err
					}
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			st.Errors += errs
			if st.FirstErr == nil {
				st.FirstErr = first
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	st.Elapsed = time.Since(start)
	st.Ops = len(lat) // fewer than n when ctx ended early
	slices.Sort(lat)
	st.P50, st.P99 = percentile(lat, 50), percentile(lat, 99)
	return st
}

// RunOptions say how Run replays a workload.
type RunOptions struct {
	Clients int // concurrent clients, each with its own Conn
	Ops     int // searches, and as many full reads
	// ProfileDir, when not empty, receives one CPU profile per phase,
	// named <phase>.pprof (create.pprof, edge.pprof, ...).
	ProfileDir string
}

// Run replays w on d with o.Clients concurrent clients: every node, then
// every edge, then o.Ops searches, o.Ops full reads and o.Ops calls that
// write nothing (the floor); then it checks that every write arrived.
func Run(ctx context.Context, d Driver, w Workload, o RunOptions) ([]Stats, Check, error) {
	clients, ops := o.Clients, o.Ops
	conns := make([]Conn, 0, clients)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	for range clients {
		c, err := d.Connect(ctx)
		if err != nil {
			return nil, Check{}, fmt.Errorf("connect to %s: %w", d.Name(), err)
		}
		conns = append(conns, c)
	}
	var out []Stats
	// run runs one phase, under a CPU profile of its own when asked.
	run := func(kind string, n int, op func(ctx context.Context, c Conn, i int) error) error {
		stop, err := startProfile(o.ProfileDir, kind)
		if err != nil {
			return err
		}
		out = append(out, phase(ctx, kind, conns, n, op))
		return stop()
	}
	if err := run(kindCreate, len(w.Nodes), func(ctx context.Context, c Conn, i int) error {
		return c.CreateNode(ctx, w.Nodes[i])
	}); err != nil {
		return out, Check{}, err
	}
	if err := run(kindEdge, len(w.Edges), func(ctx context.Context, c Conn, i int) error {
		return c.CreateEdge(ctx, w.Edges[i])
	}); err != nil {
		return out, Check{}, err
	}
	if len(w.Queries) > 0 {
		if err := run(kindSearch, ops, func(ctx context.Context, c Conn, i int) error {
			return c.Search(ctx, w.Queries[i%len(w.Queries)])
		}); err != nil {
			return out, Check{}, err
		}
	}
	if err := run(kindFullRead, ops, func(ctx context.Context, c Conn, i int) error {
		return c.FullRead(ctx)
	}); err != nil {
		return out, Check{}, err
	}
	if err := run(kindFloor, ops, func(ctx context.Context, c Conn, i int) error {
		return c.Floor(ctx)
	}); err != nil {
		return out, Check{}, err
	}
	if err := ctx.Err(); err != nil {
		return out, Check{}, err
	}
	chk, err := d.Verify(ctx, w)
	return out, chk, err
}

// report writes the table of a run.
func report(w io.Writer, stats []Stats, chk Check) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tops\terrors\tops/s\tp50\tp99\t")
	for _, s := range stats {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%s\t%s\t\n", s.Kind, s.Ops, s.Errors, s.OpsPerSec(), ms(s.P50), ms(s.P99))
	}
	_ = tw.Flush()
	for _, s := range stats {
		if s.FirstErr != nil {
			fmt.Fprintf(w, "first %s error: %v\n", s.Kind, s.FirstErr)
		}
	}
	verdict := "every write arrived"
	if !chk.OK() {
		verdict = "WRITES MISSING"
	}
	fmt.Fprintf(w, "check: %d/%d nodes, %d/%d edges: %s\n", chk.NodesFound, chk.Nodes, chk.EdgesFound, chk.Edges, verdict)
	for _, p := range chk.Problems {
		fmt.Fprintf(w, "  %s\n", p)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
