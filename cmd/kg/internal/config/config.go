// Package config is the settings table of kg's commands
// (docs/design/operations.md#configuration): each setting's flag,
// environment variable, default and check, bound to a command's flags, and
// the Config they give.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/capture"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/secretscreen"
)

// Config is everything `kg serve` is told: the settings of
// docs/design/operations.md#configuration, parsed and checked.
type Config struct {
	Host    string
	Port    int // 0: the system picks a free port
	Root    string
	Storage string // the name of one of the storages of Settings
	// DatabaseURL is KG_DATABASE_URL, the database of --storage postgres.
	// It is read from the environment only: a command line is visible to
	// every user of the machine, and the URL may hold a password.
	DatabaseURL string
	App         app.Config
	AuthToken   string
	// ServerURL is the server kg hook, kg mcp and kg status talk to when
	// none holds the root, as scheme://host[:port]: "" for
	// http://Host:Port (docs/decisions/0114-client-https.md).
	ServerURL string
	// TLSCert and TLSKey are the PEM files of the server's certificate and
	// its private key: with them it serves HTTPS only. InsecureHTTP lets a
	// team server listen on a non-loopback address without them, when a
	// TLS proxy in front of it does TLS (docs/design/team.md#transport).
	TLSCert, TLSKey string
	InsecureHTTP    bool
	// TokenGrace is how long a team server keeps taking a token it
	// verified while the database cannot be reached (0: not at all).
	TokenGrace time.Duration
	// MemoryLimitMiB is the soft memory limit the server sets for Go's
	// collector (docs/design/team.md#scale): 0 none, -1 auto (256 MiB for
	// --storage postgres unless GOMEMLIMIT is set, none otherwise).
	MemoryLimitMiB int
	AllowedHosts   []string
	AllowedOrigins []string
	LogLevel       slog.Level
	LogFormat      string // "text" or "json"
}

// Addr is the address to listen on, host:port.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// UsageError is a bad command line or setting: the program stops with exit
// status 2 and the message, which names the setting and what it accepts.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

// Usagef is a *UsageError with the message format and args write.
func Usagef(format string, args ...any) error {
	return &UsageError{msg: fmt.Sprintf(format, args...)}
}

// Setting is one row of the Configuration table. Every value arrives as a
// string, from the flag, the environment or the default, and one parse
// function checks it whatever its source, so the three cannot disagree.
type Setting struct {
	Flag, Env string
	Def       string // "" for none
	IsBool    bool   // --flag alone means true
	Usage     string
	Parse     func(c *Config, v string) error // the error says what is accepted
	// Show writes the value c holds, in the form parse reads, so that two
	// spellings of one value (KG_ESTIMATE_NOTES=yes, --estimate-notes)
	// show the same; nil for a secret. /health reports what the server
	// runs with (Shown), and a command through it compares.
	Show func(c Config) string
}

