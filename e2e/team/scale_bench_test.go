package team

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kg-memory/kg/adapters/storage/postgres"
	"github.com/kg-memory/kg/adapters/storage/postgres/pgtest"
	"github.com/kg-memory/kg/domain"
)

// BenchmarkScale is the team-scale figure of docs/performance.md: P
// people × J projects each × N nodes per project in one database
// (KG_TEAM_SCALE=PxJxN; the target of docs/design/benchmarks.md is 50x20x2000,
// `make bench-team-scale`; `make bench` runs 5x4x2000), one `kg serve
// --storage postgres` process, 8 clients of mixed use through it for
// KG_TEAM_SCALE_USE (default 20s) standing for an hour (idle unloading and the
// maintenance tick scaled to it);
// then the loop times GET /api/projects (its p50 and p99 are reported), and
// after it a search of every graph. The RSS figures are the server
// process's, read from /proc.
func BenchmarkScale(b *testing.B) {
	people, perPerson, nodes := teamScale(b)
	use := 20 * time.Second
	if v := os.Getenv("KG_TEAM_SCALE_USE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("KG_TEAM_SCALE_USE: %v", err)
		}
		use = d
	}
	dbURL := pgtest.Database(b)
	start := time.Now()
	tokens, admin, projects := seedTeam(b, dbURL, people, perPerson, nodes)
	b.Logf("seeded %d projects × %d nodes for %d people in %s", len(projects), nodes, people, time.Since(start).Round(time.Second))

	// An hour of use with the default idle unloading (30 min) and
	// maintenance tick (30 s), scaled down to use: idle unloading at half
	// of it, the tick at a sixtieth.
	idle, tick := max(use/2, time.Second), max(use/60, time.Second)
	addr, proc := serveTeamProcess(b, "KG_DATABASE_URL="+dbURL,
		"KG_IDLE_UNLOAD="+strconv.Itoa(int(idle/time.Second)), "KG_SAVE_INTERVAL="+strconv.Itoa(int(tick/time.Second)))
	base := "http://" + addr
	c := &http.Client{Timeout: 60 * time.Second}
	// b.Loop resets the metrics reported before it: these are reported
	// after it.
	rssStart := rssMiB(b, proc.Pid)
	mixedUse(b, c, base, tokens, projects, use)
	rssAfterUse, heapAfterUse := rssMiB(b, proc.Pid), heapMiB(b, c, base, admin)

	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if code := getStatus(c, base+"/api/projects", tokens[0]); code != 200 {
			b.Fatalf("GET /api/projects: %d", code)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(ms(percentile(lat, 50)), "projects-p50-ms")
	b.ReportMetric(ms(percentile(lat, 99)), "projects-p99-ms")

	b.StopTimer()
	b.ReportMetric(rssStart, "rss-start-MiB")
	b.ReportMetric(rssAfterUse, "rss-after-use-MiB")
	b.ReportMetric(heapAfterUse, "heap-after-use-MiB")

	// One search of every graph: it loads every project the person may
	// read (all of them here), so its time and peak are those of reading
	// the whole database once; what it leaves is what matters
	// (docs/design/team.md#scale).
	peak := make(chan float64)
	stop := make(chan struct{})
	go func() {
		top := 0.0
		for {
			top = max(top, rssMiB(b, proc.Pid))
			select {
			case <-stop:
				peak <- top
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	slow := &http.Client{Timeout: 30 * time.Minute}
	t0 := time.Now()
	code := getStatus(slow, base+"/api/search?scope=all&q=retry+budget", tokens[0])
	took := time.Since(t0)
	close(stop)
	if code != 200 {
		b.Fatalf("scope=all search: %d after %s", code, took)
	}
	b.ReportMetric(took.Seconds(), "search-all-s")
	b.ReportMetric(<-peak, "rss-search-peak-MiB")
	// The heap the search used is free at once; the Go runtime gives the
	// pages back to the system over the following seconds.
	b.ReportMetric(heapMiB(b, c, base, admin), "heap-after-search-MiB")
	time.Sleep(10 * time.Second)
	b.ReportMetric(rssMiB(b, proc.Pid), "rss-10s-after-search-MiB")
}

// heapMiB is the server's heap in use, from its /metrics.
func heapMiB(b *testing.B, c *http.Client, base, token string) float64 {
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, "go_memstats_heap_inuse_bytes "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				b.Fatal(err)
			}
			return v / (1 << 20)
		}
	}
	b.Fatalf("no go_memstats_heap_inuse_bytes on /metrics (status %d)", res.StatusCode)
	return 0
}

