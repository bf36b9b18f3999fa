package rootdir

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
)

const childEnv = "KG_ROOTDIR_LOCK_CHILD"

// TestMain lets the lock test re-execute this binary as a second process
// that holds the lock until its stdin closes.
func TestMain(m *testing.M) {
	if root := os.Getenv(childEnv); root != "" {
		l, err := Acquire(root, "127.0.0.1:8765")
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin or dies
		_ = l.Release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestSecondProcessFailsAtOnce(t *testing.T) {
	root := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+root)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "locked" {
		t.Fatalf("child: %q, %v", line, err)
	}

	_, err = Acquire(root, "127.0.0.1:9999")
	if err == nil {
		t.Fatal("second Acquire succeeded while the child holds the lock")
	}
	if domain.KindOf(err) != domain.KindUnavailable {
		t.Errorf("kind = %v", domain.KindOf(err))
	}
	for _, want := range []string{"pid " + strconv.Itoa(cmd.Process.Pid), "127.0.0.1:8765"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if h := ReadHolder(root); h.PID != cmd.Process.Pid || h.Addr != "127.0.0.1:8765" {
		t.Errorf("holder = %+v", h)
	}

	// Once the holder is gone (even killed), the lock is free.
	_ = stdin.Close()
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	l, err := Acquire(root, "127.0.0.1:9999")
	if err != nil {
		t.Fatalf("Acquire after the holder died: %v", err)
	}
	if h := ReadHolder(root); h.PID != os.Getpid() || h.Addr != "127.0.0.1:9999" {
		t.Errorf("holder = %+v, want this process", h)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestBackendMarker(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		want     string
		wantErr  string // substring; "" = success
		wantFile string // .backend content afterwards
	}{
		{"empty root gets the marker", nil, JSON, "", "json\n"},
		{"empty root, bolt", nil, Bolt, "", "bolt\n"},
		{"replaced server's root counts as json", map[string]string{"user.json": "{}"}, JSON, "", "json\n"},
		{"replaced server's root refuses bolt", map[string]string{"user.json": "{}"}, Bolt, "kg migrate --to bolt", ""},
		{"json marker refuses bolt", map[string]string{".backend": "json\n"}, Bolt, "kg migrate --to bolt", "json\n"},
		{"bolt marker refuses json", map[string]string{".backend": "bolt"}, JSON, "kg migrate --to json", "bolt"},
		{"bolt marker accepts bolt", map[string]string{".backend": "bolt\n"}, Bolt, "", "bolt\n"},
		{"unknown marker", map[string]string{".backend": "sqlite"}, JSON, "unknown backend", "sqlite"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := Check(root, tc.want)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("Check = %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("Check = %v, want an error containing %q", err, tc.wantErr)
			}
			b, _ := os.ReadFile(filepath.Join(root, BackendName))
			if string(b) != tc.wantFile {
				t.Errorf(".backend = %q, want %q", b, tc.wantFile)
			}
		})
	}
}
