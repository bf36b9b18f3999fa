package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kg-memory/kg/adapters/rootdir"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/store"
	"github.com/kg-memory/kg/domain"
)

// Every registered backend is complete, named once, and accepted by
// --storage; nothing else is.
func TestBackendRegistry(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, b := range backends() {
		if b.Name == "" || b.Name != strings.ToLower(b.Name) || seen[b.Name] {
			t.Errorf("backend name %q: want a unique lower-case name", b.Name)
		}
		seen[b.Name] = true
		if b.Open == nil || b.inject == nil {
			t.Errorf("backend %s lacks open or inject", b.Name)
		}
		cfg, err := parse([]string{"--storage", strings.ToUpper(b.Name)}, map[string]string{config.EnvDatabaseURL: "postgres://kg@db/kg"})
		if err != nil || cfg.Storage != b.Name {
			t.Errorf("--storage %s: %+v, %v", b.Name, cfg.Storage, err)
		}
	}
	if _, err := parse([]string{"--storage", "sqlite"}, nil); err == nil || !strings.Contains(err.Error(), "want "+backendNames()) {
		t.Errorf("--storage sqlite: %v", err)
	}
	if got := backendNames(); got != "json, bolt or postgres" {
		t.Errorf("backendNames = %q", got)
	}
}

func TestCheckMarker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		files    map[string]string
		want     string
		wantErr  string // substring; "" = success
		wantFile string // .backend content afterwards
	}{
		{"empty root gets the marker", nil, "json", "", "json\n"},
		{"empty root, bolt", nil, "bolt", "", "bolt\n"},
		{"replaced server's root counts as json", map[string]string{"user.json": "{}"}, "json", "", "json\n"},
		{"replaced server's root refuses bolt", map[string]string{"user.json": "{}"}, "bolt",
			"holds the json backend, not bolt: run `kg migrate --to bolt` to convert it, or start with --storage json", ""},
		{"a kg.db without marker counts as bolt", map[string]string{"kg.db": ""}, "json", "kg migrate --to json", ""},
		{"json marker refuses bolt", map[string]string{".backend": "json\n"}, "bolt", "kg migrate --to bolt", "json\n"},
		{"bolt marker refuses json", map[string]string{".backend": "bolt"}, "json", "kg migrate --to json", "bolt"},
		{"bolt marker accepts bolt", map[string]string{".backend": "bolt\n"}, "bolt", "", "bolt\n"},
		{"the marker wins over the files", map[string]string{".backend": "bolt\n", "user.json": "{}"}, "bolt", "", "bolt\n"},
		{"unknown marker", map[string]string{".backend": "sqlite"}, "json", `names an unknown backend "sqlite" (want json or bolt)`, "sqlite"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := store.CheckMarker(root, tc.want)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("store.CheckMarker = %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("store.CheckMarker = %v, want an error containing %q", err, tc.wantErr)
			}
			b, _ := os.ReadFile(filepath.Join(root, rootdir.BackendName))
			if string(b) != tc.wantFile {
				t.Errorf(".backend = %q, want %q", b, tc.wantFile)
			}
		})
	}
}

// A backend that lives in the root is opened under the root's lock, which
// its cleanup gives back; a second open on the same root is refused.
func TestInjectTakesTheRootLock(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, b := range backends() {
		if !b.InRoot {
			continue
		}
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "root")
			cfg, err := parse([]string{"--storage-root", root, "--storage", b.Name}, nil)
			if err != nil {
				t.Fatal(err)
			}
			st, cleanup, err := b.inject(context.Background(), cfg, "127.0.0.1:1", log)
			if err != nil {
				t.Fatal(err)
			}
			if st.Graphs == nil || st.Sessions == nil {
				t.Fatalf("storage = %+v", st)
			}
			if _, _, err := b.inject(context.Background(), cfg, "127.0.0.1:2", log); domain.KindOf(err) != domain.KindUnavailable ||
				!strings.Contains(err.Error(), "127.0.0.1:1") {
				t.Errorf("second open while the first holds the root: %v", err)
			}
			cleanup()
			l, err := rootdir.Acquire(root, "test")
			if err != nil {
				t.Fatalf("the cleanup kept the lock: %v", err)
			}
			_ = l.Release()
			if got, _ := rootdir.Backend(root); got != b.Name {
				t.Errorf(".backend = %q, want %q", got, b.Name)
			}
		})
	}
}
