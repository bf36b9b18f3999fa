package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.ProjectRemover = (*Store)(nil)

// RemoveProject removes the stored graph of the project keyed path (`kg
// project rm`) in one transaction under the graph's lock: its row goes, and
// its items and change log with it. Its position + 1 and its seq are kept
// in removed_graphs, so that a later graph of the project continues the
// positions and the seqs, and every server holding a copy of the removed one finds its
// position missing from the change log and loads the graph afresh
// (docs/design/team.md#removing-a-project); a notification tells them at
// once, naming the project and what it held, so that they publish its
// project_removed event (ports.Watcher.Removed).
func (s *Store) RemoveProject(ctx context.Context, path string) error {
	key := domain.ProjectGraph(path)
	if err := validKey(key); err != nil {
		return err
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var id, rev, seq int64
		err := tx.QueryRow(ctx, `SELECT id, rev, seq FROM graphs WHERE level = 'project' AND owner = '' AND project_key = $1 FOR UPDATE`,
			path).Scan(&id, &rev, &seq)
		if errors.Is(err, pgx.ErrNoRows) {
			return &domain.Error{Kind: domain.KindNotFound, Field: "project", Msg: "no memory is stored for project " + path}
		}
		if err != nil {
			return err
		}
		var nodes, edges int
		err = tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM nodes WHERE graph_id = $1), (SELECT count(*) FROM edges WHERE graph_id = $1)`,
			id).Scan(&nodes, &edges)
		if err != nil {
			return err
		}
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO removed_graphs (project_key, rev, seq) VALUES ($1, $2, $3)
			ON CONFLICT (project_key) DO UPDATE SET rev = EXCLUDED.rev, seq = EXCLUDED.seq, removed_at = now()`, path, rev+1, seq)
		b.Queue(`DELETE FROM graphs WHERE id = $1`, id)
		b.Queue(`SELECT pg_notify($1, $2)`, notifyChannel, notification{Graph: id, Rev: uint64(rev + 1), Instance: s.instance,
			At: time.Now().UnixMicro(), Removed: &removedNote{Project: path, Nodes: nodes, Edges: edges}}.encode())
		return tx.SendBatch(ctx, b).Close()
	})
	if domain.KindOf(err) == domain.KindNotFound {
		return err
	}
	if err != nil {
		return unavailable(err, "remove the %s graph from the database", key)
	}
	return nil
}
