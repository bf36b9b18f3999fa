package team

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/postgres/pgtest"
)

// TestBinaryHooksAgainstATeamServer: Claude Code's hooks, run as `kg hook`
// on a developer's machine with KG_HTTP_HOST, KG_HTTP_PORT and
// KG_AUTH_TOKEN naming a team server (docs/operations.md#team-server),
// preload the project the checkout's .kg/project names, and the prompt
// hook of the same conversation recalls what another person wrote since.
func TestBinaryHooksAgainstATeamServer(t *testing.T) {
	dbEnv := "KG_DATABASE_URL=" + pgtest.Database(t)
	tokens := map[string]string{}
	for _, name := range []string{"alice", "bob"} {
		code, token, stderr := kgRun(t, []string{dbEnv}, "token", "create", "--name", name)
		if code != 0 {
			t.Fatalf("kg token create: %d %s", code, stderr)
		}
		tokens[name] = strings.TrimSpace(token)
	}
	addr := serveTeam(t, dbEnv)
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	checkout := filepath.Join(t.TempDir(), "ledger")
	if err := os.MkdirAll(filepath.Join(checkout, ".kg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkout, ".kg", "project"), []byte("github.com/acme/ledger\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bob := &instance{t: t, name: "server", url: "http://" + addr, token: tokens["bob"]}
	if code, _ := bob.putNode(map[string]any{"level": "project", "project_path": "github.com/acme/ledger", "id": "ledger-rounding",
		"gist": "ledger amounts round half to even"}); code != 200 {
		t.Fatalf("bob's write: %d", code)
	}
	hook := func(event string, input map[string]any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(input)
		cmd := exec.Command(kgBinary(t), "hook", event, "--debug")
		cmd.Env = kgEnv(t, []string{"KG_HTTP_HOST=" + host, "KG_HTTP_PORT=" + port, "KG_AUTH_TOKEN=" + tokens["alice"],
			"KG_STORAGE_ROOT=" + t.TempDir()})
		cmd.Stdin = bytes.NewReader(b)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("kg hook %s: %v\n%s", event, err, errb.String())
		}
		var res map[string]any
		if out.Len() > 0 {
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("kg hook %s printed %q: %v", event, out.String(), err)
			}
		}
		if res == nil {
			t.Logf("kg hook %s printed nothing; stderr:\n%s", event, errb.String())
		}
		return res
	}
	context := func(res map[string]any) string {
		h, _ := res["hookSpecificOutput"].(map[string]any)
		s, _ := h["additionalContext"].(string)
		return s
	}
	start := hook("session-start", map[string]any{"session_id": "conv-1", "cwd": checkout, "source": "startup", "hook_event_name": "SessionStart"})
	if !strings.Contains(context(start), "ledger-rounding") || !strings.Contains(start["systemMessage"].(string), "1 project") {
		t.Fatalf("kg hook session-start against the team server: %v; want the project's node preloaded", start)
	}
	if code, _ := bob.putNode(map[string]any{"level": "project", "project_path": "github.com/acme/ledger", "id": "ledger-currency",
		"gist": "ledger amounts carry their currency code"}); code != 200 {
		t.Fatalf("bob's second write: %d", code)
	}
	prompt := hook("prompt", map[string]any{"session_id": "conv-1", "cwd": checkout, "hook_event_name": "UserPromptSubmit",
		"prompt": "which currency code do ledger amounts carry"})
	if got := context(prompt); !strings.Contains(got, "ledger-currency") || strings.Contains(got, "ledger-rounding:") {
		t.Errorf("kg hook prompt recalled %q; want bob's new node and not the one preloaded", got)
	}
}