// Settings lists the table of docs/design/operations.md#configuration, in
// its order. home finds the home folder of a ~ in --storage-root; storages
// are the backends --storage may name, the first its default (the command
// line's registry of backends names them, so that this table names none).
//
// It is one table and stays one function though it is long: each row is
// self-contained (flag, variable, default, parse, show), and it reads best
// as the documented table does, top to bottom in the same order. Split by
// subject, the order would break (memory-limit sits among the HTTP
// security rows) or the pieces would not be subjects.
func Settings(home func() (string, error), storages []string) []Setting {
	return []Setting{
		{Flag: "host", Env: "KG_HTTP_HOST", Def: "127.0.0.1",
			Usage: "`address` to listen on; anything but loopback needs --auth-token",
			Parse: func(c *Config, v string) error {
				h := strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
				if h == "" || strings.ContainsAny(h, "/ ") || (strings.Contains(h, ":") && net.ParseIP(h) == nil) {
					return errors.New("want a host name or IP address without a port, e.g. 127.0.0.1")
				}
				c.Host = h
				return nil
			},
			Show: func(c Config) string { return c.Host }},
		{Flag: "port", Env: "KG_HTTP_PORT", Def: "8765",
			Usage: "TCP `port` to listen on (0: any free port)",
			Parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n > 65535 {
					return errors.New("want a port number from 0 to 65535")
				}
				c.Port = n
				return nil
			},
			Show: func(c Config) string { return strconv.Itoa(c.Port) }},
		{Flag: "server-url", Env: "KG_SERVER_URL",
			Usage: "`URL` (http:// or https://host[:port]) of the server kg hook, kg mcp and kg status talk to when none holds the storage root (default: http:// --host and --port)",
			Parse: func(c *Config, v string) error {
				u, err := ParseServerURL(v)
				c.ServerURL = u
				return err
			},
			Show: func(c Config) string { return c.ServerURL }},
		{Flag: "storage-root", Env: "KG_STORAGE_ROOT", Def: "~/.knowledge-graph",
			Usage: "`folder` that holds the graphs, sessions and the lock",
			Parse: func(c *Config, v string) error {
				p, err := expandHome(v, home)
				if err != nil {
					return err
				}
				if p, err = filepath.Abs(p); err != nil {
					return fmt.Errorf("want a folder path: %v", err)
				}
				c.Root = p
				return nil
			},
			Show: func(c Config) string { return c.Root }},
		{Flag: "storage", Env: "KG_STORAGE", Def: storages[0],
			Usage: "storage `backend`: " + OrList(storages),
			Parse: func(c *Config, v string) error {
				name := strings.ToLower(v)
				if !slices.Contains(storages, name) {
					return errors.New("want " + OrList(storages))
				}
				c.Storage = name
				return nil
			},
			Show: func(c Config) string { return c.Storage }},
		{Flag: "max-tokens", Env: "KG_MAX_TOKENS", Def: strconv.Itoa(compaction.DefaultMaxTokens),
			Usage: "`tokens`: the budget of each graph's full read",
			Parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				// A budget below 100 tokens cannot show even a few gists;
				// the top bound keeps the estimate arithmetic far from overflow.
				if err != nil || n < 100 || n > 10_000_000 {
					return errors.New("want a whole number of tokens from 100 to 10000000")
				}
				c.App.Policy.MaxTokens = n
				return nil
			},
			Show: func(c Config) string { return strconv.Itoa(c.App.Policy.MaxTokens) }},
		{Flag: "estimate-notes", Env: "KG_ESTIMATE_NOTES", Def: "false", IsBool: true,
			Usage: "count notes in the token estimate",
			Parse: func(c *Config, v string) error {
				b, err := parseBool(v)
				if err != nil {
					return err
				}
				c.App.Policy.EstimateNotes = b
				return nil
			},
			Show: func(c Config) string { return strconv.FormatBool(c.App.Policy.EstimateNotes) }},
		{Flag: "grace-days", Env: "KG_GRACE_PERIOD_DAYS", Def: strconv.Itoa(compaction.DefaultGraceDays),
			Usage: "`days` a new node is never archived",
			Parse: func(c *Config, v string) error {
				n, err := parseDays(v)
				c.App.Policy.Grace = domain.Days(n)
				return err
			},
			Show: func(c Config) string { return strconv.Itoa(int(c.App.Policy.Grace / domain.Day)) }},
		{Flag: "orphan-grace-days", Env: "KG_ORPHAN_GRACE_DAYS", Def: strconv.Itoa(compaction.DefaultOrphanGraceDays),
			Usage: "`days` an orphaned node is kept before it is pruned (0: prune at the next run)",
			Parse: func(c *Config, v string) error {
				n, err := parseDays(v)
				c.App.Policy.OrphanGrace = domain.Days(n)
				return err
			},
			Show: func(c Config) string { return strconv.Itoa(int(c.App.Policy.OrphanGrace / domain.Day)) }},
		{Flag: "scoring", Env: "KG_SCORING", Def: compaction.ScoringUse.String(),
			Usage: "the `score` compaction ranks nodes by: use (the decayed use count) or seed (recency and connectedness)",
			Parse: func(c *Config, v string) error {
				sc, err := compaction.ParseScoring("scoring", strings.ToLower(v))
				if err != nil {
					return errors.New("want use or seed")
				}
				c.App.Policy.Scoring = sc
				return nil
			},
			Show: func(c Config) string { return c.App.Policy.Scoring.String() }},
		{Flag: "maintenance-interval", Env: "KG_SAVE_INTERVAL", Def: "30",
			Usage: "`seconds` between maintenance ticks (read stamps, compaction, session save)",
			Parse: func(c *Config, v string) error {
				d, err := parseSeconds(v, 1, 24*3600)
				c.App.MaintenanceInterval = d
				return err
			},
			Show: func(c Config) string { return strconv.Itoa(int(c.App.MaintenanceInterval / time.Second)) }},
		{Flag: "session-ttl", Env: "KG_SESSION_TTL", Def: "86400",
			Usage: "`seconds` without activity after which a session expires",
			Parse: func(c *Config, v string) error {
				d, err := parseSeconds(v, 1, 365*24*3600)
				c.App.SessionTTL = domain.Micros(d.Microseconds())
				return err
			},
			Show: func(c Config) string { return strconv.Itoa(int(c.App.SessionTTL / domain.Second)) }},
		{Flag: "preload-chars", Env: "KG_PRELOAD_CHARS", Def: strconv.Itoa(app.DefaultPreloadChars),
			Usage: "most `characters` a Claude Code session start's preload injects",
			Parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < app.MinPreloadChars || n > app.MaxPreloadChars {
					return fmt.Errorf("want a whole number of characters from %d to %d (Claude Code shows a longer hook context as a 2 KB preview)",
						app.MinPreloadChars, app.MaxPreloadChars)
				}
				c.App.PreloadChars = n
				return nil
			},
			Show: func(c Config) string { return strconv.Itoa(c.App.PreloadChars) }},
		{Flag: "idle-unload", Env: "KG_IDLE_UNLOAD", Def: strconv.Itoa(int(app.DefaultIdleUnload / time.Second)),
			Usage: "`seconds` a project graph stays loaded without a request before it is unloaded (0: never)",
			Parse: func(c *Config, v string) error {
				if v == "0" {
					c.App.IdleUnload = -1 // the app's "never"
					return nil
				}
				d, err := parseSeconds(v, 1, 365*24*3600)
				if err != nil {
					return errors.New("want a whole number of seconds from 1 to 31536000, or 0 for never")
				}
				c.App.IdleUnload = d
				return nil
			},
			Show: func(c Config) string { return strconv.Itoa(int(max(c.App.IdleUnload, 0) / time.Second)) }},
		{Flag: "max-loaded-nodes", Env: "KG_MAX_LOADED_NODES", Def: strconv.Itoa(app.DefaultMaxLoadedNodes),
			Usage: "`nodes` the loaded project graphs hold at most together; a load past it unloads the least recently used (0: no bound)",
			Parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n > 1_000_000_000 {
					return errors.New("want a whole number of nodes from 0 (no bound) to 1000000000")
				}
				c.App.MaxLoadedNodes = n
				return nil
			},
			Show: func(c Config) string { return strconv.Itoa(c.App.MaxLoadedNodes) }},
		{Flag: "history-days", Env: "KG_HISTORY_DAYS", Def: strconv.Itoa(app.DefaultHistoryDays),
			Usage: "`days` the change log keeps an entry (kg history, kg undo) before the maintenance tick prunes it",
			Parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > 36500 {
					return errors.New("want a whole number of days from 1 to 36500")
				}
				c.App.HistoryDays = n
				return nil
			},
			Show: func(c Config) string { return strconv.Itoa(c.App.HistoryDays) }},
		{Flag: "secrets-mode", Env: "KG_SECRETS", Def: string(secretscreen.Block),
			Usage: "what a write holding a credential does: `mode` block (refuse it), redact (store [REDACTED:<kind>] in its place) or allow",
			Parse: func(c *Config, v string) error {
				m, err := secretscreen.ParseMode("secrets-mode", strings.ToLower(v))
				if err != nil {
					return errors.New("want block, redact or allow")
				}
				c.App.Secrets = m
				return nil
			},
			Show: func(c Config) string { return string(c.App.Secrets) }},
		{Flag: "capture", Env: "KG_CAPTURE", Def: string(capture.Ask),
			Usage: "`mode` of the stop hook: ask (a session that did work and wrote nothing to kg is asked once to record what it learned) or off",
			Parse: func(c *Config, v string) error {
				m, err := capture.ParseMode("capture", strings.ToLower(v))
				if err != nil {
					return errors.New("want ask or off")
				}
				c.App.Capture = m
				return nil
			},
			Show: func(c Config) string { return string(c.App.Capture) }},
		{Flag: "auth-token", Env: "KG_AUTH_TOKEN",
			Usage: "bearer `token` every request must carry (required when --host is not loopback)",
			Parse: func(c *Config, v string) error {
				// A token with white space cannot be sent in one header
				// value as the client would type it.
				if strings.ContainsAny(v, " \t\r\n") {
					return errors.New("want a token without white space")
				}
				c.AuthToken = v
				return nil
			}},
		{Flag: "tls-cert", Env: "KG_TLS_CERT",
			Usage: "PEM `file` of the server's TLS certificate (its chain after it): with --tls-key, serve HTTPS only",
			Parse: func(c *Config, v string) error { c.TLSCert = v; return nil },
			Show:  func(c Config) string { return c.TLSCert }},
		{Flag: "tls-key", Env: "KG_TLS_KEY",
			Usage: "PEM `file` of the private key of --tls-cert",
			Parse: func(c *Config, v string) error { c.TLSKey = v; return nil },
			Show:  func(c Config) string { return c.TLSKey }},
		{Flag: "insecure-http", Env: "KG_INSECURE_HTTP", Def: "false", IsBool: true,
			Usage: "let a team server (--storage postgres) listen on a non-loopback address without TLS, behind a TLS proxy",
			Parse: func(c *Config, v string) error {
				b, err := parseBool(v)
				if err != nil {
					return err
				}
				c.InsecureHTTP = b
				return nil
			},
			Show: func(c Config) string { return strconv.FormatBool(c.InsecureHTTP) }},
		{Flag: "token-grace", Env: "KG_TOKEN_GRACE", Def: "600",
			Usage: "`seconds` a team server keeps taking a token it verified while the database cannot be reached (0: none)",
			Parse: func(c *Config, v string) error {
				d, err := parseSeconds(v, 0, 24*3600)
				c.TokenGrace = d
				return err
			},
			Show: func(c Config) string { return strconv.Itoa(int(c.TokenGrace / time.Second)) }},
		{Flag: "memory-limit", Env: "KG_MEMORY_LIMIT", Def: "auto",
			Usage: "`MiB` the server's memory aims to stay under, Go's soft limit (0: none; auto: 256 for --storage postgres, none otherwise; GOMEMLIMIT wins over auto)",
			Parse: func(c *Config, v string) error {
				if v == "auto" {
					c.MemoryLimitMiB = -1
					return nil
				}
				n, err := strconv.Atoi(v)
				if err != nil || (n != 0 && n < 64) || n > 1<<20 {
					return errors.New("want auto, 0 (none) or a whole number of MiB from 64 to 1048576")
				}
				c.MemoryLimitMiB = n
				return nil
			},
			Show: func(c Config) string {
				if c.MemoryLimitMiB < 0 {
					return "auto"
				}
				return strconv.Itoa(c.MemoryLimitMiB)
			}},
		{Flag: "allowed-hosts", Env: "KG_ALLOWED_HOSTS",
			Usage: "comma-separated `hosts`: Host names (or host:port) accepted beyond localhost",
			Parse: func(c *Config, v string) error {
				for _, h := range splitList(v) {
					if strings.ContainsAny(h, "/ ") {
						return fmt.Errorf("want comma-separated host names or host:port, not %q", h)
					}
					c.AllowedHosts = append(c.AllowedHosts, h)
				}
				return nil
			},
			Show: func(c Config) string { return strings.Join(c.AllowedHosts, ",") }},
		{Flag: "allowed-origins", Env: "KG_ALLOWED_ORIGINS",
			Usage: "comma-separated `origins` (scheme://host[:port]) whose pages may call the server",
			Parse: func(c *Config, v string) error {
				for _, o := range splitList(v) {
					u, err := url.Parse(o)
					if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
						strings.TrimRight(u.Path, "/") != "" || u.RawQuery != "" || u.User != nil {
						return fmt.Errorf("want comma-separated origins like http://localhost:5173, not %q", o)
					}
					c.AllowedOrigins = append(c.AllowedOrigins, strings.TrimRight(o, "/"))
				}
				return nil
			},
			Show: func(c Config) string { return strings.Join(c.AllowedOrigins, ",") }},
		{Flag: "log-level", Env: "KG_LOG_LEVEL", Def: "info",
			Usage: "`level`: debug, info, warn or error",
			Parse: func(c *Config, v string) error {
				switch strings.ToLower(v) {
				case "debug":
					c.LogLevel = slog.LevelDebug
				case "info":
					c.LogLevel = slog.LevelInfo
				case "warn", "warning":
					c.LogLevel = slog.LevelWarn
				case "error":
					c.LogLevel = slog.LevelError
				default:
					return errors.New("want debug, info, warn or error")
				}
				return nil
			},
			Show: func(c Config) string { return strings.ToLower(c.LogLevel.String()) }},
		{Flag: "log-format", Env: "KG_LOG_FORMAT", Def: "text",
			Usage: "`format`: text or json",
			Parse: func(c *Config, v string) error {
				switch f := strings.ToLower(v); f {
				case "text", "json":
					c.LogFormat = f
					return nil
				}
				return errors.New("want text or json")
			},
			Show: func(c Config) string { return c.LogFormat }},
	}
}

