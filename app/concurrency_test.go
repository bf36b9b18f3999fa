package app

import (
	"fmt"
	"sync"
	"testing"

	"github.com/kg-memory/kg/domain"
)

// TestConcurrentUseAcrossGraphs runs writers, readers, searches, syncs and
// ticks on several graphs at once; under -race it checks the locking, and
// it would hang on a lock-order deadlock.
func TestConcurrentUseAcrossGraphs(t *testing.T) {
	e := newEnv(t)
	projects := []string{projA, projB, "/work/proj-c"}
	sessions := make([]string, len(projects))
	for i, p := range projects {
		sessions[i] = e.session(p)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for i, sid := range sessions {
		wg.Add(4)
		go func() {
			defer wg.Done()
			for j := range 20 {
				sc := project(sid)
				if j%2 == 0 {
					sc = user(sid)
				}
				if _, err := e.svc.PutNode(e.ctx, sc, domain.NodeInput{ID: fmt.Sprintf("n-%d-%d", i, j), Gist: "shared words"}); err != nil {
					errs <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 20 {
				if _, err := e.svc.Search(e.ctx, SearchRequest{Query: "shared words"}); err != nil {
					errs <- err
				}
				if _, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid}); err != nil {
					errs <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			for j := range 20 {
				if _, err := e.svc.Sync(e.ctx, sid); err != nil {
					errs <- err
				}
				// Reads by id of nodes that may or may not exist yet.
				_, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid, IDs: []string{fmt.Sprintf("n-%d-%d", i, j)}})
				if err != nil && domain.KindOf(err) != domain.KindNotFound {
					errs <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 5 {
				e.svc.maint.Tick(e.ctx)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	hs, err := e.svc.Search(e.ctx, SearchRequest{Query: "shared", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(hs.Hits) != 60 {
		t.Errorf("%d nodes found, want 60", len(hs.Hits))
	}
}
