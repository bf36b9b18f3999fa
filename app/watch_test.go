package app

import (
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestWatch(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	bare := e.session("")
	tests := []struct {
		name, session, path string
		want                Watch
	}{
		{"user level only", "", "", Watch{}},
		{"by session", sid, "", Watch{SessionID: sid, Project: projA}},
		{"by path", "", projB + "/", Watch{Project: projB}},
		{"session and its own path", sid, projA, Watch{SessionID: sid, Project: projA}},
		{"session without a project and a path", bare, projB, Watch{SessionID: bare, Project: projB}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.svc.Watch(e.ctx, tc.session, tc.path, "")
			if err != nil || got != tc.want {
				t.Errorf("Watch = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	_, err := e.svc.Watch(e.ctx, sid, projB, "")
	wantKind(t, err, domain.KindInvalid, "project_path")
	_, err = e.svc.Watch(e.ctx, "0123456789abcdef", "", "")
	wantKind(t, err, domain.KindNotFound, "session_id")
	_, err = e.svc.Watch(e.ctx, "", "relative", "")
	wantKind(t, err, domain.KindInvalid, "project_path")

	stats, err := e.svc.SessionStats(e.ctx, sid)
	if err != nil || stats.Session.OpCount != 0 {
		t.Errorf("watching counted as an operation: %+v, %v", stats.Session, err)
	}
}
