package app

import (
	"testing"
	"time"

	"github.com/kg-memory/kg/domain"
)

func TestCloseFlushesAndRefusesWrites(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put(user(sid), "n", "g")
	e.clock.Advance(time.Hour)
	if _, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: []string{"n"}}); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Close(e.ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.store.stored(t, domain.UserGraph, "n"); n.LastRead != e.clock.Now() {
		t.Error("the pending read stamp was not saved at Close")
	}
	stored, _ := e.store.LoadSessions(e.ctx)
	if stored[sid].OpCount != 2 {
		t.Errorf("stored op count = %d, want 2 saved at Close", stored[sid].OpCount)
	}
	_, err := e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "late", Gist: "after close"})
	wantKind(t, err, domain.KindUnavailable, "")
	if _, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid}); err != nil {
		t.Errorf("reads stop at Close: %v", err)
	}
	if err := e.svc.Close(e.ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
