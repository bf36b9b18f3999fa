package app

import (
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/ports"
)

// A person's bulk archive is one write of their session: the nodes go to
// the archived tier, the page hears the moves, the change log holds one
// archive entry a node, and the undo of the session makes them active again.
func TestArchiveNodesIsUndoneBySession(t *testing.T) {
	e := newEnv(t)
	writer, person := e.session(projA), e.session(projA)
	for _, id := range []string{"a", "b", "c", "d"} {
		e.put(project(writer), id, "about "+id)
	}
	k := domain.ProjectGraph(projA)
	res, err := e.svc.ArchiveNodes(e.ctx, project(person), []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "archived", res.Archived, []string{"a", "b", "c"})
	if res.Level != domain.LevelProject || res.Project != projA || res.LastSeq-res.FirstSeq != 2 {
		t.Errorf("result %+v", res)
	}
	for _, id := range []string{"a", "b", "c"} {
		if n, _ := e.store.stored(t, k, id); n.Tier != domain.Archived {
			t.Errorf("%s is stored %s, want archived", id, n.Tier)
		}
	}
	evs := e.evs(ports.EventCompacted)
	if len(evs) != 1 || evs[0].Compaction == nil || len(evs[0].Compaction.Archived) != 3 || evs[0].SourceSession != person {
		t.Fatalf("events %+v, want one compacted event of 3 archived nodes by the person", evs)
	}
	h, err := e.svc.History(e.ctx, HistoryRequest{Scope: project(person), Session: person})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Entries) != 3 {
		t.Fatalf("history of the archive %+v, want 3 entries", h.Entries)
	}
	for _, en := range h.Entries {
		if en.Op != domain.HistoryArchive || en.Tier == nil || en.Tier.To != "archived" {
			t.Errorf("entry %+v, want an archive to archived", en)
		}
	}

	u, err := e.svc.Undo(e.ctx, UndoRequest{Scope: project(e.session(projA)), Session: person})
	if err != nil || len(u.Graphs) != 1 || len(u.Graphs[0].Applied) != 3 || len(u.Graphs[0].Skipped) != 0 {
		t.Fatalf("undo %+v, %v: want 3 nodes moved back", u, err)
	}
	for _, id := range []string{"a", "b", "c", "d"} {
		if n, _ := e.store.stored(t, k, id); n.Tier != domain.Active {
			t.Errorf("%s is stored %s after the undo, want active", id, n.Tier)
		}
	}
	// The page hears the nodes come back at a seq past the archive's: their
	// versions' seqs are older than what it holds, and would be dropped.
	evs = e.evs(ports.EventCompacted)
	if len(evs) != 2 || evs[1].Compaction == nil || len(evs[1].Compaction.Restored) != 3 || evs[1].Seq <= res.LastSeq {
		t.Fatalf("events %+v, want a second compacted event restoring 3 nodes past seq %d", evs, res.LastSeq)
	}
}

// Bad input names the field and the limit, and changes nothing.
func TestArchiveNodesRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	sid := e.session(projA)
	e.put(project(sid), "a", "about a")
	many := make([]string, compaction.MaxArchiveIDs+1)
	for i := range many {
		many[i] = "a"
	}
	for _, tc := range []struct {
		name  string
		sc    Scope
		ids   []string
		kind  domain.Kind
		field string
		says  string
	}{
		{"unknown id", project(sid), []string{"a", "ghost"}, domain.KindNotFound, "ids", `"ghost"`},
		{"too many", project(sid), many, domain.KindInvalid, "ids", "over the limit of 500"},
		{"none", project(sid), nil, domain.KindInvalid, "ids", "from 1 to 500"},
		{"no level", Scope{SessionID: sid}, []string{"a"}, domain.KindInvalid, "level", "required"},
		{"wrong level", Scope{SessionID: sid, Level: "team"}, []string{"a"}, domain.KindInvalid, "level", "not one of user, project"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			commits := e.store.count(domain.ProjectGraph(projA))
			_, err := e.svc.ArchiveNodes(e.ctx, tc.sc, tc.ids)
			de := wantKind(t, err, tc.kind, tc.field)
			if !strings.Contains(de.Error(), tc.says) {
				t.Errorf("error %q does not say %q", de.Error(), tc.says)
			}
			if n, _ := e.store.stored(t, domain.ProjectGraph(projA), "a"); n.Tier != domain.Active {
				t.Errorf("a is %s after a refused archive", n.Tier)
			}
			if got := e.store.count(domain.ProjectGraph(projA)) - commits; got != 0 {
				t.Errorf("a refused archive took %d commits", got)
			}
		})
	}
}
