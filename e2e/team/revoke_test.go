package team

import (
	"context"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestRevokingATokenClosesItsSockets: a /ws opened with a token before the
// token is revoked is closed with 1008 within 5 s on every server — here
// the token is revoked through another server's database connection — and
// hears nothing written after; another person's socket stays open and hears
// it (docs/design/team.md#people-and-tokens).
func TestRevokingATokenClosesItsSockets(t *testing.T) {
	_, ins := team(t, 2, options{})
	a, b := ins[0], ins[1]
	doomed, other := b.as(a.newToken("dora", "write")), b.as(a.newToken("olaf", "write"))
	const project = "github.com/acme/revoked"
	all := doomed.dial("scope=all")
	keyed := doomed.dial("project_key=" + project)
	onA := a.as(doomed.token).dial("scope=all")
	witness := other.dial("scope=all")

	revokedAt := time.Now()
	if n, err := a.store.RevokeToken(context.Background(), "dora"); err != nil || n != 1 {
		t.Fatalf("revoke: %d, %v", n, err)
	}
	for name, s := range map[string]*socket{"scope=all on b": all, "project_key on b": keyed, "scope=all on a": onA} {
		select {
		case <-s.ended:
		case <-time.After(5*time.Second - time.Since(revokedAt)):
			t.Fatalf("dora's socket (%s) is still open 5 s after her token was revoked", name)
		}
		if code := websocket.CloseStatus(s.err); code != websocket.StatusPolicyViolation {
			t.Errorf("dora's socket (%s) ended with %v, want close code 1008", name, s.err)
		}
	}
	t.Logf("every socket of the revoked token closed %v after the revocation", time.Since(revokedAt).Round(time.Millisecond))

	if code, _ := a.as(other.token).putNode(map[string]any{"level": "project", "project_key": project, "id": "after", "gist": "written after"}); code != 200 {
		t.Fatalf("olaf's write: %d", code)
	}
	if !witness.waitFor(5*time.Second, func(fs []map[string]any) bool { return len(eventFrames(fs)) >= 1 }) {
		t.Fatal("olaf's socket did not hear his write")
	}
	for name, s := range map[string]*socket{"scope=all on b": all, "project_key on b": keyed, "scope=all on a": onA} {
		if evs := s.events(); len(evs) != 0 {
			t.Errorf("dora's socket (%s) received %v after her token was revoked", name, evs)
		}
	}
}