// teamScale reads KG_TEAM_SCALE.
func teamScale(b *testing.B) (people, perPerson, nodes int) {
	v := os.Getenv("KG_TEAM_SCALE")
	if v == "" {
		v = "5x4x2000"
	}
	parts := strings.Split(v, "x")
	var n [3]int
	for i := range n {
		if len(parts) != 3 {
			break
		}
		x, err := strconv.Atoi(parts[i])
		if err != nil || x < 1 {
			break
		}
		n[i] = x
	}
	if n[2] == 0 {
		b.Fatalf("KG_TEAM_SCALE=%q: want PEOPLExPROJECTSxNODES, e.g. 50x20x2000", v)
	}
	return n[0], n[1], n[2]
}

// seedTeam stores the projects straight through the postgres store, four
// at a time, each one commit of its nodes, and makes a token per person.
// Each person's projects are shared ones (every token may read them), so
// that the list every person gets has them all.
func seedTeam(b *testing.B, dbURL string, people, perPerson, nodes int) (tokens []string, admin string, projects []string) {
	ctx := context.Background()
	s, err := postgres.Open(ctx, dbURL, postgres.Options{Logger: quiet, Instance: "seed"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	admin, _, err = s.CreateToken(ctx, "operator", "admin") // /metrics
	if err != nil {
		b.Fatal(err)
	}
	for p := range people {
		token, _, err := s.CreateToken(ctx, fmt.Sprintf("person%02d", p), "write")
		if err != nil {
			b.Fatal(err)
		}
		tokens = append(tokens, token)
		for j := range perPerson {
			projects = append(projects, fmt.Sprintf("github.com/team/p%02d-repo%02d", p, j))
		}
	}
	work := make(chan string)
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for project := range work {
				if err := seedProject(ctx, s, project, nodes); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for _, p := range projects {
		work <- p
	}
	close(work)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	return tokens, admin, projects
}

// seedWords make the gists: a few hundred words, some common, some rare.
var seedWords = strings.Fields(`retry budget cache invalidation token refresh schema migration lock timeout index
	query planner vacuum replica failover backoff jitter queue worker lease heartbeat shard rebalance snapshot
	restore checksum journal fsync compaction tier archive orphan recall preload hook session prompt summary`)

func seedProject(ctx context.Context, s *postgres.Store, project string, nodes int) error {
	k := domain.ProjectGraph(project)
	g := domain.NewGraph(k)
	r := rand.New(rand.NewPCG(uint64(len(project)), 7))
	now := domain.Micros(time.Now().UnixMicro())
	for i := range nodes {
		var gist strings.Builder
		for w := range 10 {
			if w > 0 {
				gist.WriteByte(' ')
			}
			gist.WriteString(seedWords[r.IntN(len(seedWords))])
		}
		fmt.Fprintf(&gist, " n%d", i)
		in := domain.NodeInput{ID: fmt.Sprintf("n%04d", i), Gist: gist.String(), Notes: []string{"seeded for the team-scale benchmark"}}
		if _, err := g.PutNode(in, domain.Stamp{Now: now}); err != nil {
			return err
		}
	}
	return s.Commit(ctx, k, g, g.Pending())
}

// mixedUse runs 8 clients for d: each is a person at a time, working in
// one of their own projects mostly (a full read, a write, a search) and
// now and then listing the projects or reading someone else's.
func mixedUse(b *testing.B, c *http.Client, base string, tokens, projects []string, d time.Duration) {
	perPerson := len(projects) / len(tokens)
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	var failed sync.Once
	for w := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 11))
			for i := 0; time.Now().Before(deadline); i++ {
				person := r.IntN(len(tokens))
				project := projects[person*perPerson+r.IntN(min(perPerson, 2))]
				if r.IntN(20) == 0 {
					project = projects[r.IntN(len(projects))]
				}
				q := "?project_key=" + url.QueryEscape(project)
				var code int
				switch i % 5 {
				case 0:
					code = getStatus(c, base+"/api/graph/read"+q, tokens[person])
				case 1, 2:
					code = postStatus(c, base+"/api/nodes", tokens[person], fmt.Sprintf(
						`{"level":"project","project_key":%q,"id":"use-%d-%d","gist":"written during mixed use retry budget %d"}`, project, w, i, i))
				case 3:
					code = getStatus(c, base+"/api/search"+q+"&q=retry+budget+lease", tokens[person])
				case 4:
					code = getStatus(c, base+"/api/projects", tokens[person])
				}
				if code != 200 {
					failed.Do(func() { b.Errorf("mixed use: status %d (worker %d, call %d)", code, w, i) })
				}
			}
		})
	}
	wg.Wait()
}

func getStatus(c *http.Client, u, token string) int {
	req, _ := http.NewRequest("GET", u, nil)
	return send(c, req, token)
}

func postStatus(c *http.Client, u, token, body string) int {
	req, _ := http.NewRequest("POST", u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return send(c, req, token)
}

func send(c *http.Client, req *http.Request, token string) int {
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := c.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}

// rssMiB is the resident set of process pid, from /proc.
func rssMiB(b *testing.B, pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				b.Fatalf("VmRSS %q: %v", rest, err)
			}
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmRSS in /proc status")
	return 0
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
