package main

// BenchmarkImportPeakRSS measures what one POST /api/import costs a server
// in memory: the peak resident size of a `kg serve` child (a build without
// the race detector) while it takes a document of small nodes, as issue 15
// measured it (a 24 MiB document of 500,000 nodes peaked at 1.7 GB on json,
// 2.6 GB on bolt). docs/performance.md#import-memory has the figures.
//
//	go test -run '^$' -bench BenchmarkImportPeakRSS -benchtime 1x ./cmd/kg/
//
// KG_BENCH_IMPORT_NODES sets the document's size (default 100,000 nodes).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	plainBinOnce sync.Once
	plainBin     string
	plainBinErr  error
)

// plainKG builds kg without the race detector, once, for measurements.
func plainKG(tb testing.TB) string {
	tb.Helper()
	plainBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kg-plain-")
		if err != nil {
			plainBinErr = err
			return
		}
		plainBin = filepath.Join(dir, "kg")
		out, err := exec.Command("go", "build", "-o", plainBin, ".").CombinedOutput()
		if err != nil {
			plainBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if plainBinErr != nil {
		tb.Fatal(plainBinErr)
	}
	return plainBin
}

// importDocument is an export document of n small nodes, about 48 bytes each
// as JSON, in the user graph.
func importDocument(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"format":"kg-graph","version":1,"level":"user","nodes":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"n%07d","gist":"gist %07d"}`, i, i)
	}
	b.WriteString(`],"edges":[],"progress":{}}`)
	return b.Bytes()
}

// vm returns a field of /proc/<pid>/status in MB (VmHWM: the peak resident
// size; VmRSS: the resident size now).
func vm(tb testing.TB, pid int, field string) float64 {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Skipf("no /proc status: %v", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb / 1024
		}
	}
	tb.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// serveChild starts `kg serve` on root and returns the process and its
// address; it is stopped when the benchmark ends.
func serveChild(tb testing.TB, backend, root string) (*exec.Cmd, string) {
	tb.Helper()
	cmd := exec.Command(plainKG(tb), "serve", "--log-format", "json", "--port", "0", "--storage", backend,
		"--storage-root", root, "--maintenance-interval", "86400")
	cmd.Env = append(os.Environ(), "HOME="+tb.TempDir())
	pipe, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		var rec struct{ Msg, Addr string }
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "listening" {
			go func() { _, _ = io.Copy(io.Discard, pipe) }()
			return cmd, rec.Addr
		}
	}
	tb.Fatal("kg serve exited before listening")
	return nil, ""
}

func BenchmarkImportPeakRSS(b *testing.B) {
	n := 100_000
	if s := os.Getenv("KG_BENCH_IMPORT_NODES"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			b.Fatalf("KG_BENCH_IMPORT_NODES=%q: want a positive number", s)
		}
		n = v
	}
	doc := importDocument(n)
	client := &http.Client{Timeout: 10 * time.Minute}
	for _, backend := range []string{"json", "bolt"} {
		b.Run(fmt.Sprintf("%s/nodes=%d", backend, n), func(b *testing.B) {
			var base, peak, after, loaded float64
			for b.Loop() {
				b.StopTimer()
				root := filepath.Join(b.TempDir(), "root")
				cmd, addr := serveChild(b, backend, root)
				base = vm(b, cmd.Process.Pid, "VmHWM")
				b.StartTimer()
				resp, err := client.Post("http://"+addr+"/api/import?mode=merge", "application/json", bytes.NewReader(doc))
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("import: %d %.300s", resp.StatusCode, body)
				}
				b.StopTimer()
				peak, after = vm(b, cmd.Process.Pid, "VmHWM"), vm(b, cmd.Process.Pid, "VmRSS")
				_ = cmd.Process.Signal(syscall.SIGTERM)
				_ = cmd.Wait()
				// What the graph costs by itself: a server started on it
				// (the user graph is loaded at start).
				cmd, _ = serveChild(b, backend, root)
				loaded = vm(b, cmd.Process.Pid, "VmRSS")
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				b.StartTimer()
			}
			docMB := float64(len(doc)) / (1 << 20)
			b.ReportMetric(docMB, "doc-MB")
			b.ReportMetric(peak, "peak-RSS-MB")
			b.ReportMetric(after, "RSS-after-MB")
			b.ReportMetric((peak-base)/docMB, "peak-per-doc-MB")
			b.ReportMetric(loaded, "loaded-RSS-MB")
			// The bound docs/design/http.md#import-memory gives: the graph
			// the import leaves, as a server holding it is resident, plus
			// the document.
			b.ReportMetric(peak/(loaded+docMB), "peak-per-loaded+doc")
		})
	}
}
