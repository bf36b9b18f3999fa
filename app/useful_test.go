package app

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/recall"
)

type recordedUses struct {
	calls []string
	err   error
}

func (r *recordedUses) CountUses(_ context.Context, session string, key domain.GraphKey, ids []string) error {
	r.calls = append(r.calls, session+" "+key.String()+" "+strings.Join(ids, ","))
	return r.err
}

func TestMarkUseful(t *testing.T) {
	e := newEnv(t)
	uses := &recordedUses{}
	e.svc.uses = uses
	s := e.session(projA)
	e.put(project(s), "a", "alpha")
	e.put(project(s), "b", "beta")
	e.put(user(s), "b", "user beta")
	e.put(user(s), "c", "gamma")
	seq := e.storedSeq(domain.ProjectGraph(projA))
	r, err := e.svc.MarkUseful(e.ctx, s, []string{"a", "b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Marked) != 3 || len(r.Already) != 0 {
		t.Errorf("marked %v already %v; want a, and b in both graphs", r.Marked, r.Already)
	}
	r, err = e.svc.MarkUseful(e.ctx, s, []string{"c", "a"})
	if err != nil || len(r.Marked) != 1 || r.Marked[0].ID != "c" || len(r.Already) != 1 || r.Already[0].ID != "a" {
		t.Errorf("second call: %+v, %v; want c marked, a already", r, err)
	}
	n, _ := e.store.stored(t, domain.ProjectGraph(projA), "a")
	if m := recall.UsefulMarks(&n); len(m) != 1 || n.Version.V != 1 {
		t.Errorf("stored a: marks %v v%d; want one mark, no new version", m, n.Version.V)
	}
	if got := e.storedSeq(domain.ProjectGraph(projA)); got != seq {
		t.Errorf("seq moved from %d to %d: a mark takes no seq", seq, got)
	}
	want := []string{s + " " + domain.UserGraph.String() + " b", s + " " + domain.ProjectGraph(projA).String() + " a,b", s + " " + domain.UserGraph.String() + " c"}
	if fmt.Sprint(uses.calls) != fmt.Sprint(want) {
		t.Errorf("uses counted %v, want %v", uses.calls, want)
	}

	_, err = e.svc.MarkUseful(e.ctx, s, []string{"a", "nope", "zilch"})
	if de := wantKind(t, err, domain.KindNotFound, "ids"); !strings.Contains(de.Error(), `"nope", "zilch"`) {
		t.Errorf("error %q does not name the unknown ids", de)
	}
	_, err = e.svc.MarkUseful(e.ctx, s, []string{"1", "2", "3", "4", "5", "6"})
	wantKind(t, err, domain.KindInvalid, "ids")
	_, err = e.svc.MarkUseful(e.ctx, s, nil)
	wantKind(t, err, domain.KindInvalid, "ids")
	_, err = e.svc.MarkUseful(e.ctx, "", []string{"a"})
	wantKind(t, err, domain.KindInvalid, "session_id")
	_, err = e.svc.MarkUseful(e.ctx, "0000000000000000", []string{"a"})
	wantKind(t, err, domain.KindNotFound, "")
}

func TestMarkUsefulAllowanceIsTwentyPerSession(t *testing.T) {
	e := newEnv(t)
	s := e.session(projA)
	for i := range 25 {
		e.put(project(s), fmt.Sprintf("n%02d", i), "gist")
	}
	for i := 0; i < 20; i += 5 {
		if _, err := e.svc.MarkUseful(e.ctx, s, []string{fmt.Sprintf("n%02d", i), fmt.Sprintf("n%02d", i+1), fmt.Sprintf("n%02d", i+2),
			fmt.Sprintf("n%02d", i+3), fmt.Sprintf("n%02d", i+4)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.svc.MarkUseful(e.ctx, s, []string{"n20"})
	wantKind(t, err, domain.KindInvalid, "ids")
	if n, _ := e.store.stored(t, domain.ProjectGraph(projA), "n20"); len(recall.UsefulMarks(&n)) != 0 {
		t.Error("the 21st mark was stored")
	}
	// Another session has its own allowance; the marks survive a restart.
	e.restart()
	if r, err := e.svc.MarkUseful(e.ctx, e.session(projA), []string{"n20", "n00"}); err != nil || len(r.Marked) != 2 {
		t.Errorf("another session: %+v, %v", r, err)
	}
	if r, err := e.svc.MarkUseful(e.ctx, s, []string{"n00"}); err != nil || len(r.Already) != 1 {
		t.Errorf("after restart the session forgot its marks: %+v, %v", r, err)
	}
}

func (e *env) storedSeq(k domain.GraphKey) uint64 {
	e.t.Helper()
	d, err := e.store.Store.Load(e.ctx, k)
	if err != nil {
		e.t.Fatal(err)
	}
	return d.Seq
}
