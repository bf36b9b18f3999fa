package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWorkloadShape(t *testing.T) {
	const n, q = 500, 30
	w := NewWorkload(n, q, DefaultSeed)
	if len(w.Nodes) != n || len(w.Edges) != n-1 || len(w.Queries) != q {
		t.Fatalf("%d nodes, %d edges, %d queries; want %d, %d, %d", len(w.Nodes), len(w.Edges), len(w.Queries), n, n-1, q)
	}
	words := map[string]bool{}
	for _, v := range vocabulary.All() {
		words[v] = true
	}
	for i, nd := range w.Nodes {
		if nd.ID != nodeID(i+1) {
			t.Fatalf("node %d has id %q", i, nd.ID)
		}
		if len(nd.Gist) != gistLen || len(nd.Notes) != 2 || len(nd.Notes[0]) != noteLen || len(nd.Notes[1]) != noteLen {
			t.Fatalf("%s: gist %q, notes %q; want 60 chars and two of 40", nd.ID, nd.Gist, nd.Notes)
		}
		if strings.TrimSpace(nd.Gist) != nd.Gist {
			t.Fatalf("%s: gist %q has a space at an end", nd.ID, nd.Gist)
		}
	}
	for i, e := range w.Edges {
		if e != (Edge{From: nodeID(i + 1), To: nodeID(i + 2), Rel: "relates-to"}) {
			t.Fatalf("edge %d is %+v", i, e)
		}
	}
	for _, s := range w.Queries {
		terms := strings.Fields(s)
		if len(terms) != 2 || !words[terms[0]] || !words[terms[1]] {
			t.Fatalf("query %q: want two vocabulary terms", s)
		}
	}
	if nodeID(1) != "n000001" {
		t.Errorf("first id %q", nodeID(1))
	}
	again := NewWorkload(n, q, DefaultSeed)
	if again.Nodes[n-1].Gist != w.Nodes[n-1].Gist || again.Queries[q-1] != w.Queries[q-1] {
		t.Error("the same seed gave two different workloads")
	}
	other := NewWorkload(n, q, DefaultSeed+1)
	if other.Nodes[0].Gist == w.Nodes[0].Gist && other.Nodes[1].Gist == w.Nodes[1].Gist {
		t.Error("another seed gave the same texts")
	}
}

func TestPercentile(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		var ds []time.Duration
		for _, x := range xs {
			ds = append(ds, time.Duration(x)*time.Millisecond)
		}
		return ds
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, c := range []struct {
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 99, 7 * time.Millisecond},
		{ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{ms(hundred...), 50, 50 * time.Millisecond},
		{ms(hundred...), 99, 99 * time.Millisecond},
		{ms(hundred...), 100, 100 * time.Millisecond},
	} {
		if got := percentile(c.in, c.p); got != c.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", c.in, c.p, got, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	var stderr bytes.Buffer
	o, err := parse(nil, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if o.url != "http://127.0.0.1:8765/" || o.nodes != 1000 || o.clients != 4 || o.ops != 200 || o.seed != DefaultSeed || o.inproc != "" {
		t.Errorf("defaults: %+v", o)
	}
	if !strings.HasPrefix(o.cwd, "/") {
		t.Errorf("default cwd %q is not absolute", o.cwd)
	}
	for _, bad := range [][]string{
		{"--nodes", "0"}, {"--clients", "0"}, {"--ops", "-1"}, {"--inproc", "sqlite"}, {"--cwd", "rel/path"}, {"extra"},
	} {
		if _, err := parse(bad, &stderr); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if code := run(context.Background(), []string{"--nodes", "0"}, &stderr, &stderr); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
}

// TestRunInproc runs the whole tool against an in-process server on each
// backend: every write arrives and nothing fails.
func TestRunInproc(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"--inproc", backend, "--nodes", "25", "--ops", "6", "--clients", "3"}, &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
			}
			out := stdout.String()
			for _, want := range []string{"create", "edge", "search", "full_read", "floor", "check: 25/25 nodes, 24/24 edges: every write arrived"} {
				if !strings.Contains(out, want) {
					t.Errorf("report lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestVerifyFindsMissingWrites checks the final check: writes the server
// does not hold, or holds with other content, are reported.
func TestVerifyFindsMissingWrites(t *testing.T) {
	ctx := context.Background()
	srv, err := startServer(ctx, "json", t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	w := NewWorkload(10, 2, DefaultSeed)
	d := newKGDriver(srv.URL, "/kgbench/verify-test", 2)
	stats, chk, err := Run(ctx, d, w, RunOptions{Clients: 2, Ops: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stats {
		if s.Errors != 0 {
			t.Errorf("%s: %d errors, first %v", s.Kind, s.Errors, s.FirstErr)
		}
	}
	if !chk.OK() || chk.Nodes != 10 || chk.Edges != 9 {
		t.Fatalf("check after a clean run: %+v", chk)
	}

	more := NewWorkload(12, 0, DefaultSeed) // two nodes and two edges never written
	more.Nodes[0].Gist = strings.Repeat("x", gistLen)
	chk, err = d.Verify(ctx, more)
	if err != nil {
		t.Fatal(err)
	}
	if chk.OK() || chk.NodesFound != 9 || chk.EdgesFound != 9 || len(chk.Problems) == 0 {
		t.Fatalf("check of a workload with two unwritten nodes and one changed gist: %+v", chk)
	}
	var out bytes.Buffer
	report(&out, stats, chk)
	if !strings.Contains(out.String(), "WRITES MISSING") || !strings.Contains(out.String(), "n000012 missing") {
		t.Errorf("report does not say what is missing:\n%s", &out)
	}
}

// TestPrintWorkload checks that --print-workload prints exactly the
// workload NewWorkload generates: bench/peers replays this document, so it
// must be the same data the Go benchmarks use.
func TestPrintWorkload(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--print-workload", "--nodes", "30", "--ops", "7", "--seed", "99"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, &stderr)
	}
	var got workloadJSON
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, &stdout)
	}
	w := NewWorkload(30, 7, 99)
	want := workloadJSON{Seed: 99, Queries: w.Queries}
	for _, n := range w.Nodes {
		want.Nodes = append(want.Nodes, nodeJSON(n))
	}
	for _, e := range w.Edges {
		want.Edges = append(want.Edges, edgeJSON(e))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("printed workload (-want +got):\n%s", diff)
	}
	for _, key := range []string{`"id":"n000001"`, `"gist":`, `"notes":[`, `"rel":"relates-to"`, `"queries":[`} {
		if !strings.Contains(stdout.String(), key) {
			t.Errorf("the document lacks %s, which bench/peers reads", key)
		}
	}
}

// TestCPUProfilePerPhase checks that --cpuprofile writes one readable
// profile per phase.
func TestCPUProfilePerPhase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "profiles")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--inproc", "json", "--nodes", "20", "--ops", "4", "--clients", "2", "--cpuprofile", dir}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	for _, phase := range []string{kindCreate, kindEdge, kindSearch, kindFullRead, kindFloor} {
		f, err := os.Open(filepath.Join(dir, phase+".pprof"))
		if err != nil {
			t.Fatal(err)
		}
		// A CPU profile is a gzipped protocol buffer.
		_, err = gzip.NewReader(f)
		f.Close()
		if err != nil {
			t.Errorf("%s.pprof is not a profile: %v", phase, err)
		}
	}
}
