// Package pgtest runs a throwaway PostgreSQL for tests: initdb and postgres
// from the Debian postgresql-15 package, in a temporary folder, listening on
// a Unix socket only (docs/design/team.md#tests). One cluster serves a whole
// `go test` package run (Main, from TestMain); each test gets a database of
// its own (Database). When KG_TEST_DATABASE_URL names a server, that server
// is used instead and nothing is started.
//
// Where no PostgreSQL binaries exist the tests that need one are skipped with
// one line, except under CI=true, where they fail: CI installs the package
// (.ci/run), so a missing one is a broken machine, not a reason to skip.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// EnvURL names an existing server to test against: a libpq URL whose user
// may create databases. Main also sets it for the child processes a test
// starts (crash tests re-run the test binary), so they use the same cluster.
const EnvURL = "KG_TEST_DATABASE_URL"

// BinDirs are where the PostgreSQL server binaries are looked for, in order,
// after $PG_BIN.
var BinDirs = []string{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"}

// ErrNoPostgres is returned by Start when no initdb and postgres can be found.
var ErrNoPostgres = errors.New("no PostgreSQL server binaries (initdb, postgres) found; install postgresql-15 or set " + EnvURL)

// Cluster is one running server: a data folder of its own and a postmaster
// listening on a Unix socket in it, or an existing server named by EnvURL.
type Cluster struct {
	base    *url.URL // the server, with no database named
	dir     string   // the temporary folder holding data/ and the socket; "" for an external server
	bin     string
	cred    *syscall.Credential // the postgres OS user when running as root; nil otherwise
	mu      sync.Mutex
	proc    *exec.Cmd
	stopped chan struct{}
	logf    *os.File
}

// Start initialises a cluster in a new temporary folder and starts it.
func Start(ctx context.Context) (*Cluster, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	c := &Cluster{bin: bin}
	if os.Geteuid() == 0 {
		// initdb refuses to run as root: the cluster belongs to the
		// postgres OS user, who must own the folder.
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs the postgres OS user for initdb: %w", err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	// A short path: a Unix socket's path is limited to about 100 bytes.
	c.dir, err = os.MkdirTemp("", "kgpg-")
	if err != nil {
		return nil, err
	}
	if c.cred != nil {
		if err := os.Chown(c.dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			c.removeDir()
			return nil, err
		}
	}
	data := filepath.Join(c.dir, "data")
	initdb := c.command(ctx, "initdb", "-D", data, "-U", "kg", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		c.removeDir()
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	c.base = &url.URL{Scheme: "postgres", User: url.User("kg"), Path: "/",
		RawQuery: url.Values{"host": {c.dir}}.Encode()}
	if err := c.startServer(ctx); err != nil {
		c.removeDir()
		return nil, err
	}
	return c, nil
}

// External is a cluster on the existing server that raw (a libpq URL)
// names; Stop leaves it running.
func External(raw string) (*Cluster, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvURL, err)
	}
	u.Path = "/"
	return &Cluster{base: u}, nil
}

func findBin() (string, error) {
	dirs := BinDirs
	if d := os.Getenv("PG_BIN"); d != "" {
		dirs = append([]string{d}, dirs...)
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	return "", ErrNoPostgres
}

func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd
}

// startServer runs postgres in the foreground of a child process and waits
// until it accepts connections. Settings: no TCP, the socket in the folder,
// fsync off (a test cluster survives a killed server, which keeps the page
// cache, but not a power cut, which no test makes), commits still flushed to
// the kernel before they are acknowledged.
func (c *Cluster) startServer(ctx context.Context) error {
	logf, err := os.OpenFile(filepath.Join(c.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	// The server outlives ctx: it is stopped by Stop.
	cmd := c.command(context.WithoutCancel(ctx), "postgres", "-D", filepath.Join(c.dir, "data"),
		"-c", "listen_addresses=", "-c", "unix_socket_directories="+c.dir, "-c", "fsync=off",
		"-c", "full_page_writes=off", "-c", "max_connections=300", "-c", "shared_buffers=32MB",
		"-c", "log_min_messages=warning", "-c", "max_locks_per_transaction=256")
	cmd.Stdout, cmd.Stderr = logf, logf
	// A test binary that dies without stopping it (a panic, a timeout)
	// takes the server with it: an immediate shutdown.
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start postgres: %w", err)
	}
	stopped := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(stopped)
	}()
	c.mu.Lock()
	c.proc, c.stopped, c.logf = cmd, stopped, logf
	c.mu.Unlock()
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err == nil {
			_ = conn.Close(ctx)
			return nil
		}
		select {
		case <-stopped:
			return fmt.Errorf("postgres exited at start; see %s", filepath.Join(c.dir, "server.log"))
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within 30 s: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// URL returns the libpq URL of database db on the cluster.
func (c *Cluster) URL(db string) string {
	u := *c.base
	u.Path = "/" + db
	return u.String()
}

// Managed reports whether the cluster was started here (and so can be
// killed and restarted by fault tests).
func (c *Cluster) Managed() bool { return c.dir != "" }

// Kill stops the server at once, as a crash would (SIGQUIT: every backend
// exits without a checkpoint, and the next start replays the WAL). It is
// for fault tests; the cluster is started again by Restart.
func (c *Cluster) Kill() error { return c.stopWith(syscall.SIGQUIT) }

// StopFast stops the server as `pg_ctl stop -m fast` does (SIGINT to the
// postmaster: open transactions are rolled back, clients disconnected, a
// checkpoint written) and waits until it has exited. It is for fault tests;
// the cluster is started again by Restart.
func (c *Cluster) StopFast() error { return c.stopWith(syscall.SIGINT) }

// stopWith sends sig to the postmaster and waits until it has exited,
// killing it after 20 s.
func (c *Cluster) stopWith(sig syscall.Signal) error {
	c.mu.Lock()
	proc, stopped := c.proc, c.stopped
	c.mu.Unlock()
	if proc == nil {
		return errors.New("pgtest: the cluster is not managed here")
	}
	_ = proc.Process.Signal(sig)
	select {
	case <-stopped:
	case <-time.After(20 * time.Second):
		_ = proc.Process.Kill()
		<-stopped
	}
	c.logf.Close()
	return nil
}

// Restart starts a stopped or killed cluster again.
func (c *Cluster) Restart(ctx context.Context) error { return c.startServer(ctx) }

// Stop shuts the server down and removes its folder; for an external server
// it does nothing.
func (c *Cluster) Stop() {
	if c.dir == "" {
		return
	}
	c.mu.Lock()
	proc, stopped := c.proc, c.stopped
	c.mu.Unlock()
	if proc != nil {
		_ = proc.Process.Signal(syscall.SIGINT) // fast shutdown
		select {
		case <-stopped:
		case <-time.After(20 * time.Second):
			_ = proc.Process.Kill()
			<-stopped
		}
		c.logf.Close()
	}
	c.removeDir()
}

func (c *Cluster) removeDir() {
	if c.dir != "" {
		_ = os.RemoveAll(c.dir)
	}
}

// CreateDatabase creates the database name if it does not exist and returns
// its URL.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) (string, error) {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pe *pgconn.PgError
	if err != nil && !(errors.As(err, &pe) && pe.Code == "42P04") { // 42P04: duplicate_database
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return c.URL(name), nil
}

// DropDatabase drops the database name, ending its connections.
func (c *Cluster) DropDatabase(ctx context.Context, name string) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	return err
}

// shared is the package run's cluster, set by Main.
var (
	sharedMu  sync.Mutex
	shared    *Cluster
	sharedErr error
)

// Main runs a test package's tests on one cluster: the server EnvURL names,
// or one started here (and stopped after the tests). Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// A cluster that cannot be started is not fatal here: the tests that need it
// skip or fail in Get, with the reason.
func Main(m *testing.M) int {
	c, err := open()
	sharedMu.Lock()
	shared, sharedErr = c, err
	sharedMu.Unlock()
	if c != nil && c.Managed() {
		// Child processes of the tests (crash children) use this cluster.
		os.Setenv(EnvURL, c.URL("postgres"))
		defer c.Stop()
	}
	return m.Run()
}

func open() (*Cluster, error) {
	if raw := os.Getenv(EnvURL); raw != "" {
		return External(raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return Start(ctx)
}

// Get returns the package's cluster. Without one it skips t with one line,
// or fails it when CI=true.
func Get(t testing.TB) *Cluster {
	t.Helper()
	sharedMu.Lock()
	c, err := shared, sharedErr
	sharedMu.Unlock()
	if c == nil && err == nil {
		err = errors.New("pgtest.Main was not called from TestMain")
	}
	if err != nil {
		if os.Getenv("CI") == "true" || !errors.Is(err, ErrNoPostgres) {
			t.Fatalf("PostgreSQL for the tests: %v", err)
		}
		t.Skipf("skipped: %v", err)
	}
	return c
}

// Database creates a database of its own for t on the package's cluster,
// dropped when t ends, and returns its URL.
func Database(t testing.TB) string {
	t.Helper()
	return DatabaseFor(t, "kgt_"+randomHex(8))
}

// DatabaseFor returns the URL of the database name, creating it if needed;
// the test that creates it drops it when it ends. Tests whose child
// processes must find the same database (crash tests) derive name from a
// folder both know (NameFor).
func DatabaseFor(t testing.TB, name string) string {
	t.Helper()
	c := Get(t)
	ctx := context.Background()
	u, err := c.CreateDatabase(ctx, name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	if os.Getenv(childEnv) == "" {
		t.Cleanup(func() {
			if err := c.DropDatabase(context.Background(), name); err != nil {
				t.Logf("pgtest: drop database %s: %v", name, err)
			}
		})
	}
	return u
}

// childEnv is set by porttest in a crash child; the child must not drop
// the database its parent checks.
const childEnv = "KG_PORTTEST_CRASH_DIR"

// NameFor is a database name derived from key (a folder's path).
func NameFor(key string) string {
	h := sha256.Sum256([]byte(key))
	return "kgt_" + hex.EncodeToString(h[:8])
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Quote returns s as a SQL string literal, for the few statements tests
// build by hand.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