// EnvDatabaseURL is the one setting without a flag (Config.DatabaseURL).
const EnvDatabaseURL = "KG_DATABASE_URL"

// stringValue is a flag that remembers whether it was given, so that an
// unset flag falls through to the environment rather than to a default.
type stringValue struct {
	v      string
	set    bool
	isBool bool
}

func (s *stringValue) String() string     { return s.v }
func (s *stringValue) Set(v string) error { s.v, s.set = v, true; return nil }

// Type names the value in the help when the usage names none.
func (s *stringValue) Type() string {
	if s.isBool {
		return "bool" // shown as a bare --flag
	}
	return "string"
}

// Annotation marks the flags of the settings table, so that the help lists
// them apart from a command's own flags.
const Annotation = "kg-setting"

// Flags is the settings table bound to the flags of one command.
type Flags struct {
	table  []Setting
	values []*stringValue
}

// Bind adds a flag for each row of table to fs.
func Bind(fs *pflag.FlagSet, table []Setting) *Flags {
	b := &Flags{table: table}
	fs.SortFlags = false // the help lists them in the table's order
	for _, s := range b.table {
		v := &stringValue{isBool: s.IsBool}
		b.values = append(b.values, v)
		usage := s.Usage + " (env " + s.Env
		if s.Def != "" {
			usage += ", default " + s.Def
		}
		f := fs.VarPF(v, s.Flag, "", usage+")")
		if s.IsBool {
			f.NoOptDefVal = "true"
		}
		f.Annotations = map[string][]string{Annotation: {s.Env}}
	}
	return b
}

