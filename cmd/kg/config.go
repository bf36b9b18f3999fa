package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/capture"
	"github.com/kg-memory/kg/domain"
)

// Config is everything `kg serve` is told: the settings of
// docs/design/operations.md#configuration, parsed and checked.
type Config struct {
	Host    string
	Port    int // 0: the system picks a free port
	Root    string
	Storage string // the name of one of backends()
	// DatabaseURL is KG_DATABASE_URL, the database of --storage postgres.
	// It is read from the environment only: a command line is visible to
	// every user of the machine, and the URL may hold a password.
	DatabaseURL string
	App         app.Config
	AuthToken   string
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

// usageError is a bad command line or setting: the program stops with exit
// status 2 and the message, which names the setting and what it accepts.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// setting is one row of the Configuration table. Every value arrives as a
// string, from the flag, the environment or the default, and one parse
// function checks it whatever its source, so the three cannot disagree.
type setting struct {
	flag, env string
	def       string // "" for none
	isBool    bool   // --flag alone means true
	usage     string
	parse     func(c *Config, v string) error // the error says what is accepted
	// show writes the value c holds, in the form parse reads, so that two
	// spellings of one value (KG_ESTIMATE_NOTES=yes, --estimate-notes)
	// show the same; nil for a secret. /health reports what the server
	// runs with (serverSettings), and a command through it compares.
	show func(c Config) string
}

// settings lists the table of docs/design/operations.md#configuration, in its
// order.
//
// It is one table and stays one function though it is long: each row is
// self-contained (flag, variable, default, parse, show), and it reads best
// as the documented table does, top to bottom in the same order. Split by
// subject, the order would break (memory-limit sits among the HTTP
// security rows) or the pieces would not be subjects.
func settings(home func() (string, error)) []setting {
	return []setting{
		{flag: "host", env: "KG_HTTP_HOST", def: "127.0.0.1",
			usage: "`address` to listen on; anything but loopback needs --auth-token",
			parse: func(c *Config, v string) error {
				h := strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
				if h == "" || strings.ContainsAny(h, "/ ") || (strings.Contains(h, ":") && net.ParseIP(h) == nil) {
					return errors.New("want a host name or IP address without a port, e.g. 127.0.0.1")
				}
				c.Host = h
				return nil
			},
			show: func(c Config) string { return c.Host }},
		{flag: "port", env: "KG_HTTP_PORT", def: "8765",
			usage: "TCP `port` to listen on (0: any free port)",
			parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n > 65535 {
					return errors.New("want a port number from 0 to 65535")
				}
				c.Port = n
				return nil
			},
			show: func(c Config) string { return strconv.Itoa(c.Port) }},
		{flag: "storage-root", env: "KG_STORAGE_ROOT", def: "~/.knowledge-graph",
			usage: "`folder` that holds the graphs, sessions and the lock",
			parse: func(c *Config, v string) error {
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
			show: func(c Config) string { return c.Root }},
		{flag: "storage", env: "KG_STORAGE", def: backends()[0].name,
			usage: "storage `backend`: " + backendNames(),
			parse: func(c *Config, v string) error {
				b, ok := backendNamed(strings.ToLower(v))
				if !ok {
					return errors.New("want " + backendNames())
				}
				c.Storage = b.name
				return nil
			},
			show: func(c Config) string { return c.Storage }},
		{flag: "max-tokens", env: "KG_MAX_TOKENS", def: strconv.Itoa(domain.DefaultMaxTokens),
			usage: "`tokens`: the budget of each graph's full read",
			parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				// A budget below 100 tokens cannot show even a few gists;
				// the top bound keeps the estimate arithmetic far from overflow.
				if err != nil || n < 100 || n > 10_000_000 {
					return errors.New("want a whole number of tokens from 100 to 10000000")
				}
				c.App.Policy.MaxTokens = n
				return nil
			},
			show: func(c Config) string { return strconv.Itoa(c.App.Policy.MaxTokens) }},
		{flag: "estimate-notes", env: "KG_ESTIMATE_NOTES", def: "false", isBool: true,
			usage: "count notes in the token estimate",
			parse: func(c *Config, v string) error {
				b, err := parseBool(v)
				if err != nil {
					return err
				}
				c.App.Policy.EstimateNotes = b
				return nil
			},
			show: func(c Config) string { return strconv.FormatBool(c.App.Policy.EstimateNotes) }},
		{flag: "grace-days", env: "KG_GRACE_PERIOD_DAYS", def: strconv.Itoa(domain.DefaultGraceDays),
			usage: "`days` a new node is never archived",
			parse: func(c *Config, v string) error {
				n, err := parseDays(v)
				c.App.Policy.Grace = domain.Days(n)
				return err
			},
			show: func(c Config) string { return strconv.Itoa(int(c.App.Policy.Grace / domain.Day)) }},
		{flag: "orphan-grace-days", env: "KG_ORPHAN_GRACE_DAYS", def: strconv.Itoa(domain.DefaultOrphanGraceDays),
			usage: "`days` an orphaned node is kept before it is pruned (0: prune at the next run)",
			parse: func(c *Config, v string) error {
				n, err := parseDays(v)
				c.App.Policy.OrphanGrace = domain.Days(n)
				return err
			},
			show: func(c Config) string { return strconv.Itoa(int(c.App.Policy.OrphanGrace / domain.Day)) }},
		{flag: "scoring", env: "KG_SCORING", def: domain.ScoringUse.String(),
			usage: "the `score` compaction ranks nodes by: use (the decayed use count) or seed (recency and connectedness)",
			parse: func(c *Config, v string) error {
				sc, err := domain.ParseScoring("scoring", strings.ToLower(v))
				if err != nil {
					return errors.New("want use or seed")
				}
				c.App.Policy.Scoring = sc
				return nil
			},
			show: func(c Config) string { return c.App.Policy.Scoring.String() }},
		{flag: "maintenance-interval", env: "KG_SAVE_INTERVAL", def: "30",
			usage: "`seconds` between maintenance ticks (read stamps, compaction, session save)",
			parse: func(c *Config, v string) error {
				d, err := parseSeconds(v, 1, 24*3600)
				c.App.MaintenanceInterval = d
				return err
			},
			show: func(c Config) string { return strconv.Itoa(int(c.App.MaintenanceInterval / time.Second)) }},
		{flag: "session-ttl", env: "KG_SESSION_TTL", def: "86400",
			usage: "`seconds` without activity after which a session expires",
			parse: func(c *Config, v string) error {
				d, err := parseSeconds(v, 1, 365*24*3600)
				c.App.SessionTTL = domain.Micros(d.Microseconds())
				return err
			},
			show: func(c Config) string { return strconv.Itoa(int(c.App.SessionTTL / domain.Second)) }},
		{flag: "preload-chars", env: "KG_PRELOAD_CHARS", def: strconv.Itoa(app.DefaultPreloadChars),
			usage: "most `characters` a Claude Code session start's preload injects",
			parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < app.MinPreloadChars || n > app.MaxPreloadChars {
					return fmt.Errorf("want a whole number of characters from %d to %d (Claude Code shows a longer hook context as a 2 KB preview)",
						app.MinPreloadChars, app.MaxPreloadChars)
				}
				c.App.PreloadChars = n
				return nil
			},
			show: func(c Config) string { return strconv.Itoa(c.App.PreloadChars) }},
		{flag: "idle-unload", env: "KG_IDLE_UNLOAD", def: strconv.Itoa(int(app.DefaultIdleUnload / time.Second)),
			usage: "`seconds` a project graph stays loaded without a request before it is unloaded (0: never)",
			parse: func(c *Config, v string) error {
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
			show: func(c Config) string { return strconv.Itoa(int(max(c.App.IdleUnload, 0) / time.Second)) }},
		{flag: "max-loaded-nodes", env: "KG_MAX_LOADED_NODES", def: strconv.Itoa(app.DefaultMaxLoadedNodes),
			usage: "`nodes` the loaded project graphs hold at most together; a load past it unloads the least recently used (0: no bound)",
			parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n > 1_000_000_000 {
					return errors.New("want a whole number of nodes from 0 (no bound) to 1000000000")
				}
				c.App.MaxLoadedNodes = n
				return nil
			},
			show: func(c Config) string { return strconv.Itoa(c.App.MaxLoadedNodes) }},
		{flag: "history-days", env: "KG_HISTORY_DAYS", def: strconv.Itoa(app.DefaultHistoryDays),
			usage: "`days` the change log keeps an entry (kg history, kg undo) before the maintenance tick prunes it",
			parse: func(c *Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > 36500 {
					return errors.New("want a whole number of days from 1 to 36500")
				}
				c.App.HistoryDays = n
				return nil
			},
			show: func(c Config) string { return strconv.Itoa(c.App.HistoryDays) }},
		{flag: "secrets-mode", env: "KG_SECRETS", def: string(domain.SecretsBlock),
			usage: "what a write holding a credential does: `mode` block (refuse it), redact (store [REDACTED:<kind>] in its place) or allow",
			parse: func(c *Config, v string) error {
				m, err := domain.ParseSecretsMode("secrets-mode", strings.ToLower(v))
				if err != nil {
					return errors.New("want block, redact or allow")
				}
				c.App.Secrets = m
				return nil
			},
			show: func(c Config) string { return string(c.App.Secrets) }},
		{flag: "capture", env: "KG_CAPTURE", def: string(capture.Ask),
			usage: "`mode` of the stop hook: ask (a session that did work and wrote nothing to kg is asked once to record what it learned) or off",
			parse: func(c *Config, v string) error {
				m, err := capture.ParseMode("capture", strings.ToLower(v))
				if err != nil {
					return errors.New("want ask or off")
				}
				c.App.Capture = m
				return nil
			},
			show: func(c Config) string { return string(c.App.Capture) }},
		{flag: "auth-token", env: "KG_AUTH_TOKEN",
			usage: "bearer `token` every request must carry (required when --host is not loopback)",
			parse: func(c *Config, v string) error {
				// A token with white space cannot be sent in one header
				// value as the client would type it.
				if strings.ContainsAny(v, " \t\r\n") {
					return errors.New("want a token without white space")
				}
				c.AuthToken = v
				return nil
			}},
		{flag: "tls-cert", env: "KG_TLS_CERT",
			usage: "PEM `file` of the server's TLS certificate (its chain after it): with --tls-key, serve HTTPS only",
			parse: func(c *Config, v string) error { c.TLSCert = v; return nil },
			show:  func(c Config) string { return c.TLSCert }},
		{flag: "tls-key", env: "KG_TLS_KEY",
			usage: "PEM `file` of the private key of --tls-cert",
			parse: func(c *Config, v string) error { c.TLSKey = v; return nil },
			show:  func(c Config) string { return c.TLSKey }},
		{flag: "insecure-http", env: "KG_INSECURE_HTTP", def: "false", isBool: true,
			usage: "let a team server (--storage postgres) listen on a non-loopback address without TLS, behind a TLS proxy",
			parse: func(c *Config, v string) error {
				b, err := parseBool(v)
				if err != nil {
					return err
				}
				c.InsecureHTTP = b
				return nil
			},
			show: func(c Config) string { return strconv.FormatBool(c.InsecureHTTP) }},
		{flag: "token-grace", env: "KG_TOKEN_GRACE", def: "600",
			usage: "`seconds` a team server keeps taking a token it verified while the database cannot be reached (0: none)",
			parse: func(c *Config, v string) error {
				d, err := parseSeconds(v, 0, 24*3600)
				c.TokenGrace = d
				return err
			},
			show: func(c Config) string { return strconv.Itoa(int(c.TokenGrace / time.Second)) }},
		{flag: "memory-limit", env: "KG_MEMORY_LIMIT", def: "auto",
			usage: "`MiB` the server's memory aims to stay under, Go's soft limit (0: none; auto: 256 for --storage postgres, none otherwise; GOMEMLIMIT wins over auto)",
			parse: func(c *Config, v string) error {
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
			show: func(c Config) string {
				if c.MemoryLimitMiB < 0 {
					return "auto"
				}
				return strconv.Itoa(c.MemoryLimitMiB)
			}},
		{flag: "allowed-hosts", env: "KG_ALLOWED_HOSTS",
			usage: "comma-separated `hosts`: Host names (or host:port) accepted beyond localhost",
			parse: func(c *Config, v string) error {
				for _, h := range splitList(v) {
					if strings.ContainsAny(h, "/ ") {
						return fmt.Errorf("want comma-separated host names or host:port, not %q", h)
					}
					c.AllowedHosts = append(c.AllowedHosts, h)
				}
				return nil
			},
			show: func(c Config) string { return strings.Join(c.AllowedHosts, ",") }},
		{flag: "allowed-origins", env: "KG_ALLOWED_ORIGINS",
			usage: "comma-separated `origins` (scheme://host[:port]) whose pages may call the server",
			parse: func(c *Config, v string) error {
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
			show: func(c Config) string { return strings.Join(c.AllowedOrigins, ",") }},
		{flag: "log-level", env: "KG_LOG_LEVEL", def: "info",
			usage: "`level`: debug, info, warn or error",
			parse: func(c *Config, v string) error {
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
			show: func(c Config) string { return strings.ToLower(c.LogLevel.String()) }},
		{flag: "log-format", env: "KG_LOG_FORMAT", def: "text",
			usage: "`format`: text or json",
			parse: func(c *Config, v string) error {
				switch f := strings.ToLower(v); f {
				case "text", "json":
					c.LogFormat = f
					return nil
				}
				return errors.New("want text or json")
			},
			show: func(c Config) string { return c.LogFormat }},
	}
}

// envDatabaseURL is the one setting without a flag (Config.DatabaseURL).
const envDatabaseURL = "KG_DATABASE_URL"

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

// settingAnnotation marks the flags of the settings table, so that the help
// lists them apart from a command's own flags.
const settingAnnotation = "kg-setting"

// settingsFlags is the settings table bound to the flags of one command.
type settingsFlags struct {
	table  []setting
	values []*stringValue
}

// bindSettings adds a flag for each row of the settings table to fs.
func bindSettings(fs *pflag.FlagSet, home func() (string, error)) *settingsFlags {
	b := &settingsFlags{table: settings(home)}
	fs.SortFlags = false // the help lists them in the table's order
	for _, s := range b.table {
		v := &stringValue{isBool: s.isBool}
		b.values = append(b.values, v)
		usage := s.usage + " (env " + s.env
		if s.def != "" {
			usage += ", default " + s.def
		}
		f := fs.VarPF(v, s.flag, "", usage+")")
		if s.isBool {
			f.NoOptDefVal = "true"
		}
		f.Annotations = map[string][]string{settingAnnotation: {s.env}}
	}
	return b
}

// config reads the settings: flags win over the environment (through
// getenv), which wins over the defaults. A bad value is a usage error that
// names the flag or variable it came from and what it accepts.
func (b *settingsFlags) config(getenv func(string) string) (Config, error) {
	var c Config
	c.App = app.DefaultConfig()
	for i, s := range b.table {
		v, from := s.def, ""
		switch {
		case b.values[i].set:
			v, from = b.values[i].v, "--"+s.flag
		case getenv(s.env) != "":
			v, from = getenv(s.env), s.env
		}
		if from == "" && v == "" {
			continue // no default and not given: the zero value stands
		}
		if err := s.parse(&c, strings.TrimSpace(v)); err != nil {
			if from == "" {
				from = "default of --" + s.flag // a bug in this table, or the home folder
			}
			return Config{}, usagef("invalid %s %q: %v", from, v, err)
		}
	}
	c.DatabaseURL = strings.TrimSpace(getenv(envDatabaseURL))
	if c.Storage == "postgres" && c.DatabaseURL == "" {
		return Config{}, usagef("--storage postgres needs %s, the database's connection URL (e.g. postgres://kg@db.internal/kg); "+
			"it is read from the environment only, never from the command line, which other users can read", envDatabaseURL)
	}
	if err := c.checkTransport(); err != nil {
		return Config{}, err
	}
	// In team mode every request carries a person's token instead.
	if c.AuthToken == "" && c.Storage != "postgres" && !isLoopback(c.Host) {
		return Config{}, usagef("--host %s is not a loopback address, so every request must carry a token: "+
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
		return usagef("--tls-cert %s needs its private key: set --tls-key or KG_TLS_KEY too", c.TLSCert)
	case c.TLSKey != "" && c.TLSCert == "":
		return usagef("--tls-key %s needs its certificate: set --tls-cert or KG_TLS_CERT too", c.TLSKey)
	case c.Storage == "postgres" && !isLoopback(c.Host) && c.TLSCert == "" && !c.InsecureHTTP:
		return usagef("--host %s is not a loopback address and a team server's requests carry people's tokens: "+
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

// given returns the settings given as flags, as arguments that give them
// again to a child kg: `kg mcp` starts `kg serve` with its own settings.
func (b *settingsFlags) given() []string {
	var args []string
	for i, s := range b.table {
		if b.values[i].set {
			args = append(args, "--"+s.flag+"="+b.values[i].v)
		}
	}
	return args
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

// isSet reports whether the setting of flag was given, as a flag or in the
// environment, rather than left to its default.
func (b *settingsFlags) isSet(flag string, getenv func(string) string) bool {
	for i, s := range b.table {
		if s.flag == flag {
			return b.values[i].set || getenv(s.env) != ""
		}
	}
	return false
}
