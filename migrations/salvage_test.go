package migrations_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kg-memory/kg/adapters/storage/memory"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/migrations"
	"github.com/kg-memory/kg/ports"
	"github.com/kg-memory/kg/ports/porttest"
)

// damagedSource is a backend whose graphs of damaged, and perhaps its
// sessions, fail to load as a damaged page of kg.db makes them.
type damagedSource struct {
	*memory.Store
	damaged  map[domain.GraphKey]bool
	sessions bool
}

func (d damagedSource) Load(ctx context.Context, key domain.GraphKey) (domain.GraphData, error) {
	if d.damaged[key] {
		return domain.GraphData{}, fmt.Errorf("the pages of %s: %w", key, ports.ErrDamaged)
	}
	return d.Store.Load(ctx, key)
}

func (d damagedSource) LoadSessions(ctx context.Context) (map[string]ports.Session, error) {
	if d.sessions {
		return nil, fmt.Errorf("the sessions' pages: %w", ports.ErrDamaged)
	}
	return d.Store.LoadSessions(ctx)
}

// Copy salvages: a graph (or the sessions) the source holds damaged is
// named in NotCopied with why, and every other graph is copied whole.
// (kg migrate --to json on a kg.db with one damaged page used to fail and
// copy nothing.)
func TestCopySalvagesWhatItCanRead(t *testing.T) {
	ctx := context.Background()
	src := damagedSource{Store: memory.New(), damaged: map[domain.GraphKey]bool{domain.ProjectGraph("/work/lost"): true}, sessions: true}
	for _, p := range []string{"/work/lost", "/work/kept"} {
		commitAll(t, src, domain.ProjectGraph(p), porttest.RichData(p))
	}
	commitAll(t, src, domain.UserGraph, porttest.RichData(""))
	dst := memory.New()
	res, err := migrations.Copy(ctx, src, dst, migrations.Options{})
	if err != nil {
		t.Fatalf("Copy: %v", err)
	}
	if len(res.NotCopied) != 2 || !strings.HasPrefix(res.NotCopied[0], "sessions: ") || !strings.HasPrefix(res.NotCopied[1], "project:/work/lost: ") {
		t.Errorf("NotCopied = %q, want the sessions and /work/lost", res.NotCopied)
	}
	for _, k := range []domain.GraphKey{domain.UserGraph, domain.ProjectGraph("/work/kept")} {
		want, _ := src.Store.Load(ctx, k)
		got, _ := dst.Load(ctx, k)
		if len(got.Nodes) == 0 || len(got.Nodes) != len(want.Nodes) {
			t.Errorf("%s: %d nodes copied, want %d", k, len(got.Nodes), len(want.Nodes))
		}
	}
	if got, _ := dst.Load(ctx, domain.ProjectGraph("/work/lost")); !got.Empty() {
		t.Errorf("the damaged graph was copied: %d nodes", len(got.Nodes))
	}
}
