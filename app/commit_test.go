package app

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// holdCommits makes the next commit wait at a gate, and returns a function
// that waits until that commit is in flight and then until queued writes
// are waiting behind it, and one that opens the gate.
func holdCommits(e *env) (inFlight func(), waitQueued func(key domain.GraphKey, n int), release func()) {
	gate, entered := make(chan struct{}), make(chan struct{}, 1000)
	e.store.mu.Lock()
	e.store.gate, e.store.entered = gate, entered
	e.store.mu.Unlock()
	inFlight = func() { <-entered }
	waitQueued = func(key domain.GraphKey, n int) {
		ge, err := e.svc.store.Get(e.ctx, key)
		if err != nil {
			e.t.Fatal(err)
		}
		for {
			if ge.Queued() >= n {
				return
			}
			runtime.Gosched()
		}
	}
	release = func() { close(gate) }
	return
}

func TestGroupCommit(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put(user(sid), "first", "loads the graph")
	before := e.store.count(domain.UserGraph)
	inFlight, waitQueued, release := holdCommits(e)

	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	put := func(i int) {
		defer wg.Done()
		_, errs[i] = e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: fmt.Sprintf("n%02d", i), Gist: "concurrent"})
	}
	wg.Add(1)
	go put(0)
	inFlight()
	for i := 1; i < n; i++ {
		wg.Add(1)
		go put(i)
	}
	waitQueued(domain.UserGraph, n-1)
	release()
	wg.Wait()

	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	if got := e.store.count(domain.UserGraph) - before; got != 2 {
		t.Errorf("%d writes took %d commits, want 2 (one in flight, one batch)", n, got)
	}
	for i := range n {
		if _, ok := e.store.stored(t, domain.UserGraph, fmt.Sprintf("n%02d", i)); !ok {
			t.Errorf("n%02d acknowledged but not stored", i)
		}
	}
	if got := len(e.evs(ports.EventNodeUpdated)); got != n+1 {
		t.Errorf("%d node_updated events, want %d", got, n+1)
	}
}

func TestBatchMemberFailsAlone(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put(user(sid), "first", "loads the graph")
	inFlight, waitQueued, release := holdCommits(e)

	zero := uint64(0)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, errs[0] = e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "first", Gist: "update"})
	}()
	inFlight()
	for i := 1; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "create-only", Gist: "mine", ExpectedVersion: &zero})
		}()
	}
	waitQueued(domain.UserGraph, 2)
	release()
	wg.Wait()
	if errs[0] != nil {
		t.Fatal(errs[0])
	}
	ok, conflict := 0, 0
	for _, err := range errs[1:] {
		switch domain.KindOf(err) {
		case domain.KindConflict:
			conflict++
		default:
			if err == nil {
				ok++
			} else {
				t.Errorf("unexpected error %v", err)
			}
		}
	}
	if ok != 1 || conflict != 1 {
		t.Errorf("create-only twice in one batch: %d saved, %d conflicts; want 1 and 1", ok, conflict)
	}
}

func TestFailedSaveFailsTheWholeBatchAndRecovers(t *testing.T) {
	e := newEnv(t)
	sid := e.session("")
	e.put(user(sid), "first", "loads the graph")
	inFlight, waitQueued, release := holdCommits(e)

	const n = 5
	var r0 PutNodeResult
	var err0 error
	errs := make([]error, n)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r0, err0 = e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: "ok", Gist: "saved before the fault"})
	}()
	inFlight()
	// The commit in flight has passed the fault check; the next one fails.
	e.store.failCommits(domain.UserGraph, errors.New("disk full"))
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.svc.PutNode(e.ctx, user(sid), domain.NodeInput{ID: fmt.Sprintf("lost%d", i), Gist: "never saved"})
		}()
	}
	waitQueued(domain.UserGraph, n)
	e.events.reset()
	release()
	wg.Wait()

	if err0 != nil {
		t.Fatal(err0)
	}
	for i, err := range errs {
		wantKind(t, err, domain.KindUnavailable, "")
		if _, ok := e.store.stored(t, domain.UserGraph, fmt.Sprintf("lost%d", i)); ok {
			t.Errorf("lost%d stored", i)
		}
	}
	full, err := e.svc.Read(e.ctx, ReadRequest{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "active after rollback", ids(full.Full.User.View.Active), []string{"first", "ok"})
	if got := len(e.evs(ports.EventNodeUpdated)); got != 1 {
		t.Errorf("%d node_updated events, want 1 (only the saved write)", got)
	}

	e.store.failCommits(domain.UserGraph, nil)
	r := e.put(user(sid), "after", "the next write tries again")
	if _, ok := e.store.stored(t, domain.UserGraph, "after"); !ok {
		t.Fatal("the write after the fault was not stored")
	}
	if r.Node.Version.Seq < r0.Node.Version.Seq+n+1 {
		t.Errorf("seq %d after a failed batch of %d following seq %d: seqs were reused", r.Node.Version.Seq, n, r0.Node.Version.Seq)
	}
	if _, ok := e.store.stored(t, domain.UserGraph, "ok"); !ok {
		t.Error("the write acknowledged before the fault was lost")
	}
}
