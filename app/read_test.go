package app

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
)

func TestReadStartsASessionAndReadsBothGraphs(t *testing.T) {
	e := newEnv(t)
	other := e.session(projA)
	e.put(user(other), "u1", "a user insight")
	e.put(project(other), "p1", "a project insight")

	res, err := e.svc.Read(e.ctx, ReadRequest{CWD: projA + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NewSession || !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(res.SessionID) {
		t.Fatalf("session %q new=%v, want a new 16-hex id", res.SessionID, res.NewSession)
	}
	if res.Full == nil || res.Full.Project == nil {
		t.Fatalf("full read = %+v, want user and project views", res.Full)
	}
	sameIDs(t, "user active", ids(res.Full.User.View.Active), []string{"u1"})
	sameIDs(t, "project active", ids(res.Full.Project.View.Active), []string{"p1"})
	if res.Full.Project.Name != "proj-a" || res.Full.Project.Key != domain.ProjectGraph(projA) {
		t.Errorf("project view named %q, key %v", res.Full.Project.Name, res.Full.Project.Key)
	}
	// Saved at once: a crash right after the start keeps the session.
	stored, _ := e.store.LoadSessions(e.ctx)
	if s, ok := stored[res.SessionID]; !ok || s.ProjectPath != projA {
		t.Errorf("stored session = %+v, %v; want it bound to %s", s, ok, projA)
	}

	again, err := e.svc.Read(e.ctx, ReadRequest{SessionID: res.SessionID, CWD: projA})
	if err != nil {
		t.Fatal(err)
	}
	if again.SessionID != res.SessionID || again.NewSession {
		t.Errorf("reuse gave %q new=%v, want %q reused", again.SessionID, again.NewSession, res.SessionID)
	}
	st, err := e.svc.SessionStats(e.ctx, res.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Session.OpCount != 2 {
		t.Errorf("op count = %d, want 2", st.Session.OpCount)
	}
}

func TestReadErrors(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	tests := []struct {
		name  string
		req   ReadRequest
		kind  domain.Kind
		field string
		msg   string
	}{
		{"neither", ReadRequest{}, domain.KindInvalid, "cwd", "one of cwd or session_id is required"},
		{"relative cwd", ReadRequest{CWD: "work/proj"}, domain.KindInvalid, "cwd", "cwd: must be an absolute path"},
		{"unknown session", ReadRequest{SessionID: "0123456789abcdef"}, domain.KindNotFound, "session_id", "call kg_read with cwd"},
		{"other project", ReadRequest{SessionID: sid, CWD: projB}, domain.KindInvalid, "cwd", "another project"},
		{"bad level", ReadRequest{SessionID: sid, IDs: []string{"x"}, Level: "bogus"}, domain.KindInvalid, "level", `"bogus" is not one of user, project`},
		{"missing id", ReadRequest{SessionID: sid, IDs: []string{"x"}}, domain.KindNotFound, "id", `node "x" not found in user or project graph`},
		{"missing id at level", ReadRequest{SessionID: sid, IDs: []string{"x"}, Level: domain.LevelUser}, domain.KindNotFound, "id", `node "x" not found in user graph`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.Read(e.ctx, tc.req)
			de := wantKind(t, err, tc.kind, tc.field)
			if !strings.Contains(de.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", de.Error(), tc.msg)
			}
		})
	}
}

func TestReadWithoutProjectHasNoProjectView(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	res, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	if res.Full.Project != nil {
		t.Errorf("project view %+v for a session without a project", res.Full.Project)
	}
	_, err = e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: []string{"x"}, Level: domain.LevelProject})
	wantKind(t, err, domain.KindInvalid, "session_id")
	_, err = e.svc.Read(e.ctx, ReadRequest{SessionID: sid, CWD: projA})
	wantKind(t, err, domain.KindInvalid, "cwd")
}

func TestReadByIDInBothGraphsReturnsBothUserFirst(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(user(sid), "dup", "in user")
	e.put(project(sid), "dup", "in project")
	e.put(project(sid), "only-p", "only in project")
	e.edge(project(sid), "only-p", "dup", "relates")
	e.edge(project(sid), "only-p", "src/x.go", "touches")

	res, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: []string{"dup", "only-p"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Nodes) != 3 {
		t.Fatalf("got %d nodes, want 3", len(res.Nodes))
	}
	if res.Nodes[0].Level != domain.LevelUser || res.Nodes[1].Level != domain.LevelProject || res.Nodes[1].Project != projA {
		t.Errorf("levels %s, %s(%s); want user then project", res.Nodes[0].Level, res.Nodes[1].Level, res.Nodes[1].Project)
	}
	p := res.Nodes[2]
	if len(p.Out) != 2 {
		t.Fatalf("only-p has %d edges out, want 2", len(p.Out))
	}
	for _, end := range p.Out {
		switch end.Other {
		case "dup":
			if end.OtherTier == nil || *end.OtherTier != domain.Active || end.OtherLevel != domain.LevelProject {
				t.Errorf("end dup: tier %v level %s, want active in project", end.OtherTier, end.OtherLevel)
			}
		case "src/x.go":
			if end.OtherTier != nil {
				t.Errorf("a file end has tier %v", *end.OtherTier)
			}
		}
	}

	res, err = e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: []string{"dup"}, Level: domain.LevelProject})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Nodes) != 1 || res.Nodes[0].Node.Gist != "in project" {
		t.Errorf("level project read gave %+v", res.Nodes)
	}
}

func TestReadByIDCrossLevelEndShowsUserTier(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(user(sid), "principle", "a user principle")
	e.put(project(sid), "impl", "follows it")
	e.edge(project(sid), "impl", "principle", "follows")
	res, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: []string{"impl"}})
	if err != nil {
		t.Fatal(err)
	}
	end := res.Nodes[0].Out[0]
	if end.OtherTier == nil || end.OtherLevel != domain.LevelUser {
		t.Errorf("cross-level end: tier %v level %q, want the user node's tier", end.OtherTier, end.OtherLevel)
	}
}
