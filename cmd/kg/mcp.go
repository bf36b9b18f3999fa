package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/adapters/mcpstdio"
	"github.com/kg-memory/kg/adapters/paths"
	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
)

// serverLogName is the file under the root that a server started by `kg
// mcp` logs to: it has no terminal, and its parent is a client that shows
// no one its stderr.
const serverLogName = "kg.log"

// serverStartWait bounds the wait for a server `kg mcp` started to answer.
const serverStartWait = 30 * time.Second

// newMCPCommand is `kg mcp`.
func newMCPCommand(e env) *cobra.Command {
	var noStart bool
	c := &cobra.Command{
		Use:   "mcp",
		Short: "serve MCP on stdin/stdout, forwarding to the running server (started if none answers)",
		Long: "A stdio MCP server for clients that only start a process (Claude Desktop and others). Each\n" +
			"JSON-RPC message read from stdin is forwarded to the running server's MCP endpoint, and its answer\n" +
			"written to stdout, one per line. When no server answers, kg mcp starts `kg serve` in the background\n" +
			"with the same settings (detached, logging to " + serverLogName + " under the storage root) and waits for it;\n" +
			"--no-start refuses instead. With --server-url (KG_SERVER_URL, e.g. https://kg.internal:8765) it forwards to\n" +
			"that server when none holds the storage root, and never starts it. Its own messages go to stderr.",
		Args: noArgs,
	}
	c.Flags().BoolVar(&noStart, "no-start", false, "fail when no server answers instead of starting one")
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, _ []string) error {
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		log := newLogger(e.stderr, cfg)
		b := &mcpstdio.Bridge{
			Token: cfg.AuthToken,
			Log:   log,
			// A team server may not read this machine's folders: the
			// project's key goes with kg_read's cwd
			// (docs/design/team.md#project-keys).
			ProjectKey: func(root string) (string, bool) {
				key, ok, err := paths.OS{}.ProjectKey(root)
				return key, ok && err == nil
			},
			Connect: func(ctx context.Context) (string, error) {
				args := settings.Given()
				if !settings.IsSet("storage", e.getenv) {
					args = append(args, "--storage="+cfg.Storage) // the backend the root holds
				}
				client, err := findOrStartServer(ctx, e, cfg, args, noStart, log)
				if err != nil {
					return "", err
				}
				// A server that already ran (or won the race to the lock)
				// may run with other settings than this bridge was given
				// for the server it would start: refuse rather than hide it.
				h, err := client.Health(ctx)
				if err == nil {
					err = settings.CheckServerRunsWith(client, h, cfg, e.getenv, serverFlags(bridgeOwnSettings))
				}
				if err != nil {
					return "", err
				}
				log.Info("kg mcp: forwarding stdio", "url", client.URL())
				return client.URL(), nil
			},
		}
		return b.Run(c.Context(), e.stdin, e.stdout)
	}
	return c
}

// findOrStartServer returns the server to forward to: the one that holds
// the root, else the one answering at the configured address, else, unless
// noStart, one started now with the same settings (args). A server named
// by --server-url is never started: it is not this machine's to start
// (docs/decisions/0114-client-https.md).
func findOrStartServer(ctx context.Context, e env, cfg config.Config, args []string, noStart bool, log *slog.Logger) (*apiclient.Client, error) {
	if c, _, err := apiclient.RootServer(ctx, cfg.Root, cfg.AuthToken); c != nil || err != nil {
		return c, err
	}
	if cfg.ServerURL != "" {
		c := apiclient.NewURL(cfg.ServerURL, cfg.AuthToken)
		_, err := c.Health(ctx)
		var ae *apiclient.Error
		if err == nil || errors.As(err, &ae) {
			return c, err
		}
		return nil, remoteSilent(cfg, err)
	}
	if cfg.Port != 0 {
		c := apiclient.New(cfg.Addr(), cfg.AuthToken)
		_, err := c.Health(ctx)
		var ae *apiclient.Error
		if err == nil || errors.As(err, &ae) {
			return c, err
		}
	}
	if noStart {
		return nil, fmt.Errorf("no kg server answers (none holds %s, nothing at %s) and --no-start is set: start one with `kg serve`",
			cfg.Root, "http://"+cfg.Addr()+"/")
	}
	return startServer(ctx, e, cfg, args, log)
}

// remoteSilent is the error of a --server-url server that does not
// answer: it names the URL, the setting, and why (a refused connection, a
// certificate the system's roots do not verify).
func remoteSilent(cfg config.Config, err error) error {
	return fmt.Errorf("the kg server at %s (--server-url, KG_SERVER_URL) does not answer: %w", cfg.ServerURL+"/", err)
}

// startServer starts `kg serve` with args in the background, detached
// from this process's session so that it outlives the client that started
// `kg mcp`, and waits until it answers. Two `kg mcp` starting at once race
// for the root's lock; the loser's server exits and both use the winner.
func startServer(ctx context.Context, e env, cfg config.Config, args []string, log *slog.Logger) (*apiclient.Client, error) {
	exe, err := e.executable()
	if err != nil {
		return nil, fmt.Errorf("find the kg binary to start the server: %w", err)
	}
	if err := store.MakeRoot(cfg.Root); err != nil {
		return nil, err
	}
	logPath := filepath.Join(cfg.Root, serverLogName)
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the server's log: %w", err)
	}
	defer logFile.Close() // the child has its own descriptor
	cmd := exec.Command(exe, append([]string{"serve"}, args...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s serve: %w", exe, err)
	}
	log.Info("kg mcp: no server answered; started one", "pid", cmd.Process.Pid, "log", logPath)
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait() // reaps it if it dies while this process runs
		close(exited)
	}()

	deadline := time.Now().Add(serverStartWait)
	for {
		c, _, err := apiclient.RootServer(ctx, cfg.Root, cfg.AuthToken)
		if c != nil || err != nil {
			return c, err
		}
		select {
		case <-exited:
			// Lost a race for the lock, or failed: the winner, if any,
			// holds the root now.
			if c, _, err := apiclient.RootServer(ctx, cfg.Root, cfg.AuthToken); c != nil || err != nil {
				return c, err
			}
			return nil, fmt.Errorf("the server started in the background exited (%v); the end of %s:\n%s",
				cmd.ProcessState, logPath, tail(logPath, 10))
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(apiclient.PollEvery):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the server started in the background (pid %d) did not answer within %s; see %s",
				cmd.Process.Pid, serverStartWait, logPath)
		}
	}
}

// tail returns the last n lines of the file at path (from its last 64
// KiB).
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 64<<10 {
		_, _ = f.Seek(-64<<10, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