// Config reads the settings: flags win over the environment (through
// getenv), which wins over the defaults. A bad value is a usage error that
// names the flag or variable it came from and what it accepts.
func (b *Flags) Config(getenv func(string) string) (Config, error) {
	var c Config
	c.App = app.DefaultConfig()
	for i, s := range b.table {
		v, from := s.Def, ""
		switch {
		case b.values[i].set:
			v, from = b.values[i].v, "--"+s.Flag
		case getenv(s.Env) != "":
			v, from = getenv(s.Env), s.Env
		}
		if from == "" && v == "" {
			continue // no default and not given: the zero value stands
		}
		if err := s.Parse(&c, strings.TrimSpace(v)); err != nil {
			if from == "" {
				from = "default of --" + s.Flag // a bug in this table, or the home folder
			}
			return Config{}, Usagef("invalid %s %q: %v", from, v, err)
		}
	}
	c.DatabaseURL = strings.TrimSpace(getenv(EnvDatabaseURL))
	if c.Storage == "postgres" && c.DatabaseURL == "" {
		return Config{}, Usagef("--storage postgres needs %s, the database's connection URL (e.g. postgres://kg@db.internal/kg); "+
			"it is read from the environment only, never from the command line, which other users can read", EnvDatabaseURL)
	}
	if err := c.checkTransport(); err != nil {
		return Config{}, err
	}
	// In team mode every request carries a person's token instead.
	if c.AuthToken == "" && c.Storage != "postgres" && !isLoopback(c.Host) {
		return Config{}, Usagef("--host %s is not a loopback address, so every request must carry a token: "+
			"set --auth-token or KG_AUTH_TOKEN (or listen on 127.0.0.1)", c.Host)
	}
	// The address the server was told to bind is its own name: a client
	// that connects to it sends it as Host. A wildcard address names no
	// host, and loopback names are always allowed.
	if !isLoopback(c.Host) {
		if ip := net.ParseIP(c.Host); ip == nil || !ip.IsUnspecified() {
			c.AllowedHosts = append(c.AllowedHosts, c.Host)
		}
	}
	return c, nil
}

