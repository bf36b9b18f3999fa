package bolt_test

import (
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/kg-memory/kg/domain"
)

// TestLargeCommitCopiesItsItemsOnce checks what one large transaction (an
// import's, a migration's) allocates. bbolt copies every key and value of
// the transaction from the old mapping to the heap each time it maps the
// growing file again (node.dereference): with the mapping grown by doubling
// from 32 KiB, a commit of 500,000 nodes made that copy about 15 times,
// 2.3 GB allocated, and the save's peak doubled. The file is mapped large
// enough from the start (store.go), so the items are copied once, into the
// pages written (docs/design/storage.md#bolt-mapping).
func TestLargeCommitCopiesItsItemsOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("commits 50,000 nodes")
	}
	ctx := context.Background()
	s := open(t, t.TempDir())
	g, _ := domain.Restore(domain.UserGraph, bigGraph(50_000), domain.RestoreOptions{})
	cs := g.Everything()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := s.Commit(ctx, domain.UserGraph, g, cs); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	size := uint64(fi.Size())
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("commit of 50,000 nodes allocated %d MB for a %d MB file", got>>20, size>>20)
	// Encoding each node, bbolt's nodes and the pages written: about 3 ×
	// the file; copied at each mapping, 12 ×.
	if got > 5*size {
		t.Errorf("a commit of 50,000 nodes allocated %d MB, more than 5 × the %d MB it wrote", got>>20, size>>20)
	}
}
