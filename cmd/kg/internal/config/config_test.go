package config

import (
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/kg-memory/kg/app"
	"github.com/kg-memory/kg/app/capture"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/secretscreen"
)

func fakeHome() (string, error) { return "/home/ada", nil }

// parse reads the settings from args and envs as a command does, with the
// home folder at /home/ada.
func parse(args []string, envs map[string]string) (Config, error) {
	return parseWith(args, func(k string) string { return envs[k] }, fakeHome)
}

func parseWith(args []string, getenv func(string) string, home func() (string, error)) (Config, error) {
	fs := pflag.NewFlagSet("kg serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s := Bind(fs, Settings(home, storages))
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	return s.Config(getenv)
}

// storages are the backends of kg's registry (cmd/kg's backends()), which
// its tests check the table against.
var storages = []string{"json", "bolt", "postgres"}

func TestParseServeDefaults(t *testing.T) {
	t.Parallel()
	got, err := parse(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Host:           "127.0.0.1",
		Port:           8765,
		Root:           "/home/ada/.knowledge-graph",
		Storage:        "json",
		App:            app.DefaultConfig(),
		TokenGrace:     10 * time.Minute,
		MemoryLimitMiB: -1, // auto
		LogLevel:       slog.LevelInfo,
		LogFormat:      "text",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("defaults (-want +got):\n%s", d)
	}
	// The table's defaults are the spec's, as the app and domain name them.
	if got.App.Policy.Grace != domain.Days(5) || got.App.Policy.OrphanGrace != domain.Days(365) ||
		got.App.MaintenanceInterval != 30*time.Second || got.App.SessionTTL != 86400*domain.Second ||
		got.App.IdleUnload != 30*time.Minute || got.App.Policy.Scoring != compaction.ScoringUse {
		t.Errorf("spec defaults differ: %+v", got.App)
	}
}

// everyValue gives every setting a value other than its default.
var everyValue = []string{
	"--host", "localhost", "--port", "0", "--server-url", "HTTPS://kg.lan:9443/", "--storage-root", "/srv/kg/", "--storage", "bolt",
	"--max-tokens", "8000", "--estimate-notes", "--grace-days", "0", "--orphan-grace-days", "0",
	"--scoring", "SEED", "--maintenance-interval", "5", "--session-ttl", "3600", "--idle-unload", "600", "--max-loaded-nodes", "5000", "--memory-limit", "512", "--secrets-mode", "redact", "--capture", "OFF", "--auth-token", "s3cret",
	"--tls-cert", "/etc/kg/kg.crt", "--tls-key", "/etc/kg/kg.key", "--insecure-http", "--token-grace", "0",
	"--allowed-hosts", "kg.lan, kg.lan:9000,", "--allowed-origins", "http://localhost:5173/,https://x.dev",
	"--log-level", "debug", "--log-format", "json",
}

func TestParseServeEveryValue(t *testing.T) {
	t.Parallel()
	got, err := parse(everyValue, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantApp := app.DefaultConfig()
	wantApp.Policy.MaxTokens = 8000
	wantApp.Policy.EstimateNotes = true
	wantApp.Policy.Grace = 0
	wantApp.Policy.OrphanGrace = 0
	wantApp.Policy.Scoring = compaction.ScoringSeed
	wantApp.MaintenanceInterval = 5 * time.Second
	wantApp.SessionTTL = 3600 * domain.Second
	wantApp.IdleUnload = 10 * time.Minute
	wantApp.MaxLoadedNodes = 5000
	wantApp.Secrets = secretscreen.Redact
	wantApp.Capture = capture.Off
	want := Config{
		Host: "localhost", Port: 0, ServerURL: "https://kg.lan:9443", Root: "/srv/kg", Storage: "bolt", App: wantApp, AuthToken: "s3cret",
		TLSCert: "/etc/kg/kg.crt", TLSKey: "/etc/kg/kg.key", InsecureHTTP: true, MemoryLimitMiB: 512,
		AllowedHosts:   []string{"kg.lan", "kg.lan:9000"},
		AllowedOrigins: []string{"http://localhost:5173", "https://x.dev"},
		LogLevel:       slog.LevelDebug, LogFormat: "json",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// --idle-unload 0 keeps every project graph loaded: the app's "never".
func TestParseServeIdleUnloadNever(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		envs map[string]string
	}{
		{"flag", []string{"--idle-unload", "0"}, nil},
		{"env", nil, map[string]string{"KG_IDLE_UNLOAD": "0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parse(tc.args, tc.envs)
			if err != nil {
				t.Fatal(err)
			}
			if got.App.IdleUnload >= 0 {
				t.Errorf("IdleUnload = %v, want negative (never)", got.App.IdleUnload)
			}
		})
	}
}

// Flags win over the environment, which wins over the defaults.
func TestParseServePrecedence(t *testing.T) {
	t.Parallel()
	envs := map[string]string{
		"KG_HTTP_PORT": "9001", "KG_STORAGE": "bolt", "KG_STORAGE_ROOT": "~/kg-env",
		"KG_ESTIMATE_NOTES": "yes", "KG_LOG_LEVEL": "warning", "KG_HTTP_HOST": "::1",
	}
	got, err := parse([]string{"--port", "9002", "--estimate-notes=false"}, envs)
	if err != nil {
		t.Fatal(err)
	}
	if got.Port != 9002 {
		t.Errorf("port = %d, want the flag's 9002", got.Port)
	}
	if got.App.Policy.EstimateNotes {
		t.Error("estimate-notes: the flag's false lost to the environment's yes")
	}
	if got.Storage != "bolt" || got.Root != "/home/ada/kg-env" || got.LogLevel != slog.LevelWarn || got.Host != "::1" {
		t.Errorf("environment not used: %+v", got)
	}
	if got.Addr() != "[::1]:9002" {
		t.Errorf("Addr = %q", got.Addr())
	}
}

func TestParseServeAuthToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		envs      map[string]string
		wantErr   string
		wantHosts []string
	}{
		{name: "wildcard without token", args: []string{"--host", "0.0.0.0"},
			wantErr: "--host 0.0.0.0 is not a loopback address, so every request must carry a token: set --auth-token or KG_AUTH_TOKEN (or listen on 127.0.0.1)"},
		{name: "LAN address without token", envs: map[string]string{"KG_HTTP_HOST": "192.168.1.5"},
			wantErr: "--host 192.168.1.5 is not a loopback address"},
		{name: "wildcard with token", args: []string{"--host", "0.0.0.0", "--auth-token", "t"}},
		{name: "named host with token is allowed as Host", args: []string{"--host", "kg.lan"},
			envs: map[string]string{"KG_AUTH_TOKEN": "t"}, wantHosts: []string{"kg.lan"}},
		{name: "IPv6 loopback needs none", args: []string{"--host", "[::1]"}},
		{name: "other loopback address needs none", args: []string{"--host", "127.0.0.2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseExpecting(t, tc.args, tc.envs, tc.wantErr)
			if !ok {
				return
			}
			if d := cmp.Diff(tc.wantHosts, got.AllowedHosts); d != "" {
				t.Errorf("allowed hosts (-want +got):\n%s", d)
			}
		})
	}
}

// Every bad value stops with a message naming the setting (the flag or the
// variable it came from) and what it accepts.
func TestParseServeBadValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		envs map[string]string
		want string
	}{
		{"host with port", []string{"--host", "127.0.0.1:80"}, nil,
			`invalid --host "127.0.0.1:80": want a host name or IP address without a port, e.g. 127.0.0.1`},
		{"host empty", []string{"--host", ""}, nil, `invalid --host "": want a host name or IP address`},
		{"host URL", nil, map[string]string{"KG_HTTP_HOST": "http://x"}, `invalid KG_HTTP_HOST "http://x": want a host name`},
		{"port word", []string{"--port", "http"}, nil, `invalid --port "http": want a port number from 0 to 65535`},
		{"port too big", nil, map[string]string{"KG_HTTP_PORT": "70000"}, `invalid KG_HTTP_PORT "70000": want a port number from 0 to 65535`},
		{"port negative", []string{"--port=-1"}, nil, `invalid --port "-1": want a port number`},
		{"server url ftp", nil, map[string]string{"KG_SERVER_URL": "ftp://kg.lan"}, `invalid KG_SERVER_URL "ftp://kg.lan": want an http:// or https:// URL`},
		{"server url bare host", []string{"--server-url", "kg.lan:8765"}, nil, `invalid --server-url "kg.lan:8765": want an http:// or https:// URL`},
		{"server url no host", []string{"--server-url", "https://:8765"}, nil, `invalid --server-url "https://:8765": want a host after the scheme`},
		{"server url empty host", nil, map[string]string{"KG_SERVER_URL": "https://"}, `invalid KG_SERVER_URL "https://": want a host after the scheme`},
		{"server url path", []string{"--server-url", "https://kg.lan/kg"}, nil, `invalid --server-url "https://kg.lan/kg": want no path`},
		{"server url query", []string{"--server-url", "https://kg.lan/?a=b"}, nil, `invalid --server-url "https://kg.lan/?a=b": want no query nor fragment`},
		{"server url user", nil, map[string]string{"KG_SERVER_URL": "https://me:pw@kg.lan"}, `invalid KG_SERVER_URL "https://me:pw@kg.lan": want no user info in the URL`},
		{"server url port", []string{"--server-url", "https://kg.lan:port"}, nil, `invalid --server-url "https://kg.lan:port": want a URL like https://kg.internal:8765`},
		{"storage", []string{"--storage", "sqlite"}, nil, `invalid --storage "sqlite": want json, bolt or postgres`},
		{"storage env", nil, map[string]string{"KG_STORAGE": "redis"}, `invalid KG_STORAGE "redis": want json, bolt or postgres`},
		{"storage root empty", []string{"--storage-root", ""}, nil, `invalid --storage-root "": want a folder path`},
		{"max tokens word", []string{"--max-tokens", "lots"}, nil, `invalid --max-tokens "lots": want a whole number of tokens from 100 to 10000000`},
		{"max tokens zero", nil, map[string]string{"KG_MAX_TOKENS": "0"}, `invalid KG_MAX_TOKENS "0": want a whole number of tokens from 100`},
		{"estimate notes", nil, map[string]string{"KG_ESTIMATE_NOTES": "maybe"}, `invalid KG_ESTIMATE_NOTES "maybe": want true or false`},
		{"estimate notes flag", []string{"--estimate-notes=sometimes"}, nil, `invalid --estimate-notes "sometimes": want true or false`},
		{"grace days negative", []string{"--grace-days", "-1"}, nil, `invalid --grace-days "-1": want a whole number of days from 0 to 36500`},
		{"grace days env", nil, map[string]string{"KG_GRACE_PERIOD_DAYS": "1.5"}, `invalid KG_GRACE_PERIOD_DAYS "1.5": want a whole number of days`},
		{"orphan grace days", []string{"--orphan-grace-days", "forever"}, nil, `invalid --orphan-grace-days "forever": want a whole number of days from 0 to 36500`},
		{"orphan grace env", nil, map[string]string{"KG_ORPHAN_GRACE_DAYS": "99999"}, `invalid KG_ORPHAN_GRACE_DAYS "99999": want a whole number of days`},
		{"scoring", []string{"--scoring", "recency"}, nil, `invalid --scoring "recency": want use or seed`},
		{"scoring env", nil, map[string]string{"KG_SCORING": "lru"}, `invalid KG_SCORING "lru": want use or seed`},
		{"maintenance zero", []string{"--maintenance-interval", "0"}, nil, `invalid --maintenance-interval "0": want a whole number of seconds from 1 to 86400`},
		{"save interval env", nil, map[string]string{"KG_SAVE_INTERVAL": "30s"}, `invalid KG_SAVE_INTERVAL "30s": want a whole number of seconds from 1 to 86400`},
		{"session ttl", []string{"--session-ttl", "0"}, nil, `invalid --session-ttl "0": want a whole number of seconds from 1 to 31536000`},
		{"session ttl env", nil, map[string]string{"KG_SESSION_TTL": "1d"}, `invalid KG_SESSION_TTL "1d": want a whole number of seconds`},
		{"preload chars past what Claude Code inlines", []string{"--preload-chars", "30000"}, nil, `invalid --preload-chars "30000": want a whole number of characters from 1000 to 9500 (Claude Code shows a longer hook context as a 2 KB preview)`},
		{"max loaded nodes negative", []string{"--max-loaded-nodes", "-1"}, nil, `invalid --max-loaded-nodes "-1": want a whole number of nodes from 0 (no bound) to 1000000000`},
		{"memory limit too small", nil, map[string]string{"KG_MEMORY_LIMIT": "16"}, `invalid KG_MEMORY_LIMIT "16": want auto, 0 (none) or a whole number of MiB from 64 to 1048576`},
		{"idle unload negative", []string{"--idle-unload", "-5"}, nil, `invalid --idle-unload "-5": want a whole number of seconds from 1 to 31536000, or 0 for never`},
		{"idle unload duration", []string{"--idle-unload", "30m"}, nil, `invalid --idle-unload "30m": want a whole number of seconds`},
		{"idle unload env", nil, map[string]string{"KG_IDLE_UNLOAD": "99999999"}, `invalid KG_IDLE_UNLOAD "99999999": want a whole number of seconds from 1 to 31536000, or 0 for never`},
		{"secrets mode", []string{"--secrets-mode", "warn"}, nil, `invalid --secrets-mode "warn": want block, redact or allow`},
		{"secrets env", nil, map[string]string{"KG_SECRETS": "off"}, `invalid KG_SECRETS "off": want block, redact or allow`},
		{"capture env", nil, map[string]string{"KG_CAPTURE": "never"}, `invalid KG_CAPTURE "never": want ask or off`},
		{"auth token space", []string{"--auth-token", "a b"}, nil, `invalid --auth-token "a b": want a token without white space`},
		{"allowed hosts URL", []string{"--allowed-hosts", "ok,http://x/"}, nil, `invalid --allowed-hosts "ok,http://x/": want comma-separated host names or host:port, not "http://x/"`},
		{"allowed origins bare", nil, map[string]string{"KG_ALLOWED_ORIGINS": "localhost:5173"}, `invalid KG_ALLOWED_ORIGINS "localhost:5173": want comma-separated origins like http://localhost:5173, not "localhost:5173"`},
		{"allowed origins path", []string{"--allowed-origins", "http://x/app"}, nil, `not "http://x/app"`},
		{"log level", []string{"--log-level", "loud"}, nil, `invalid --log-level "loud": want debug, info, warn or error`},
		{"log format", nil, map[string]string{"KG_LOG_FORMAT": "xml"}, `invalid KG_LOG_FORMAT "xml": want text or json`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(tc.args, tc.envs)
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want a usage error", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseServeHomeUnknown(t *testing.T) {
	t.Parallel()
	_, err := parseWith(nil, func(string) string { return "" },
		func() (string, error) { return "", errors.New("$HOME is not defined") })
	want := `invalid default of --storage-root "~/.knowledge-graph": the home folder is unknown ($HOME is not defined); give an absolute path`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

// What a setting shows (the value /health reports, which a command through
// the server compares with its own) reads back as the same value, for the
// defaults and for other values; the token is never shown.
func TestSettingsShowWhatTheyParse(t *testing.T) {
	t.Parallel()
	// The defaults, every other value, and other spellings (warning for
	// warn, JSON for json, 0 for never).
	for _, args := range [][]string{nil, everyValue, {"--idle-unload", "0", "--log-level", "warning", "--log-format", "JSON"}} {
		cfg, err := parse(args, nil)
		if err != nil {
			t.Fatal(err)
		}
		shown := Shown(Settings(fakeHome, storages), cfg)
		if _, ok := shown["auth-token"]; ok {
			t.Errorf("the token is shown: %v", shown)
		}
		for _, s := range Settings(fakeHome, storages) {
			if s.Show == nil {
				if s.Flag != "auth-token" {
					t.Errorf("--%s has no show: /health cannot report it, and kg mcp refuses it whenever it is given", s.Flag)
				}
				continue
			}
			v, ok := shown[s.Flag]
			if !ok {
				t.Errorf("--%s is not shown", s.Flag)
				continue
			}
			args := []string{"--" + s.Flag + "=" + v}
			// The certificate and its key are given together or not at all.
			if partner, ok := map[string]string{"tls-cert": "tls-key", "tls-key": "tls-cert"}[s.Flag]; ok {
				args = append(args, "--"+partner+"="+shown[partner])
			}
			again, err := parse(args, nil)
			if err != nil {
				t.Errorf("--%s: its shown value %q does not parse: %v", s.Flag, v, err)
				continue
			}
			if got := s.Show(again); got != v {
				t.Errorf("--%s: shown %q, read back and shown again %q", s.Flag, v, got)
			}
		}
	}
}

// A certificate needs its key; a team server on a non-loopback address needs
// TLS or --insecure-http (docs/design/team.md#transport). A server of one
// person, and a team server on loopback, need neither.
func TestParseServeTransport(t *testing.T) {
	t.Parallel()
	team := map[string]string{"KG_DATABASE_URL": "postgres://kg@db/kg"}
	tests := []struct {
		name    string
		args    []string
		envs    map[string]string
		wantErr string
		tls     bool
	}{
		{name: "team on a wildcard address without TLS", args: []string{"--storage", "postgres", "--host", "0.0.0.0"}, envs: team,
			wantErr: "--host 0.0.0.0 is not a loopback address and a team server's requests carry people's tokens: serve HTTPS with --tls-cert and --tls-key"},
		{name: "team on a LAN address with --insecure-http", args: []string{"--storage", "postgres", "--host", "10.0.0.5", "--insecure-http"}, envs: team},
		{name: "team with KG_INSECURE_HTTP", args: []string{"--storage", "postgres", "--host", "0.0.0.0"},
			envs: map[string]string{"KG_DATABASE_URL": "postgres://kg@db/kg", "KG_INSECURE_HTTP": "true"}},
		{name: "team with TLS", args: []string{"--storage", "postgres", "--host", "0.0.0.0", "--tls-cert", "/etc/kg/kg.crt", "--tls-key", "/etc/kg/kg.key"}, envs: team, tls: true},
		{name: "team on loopback", args: []string{"--storage", "postgres"}, envs: team},
		{name: "a certificate without its key", args: []string{"--tls-cert", "/etc/kg/kg.crt"}, wantErr: "--tls-cert /etc/kg/kg.crt needs its private key: set --tls-key or KG_TLS_KEY too"},
		{name: "a key without its certificate", envs: map[string]string{"KG_TLS_KEY": "/etc/kg/kg.key"}, wantErr: "--tls-key /etc/kg/kg.key needs its certificate"},
		{name: "one person's server with TLS", envs: map[string]string{"KG_TLS_CERT": "c.pem", "KG_TLS_KEY": "k.pem"}, tls: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseExpecting(t, tc.args, tc.envs, tc.wantErr)
			if !ok {
				return
			}
			if got.TLS() != tc.tls || (tc.tls && got.Scheme() != "https") || (!tc.tls && got.Scheme() != "http") {
				t.Errorf("TLS %v, scheme %s; want TLS %v", got.TLS(), got.Scheme(), tc.tls)
			}
		})
	}
}

// parseExpecting parses args and envs: with wantErr, it wants a usage error
// containing it and reports false; without, it wants no error.
func parseExpecting(t *testing.T, args []string, envs map[string]string, wantErr string) (Config, bool) {
	t.Helper()
	got, err := parse(args, envs)
	if wantErr != "" {
		var ue *UsageError
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("err = %v, want a usage error containing %q", err, wantErr)
		}
		return got, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return got, true
}