// checkTransport refuses a certificate without its key (or a key alone),
// and a team server on an address other machines reach without TLS: its
// requests carry people's tokens, which must not cross the network in clear
// (docs/design/team.md#transport). --insecure-http says a TLS proxy in
// front of kg does TLS.
func (c Config) checkTransport() error {
	switch {
	case c.TLSCert != "" && c.TLSKey == "":
		return Usagef("--tls-cert %s needs its private key: set --tls-key or KG_TLS_KEY too", c.TLSCert)
	case c.TLSKey != "" && c.TLSCert == "":
		return Usagef("--tls-key %s needs its certificate: set --tls-cert or KG_TLS_CERT too", c.TLSKey)
	case c.Storage == "postgres" && !isLoopback(c.Host) && c.TLSCert == "" && !c.InsecureHTTP:
		return Usagef("--host %s is not a loopback address and a team server's requests carry people's tokens: "+
			"serve HTTPS with --tls-cert and --tls-key (or KG_TLS_CERT, KG_TLS_KEY), or give --insecure-http when a TLS proxy in front of kg does it", c.Host)
	}
	return nil
}

// TLS reports whether the server serves HTTPS.
func (c Config) TLS() bool { return c.TLSCert != "" }

// Scheme is the URL scheme the server serves: https with TLS, else http.
func (c Config) Scheme() string {
	if c.TLS() {
		return "https"
	}
	return "http"
}

