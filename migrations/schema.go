package migrations

import (
	"context"
	"fmt"

	"github.com/kg-memory/kg/domain"
)

// UpgradeSchema rewrites every stored graph of b that is older than
// domain.SchemaVersion (the replaced server's schema 1) as the current
// schema: it loads the graph, upgrades it in memory with domain.Restore
// (version 1 for unversioned items, seqs in timestamp order) and commits
// every item. Graphs already at the current schema, and graphs never
// stored, are left alone, so a second run writes nothing.
//
// Reading schema 1 is the backend's job (jsonfile accepts it); this step
// only makes the upgrade permanent instead of waiting for each graph's next
// write.
func UpgradeSchema(ctx context.Context, b Backend, opt Options) (Result, error) {
	log := opt.log()
	var res Result
	sessions, err := b.LoadSessions(ctx)
	if err != nil {
		return res, err
	}
	keys, err := storedKeys(ctx, b, sessions)
	if err != nil {
		return res, err
	}
	defer opt.progress(len(keys), len(keys))
	for i, key := range keys {
		opt.progress(i, len(keys))
		d, err := b.Load(ctx, key)
		if err != nil {
			return res, err
		}
		if d.Schema >= domain.SchemaVersion || d.Empty() {
			res.unchanged(key.String())
			continue
		}
		g, notes := domain.Restore(key, d, domain.RestoreOptions{MinSeq: minSeq(sessions, key)})
		res.note(log, key.String(), notes...)
		if err := commit(ctx, b, key, g, g.Everything(), fmt.Sprintf("schema %d → %d", d.Schema, domain.SchemaVersion), nil); err != nil {
			return res, err
		}
		log.Info("migrations: graph upgraded", "graph", key.String(), "from_schema", d.Schema, "to_schema", domain.SchemaVersion)
		res.changed(key.String())
	}
	return res, nil
}
