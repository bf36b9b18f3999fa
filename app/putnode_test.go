package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

func TestPutNode(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	r := e.put(project(sid), "n", "first")
	if r.Level != domain.LevelProject || r.Project != projA || r.Node.Version.V != 1 || r.Node.Tier != domain.Active {
		t.Fatalf("result = %+v", r)
	}
	notes := []string{"why"}
	r2, err := e.svc.PutNode(e.ctx, project(sid), domain.NodeInput{ID: "n", Gist: "  second  ", Notes: notes})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Node.Version.V != 2 || r2.Node.Gist != "second" || len(r2.Node.Notes) != 1 {
		t.Errorf("update = %+v", r2.Node)
	}
	n, ok := e.store.stored(t, domain.ProjectGraph(projA), "n")
	if !ok || n.Gist != "second" || n.Version.Session != sid {
		t.Errorf("stored = %+v", n)
	}
	evs := e.evs(ports.EventNodeUpdated)
	if len(evs) != 2 || evs[1].SourceSession != sid || evs[1].Project != projA || evs[1].Seq != r2.Node.Version.Seq {
		t.Errorf("events = %+v", evs)
	}

	// Without a session: a project named by path works too.
	r3, err := e.svc.PutNode(e.ctx, Scope{Level: domain.LevelProject, ProjectPath: projB}, domain.NodeInput{ID: "m", Gist: "g"})
	if err != nil || r3.Project != projB {
		t.Errorf("put by project path: %+v, %v", r3, err)
	}
}

func TestPutNodeErrors(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(user(sid), "n", "v1")
	one, five := uint64(1), uint64(5)
	e.put(user(sid), "n", "v2")
	tests := []struct {
		name  string
		sc    Scope
		in    domain.NodeInput
		kind  domain.Kind
		field string
	}{
		{"conflict", user(sid), domain.NodeInput{ID: "n", Gist: "g", ExpectedVersion: &one}, domain.KindConflict, "expected_version"},
		{"conflict on create", user(sid), domain.NodeInput{ID: "new", Gist: "g", ExpectedVersion: &five}, domain.KindConflict, "expected_version"},
		{"bad id", user(sid), domain.NodeInput{ID: "a/b", Gist: "g"}, domain.KindInvalid, "id"},
		{"two-line gist", user(sid), domain.NodeInput{ID: "x", Gist: "a\nb"}, domain.KindInvalid, "gist"},
		{"long gist", user(sid), domain.NodeInput{ID: "x", Gist: strings.Repeat("g", 1001)}, domain.KindInvalid, "gist"},
		{"no level", Scope{SessionID: sid}, domain.NodeInput{ID: "x", Gist: "g"}, domain.KindInvalid, "level"},
		{"project without one", Scope{Level: domain.LevelProject}, domain.NodeInput{ID: "x", Gist: "g"}, domain.KindInvalid, "project_path"},
		{"two projects", Scope{SessionID: sid, ProjectPath: projB, Level: domain.LevelProject}, domain.NodeInput{ID: "x", Gist: "g"}, domain.KindInvalid, "project_path"},
		{"unknown session", user("0000000000000000"), domain.NodeInput{ID: "x", Gist: "g"}, domain.KindNotFound, "session_id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.PutNode(e.ctx, tc.sc, tc.in)
			wantKind(t, err, tc.kind, tc.field)
		})
	}
	if n, _ := e.store.stored(t, domain.UserGraph, "n"); n.Version.V != 2 || n.Gist != "v2" {
		t.Errorf("a rejected write changed the node: %+v", n)
	}
}

func TestPutNodeRunsCompaction(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.Policy.MaxTokens = 200 // 8 nodes of 25 tokens fit, a ninth does not
		c.Policy.Grace = 0
	})
	sid := e.session("")
	var last PutNodeResult
	for i := range 9 {
		e.clock.Advance(1e9)
		last = e.put(user(sid), fmt.Sprintf("n%d", i), strings.Repeat("x", 20))
	}
	if len(last.Compaction.Archived) == 0 {
		t.Fatalf("the write over budget archived nothing: %+v", last.Compaction)
	}
	evs := e.evs(ports.EventCompacted)
	if len(evs) != 1 || evs[0].SourceSession != sid || evs[0].Compaction == nil || len(evs[0].Compaction.Archived) == 0 {
		t.Errorf("compacted events = %+v", evs)
	}
	archived := last.Compaction.Archived[0]
	if n, _ := e.store.stored(t, domain.UserGraph, archived); n.Tier != domain.Archived {
		t.Errorf("%s archived by the write but stored %s: a write and its run are saved together", archived, n.Tier)
	}
}