// Given returns the settings given as flags, as arguments that give them
// again to a child kg: `kg mcp` starts `kg serve` with its own settings.
func (b *Flags) Given() []string {
	var args []string
	for i, s := range b.table {
		if b.values[i].set {
			args = append(args, "--"+s.Flag+"="+b.values[i].v)
		}
	}
	return args
}

// ParseServerURL checks the URL of --server-url and returns it as
// scheme://host[:port], without a trailing slash: http or https, a host,
// and nothing else (no path but /, no query, fragment or user info: the
// token goes in a header, never in the URL). "" is "" (not set).
func ParseServerURL(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	u, err := url.Parse(v)
	switch {
	case err != nil:
		return "", fmt.Errorf("want a URL like https://kg.internal:8765: %v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", errors.New("want an http:// or https:// URL, like https://kg.internal:8765")
	case u.Opaque != "" || u.Hostname() == "":
		return "", errors.New("want a host after the scheme, like https://kg.internal:8765")
	case u.User != nil:
		return "", errors.New("want no user info in the URL: give the token with --auth-token or KG_AUTH_TOKEN")
	case u.Path != "" && u.Path != "/":
		return "", errors.New("want no path: the server's API is at its root, like https://kg.internal:8765")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", errors.New("want no query nor fragment, like https://kg.internal:8765")
	}
	return u.Scheme + "://" + u.Host, nil
}

// isLoopback reports whether host can only be reached from this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// expandHome replaces a leading ~ with the home folder: a value from the
// environment or the default is not expanded by a shell.
func expandHome(p string, home func() (string, error)) (string, error) {
	if p == "" {
		return "", errors.New("want a folder path")
	}
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	h, err := home()
	if err != nil || h == "" {
		return "", fmt.Errorf("the home folder is unknown (%v); give an absolute path", err)
	}
	return filepath.Join(h, strings.TrimPrefix(p, "~")), nil
}

// parseBool accepts the spellings people put in environment files.
func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "1", "t", "true", "yes", "y", "on":
		return true, nil
	case "0", "f", "false", "no", "n", "off":
		return false, nil
	}
	return false, errors.New("want true or false")
}

// parseDays reads a whole number of days; 0 is allowed (no grace). The top
// bound keeps the microsecond arithmetic far from overflow.
func parseDays(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 36500 {
		return 0, errors.New("want a whole number of days from 0 to 36500")
	}
	return n, nil
}

// parseSeconds reads a whole number of seconds in [lo, hi].
func parseSeconds(v string, lo, hi int) (time.Duration, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("want a whole number of seconds from %d to %d", lo, hi)
	}
	return time.Duration(n) * time.Second, nil
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// IsSet reports whether the setting of flag was given, as a flag or in the
// environment, rather than left to its default.
func (b *Flags) IsSet(flag string, getenv func(string) string) bool {
	for i, s := range b.table {
		if s.Flag == flag {
			return b.values[i].set || getenv(s.Env) != ""
		}
	}
	return false
}

// OrList joins names as "a, b or c".
func OrList(ns []string) string {
	if len(ns) < 2 {
		return strings.Join(ns, "")
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " or " + ns[len(ns)-1]
}
