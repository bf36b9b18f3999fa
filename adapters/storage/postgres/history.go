package postgres

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/changes"
	"github.com/kg-memory/kg/ports"
)

var _ ports.HistoryRepository = (*Store)(nil)

// The change log of team mode is the changes table
// (docs/design/trust.md#team-mode): each row holds a batch's items before
// and after and its writes (session, principal, seqs, and the op of an
// undo or an import with replace), written in the batch's transaction, so
// no second log is kept. History builds the entries from those rows
// (changes.BatchEntries).

// CommitLogged implements ports.HistoryRepository: Commit, with the writes
// of the batch's changes row taken from h (one per entry, its seq, session,
// principal and op), so that the entries History builds from the row are
// h's.
func (s *Store) CommitLogged(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet, h domain.HistoryBatch) error {
	var rec ports.BatchRecord
	first := h.SeqBefore + 1
	for _, e := range h.Entries {
		wr := ports.WriteRecord{Session: e.Session, Principal: e.Principal, FirstSeq: e.Seq, LastSeq: e.Seq}
		// A move keeps its op, so that a read's promotion (a new version
		// with the same content) is built back as a move, not a put; an
		// archive keeps its own, so that an undo of its session reverses it.
		if e.Op == domain.HistoryUndo || e.Op == domain.HistoryImportReplace || e.Op == domain.HistoryMove || e.Op == domain.HistoryArchive {
			wr.Op = e.Op
		}
		if e.Graph {
			wr.FirstSeq = first
		}
		first = e.Seq + 1
		rec.Writes = append(rec.Writes, wr)
	}
	return s.commitOnlyCopy(ctx, key, g, cs, rec)
}

// History implements ports.HistoryRepository: the graph's changes rows,
// newest first, made into entries until the query has what it wants.
func (s *Store) History(ctx context.Context, key domain.GraphKey, q ports.HistoryQuery) ([]domain.HistoryEntry, error) {
	level, owner, project := keyCols(key)
	// $5 is cast: compared with the literal 0 alone, PostgreSQL would take
	// it for an int4, and a before_seq past 2^31 could not be sent.
	sql := `SELECT c.seq_from, c.seq_to, (extract(epoch FROM c.committed_at) * 1000000)::bigint, c.writes, c.items
		FROM changes c JOIN graphs g ON c.graph_id = g.id
		WHERE g.level = $1 AND g.owner = $2 AND g.project_key = $3 AND c.seq_to > $4 AND ($5::bigint = 0 OR c.seq_from < $5::bigint)
			AND ($6 = '' OR $6 = ANY(c.sessions))
		ORDER BY c.rev DESC`
	rows, err := s.pool.Query(ctx, sql, level, owner, project, int64(q.SinceSeq), int64(q.BeforeSeq), q.Session)
	if err != nil {
		return nil, unavailable(err, "read the history of the %s graph", key)
	}
	defer rows.Close()
	col := ports.NewHistoryCollector(q)
	for rows.Next() {
		var from, to, at int64
		var writes, items []byte
		if err := rows.Scan(&from, &to, &at, &writes, &items); err != nil {
			return nil, unavailable(err, "read the history of the %s graph", key)
		}
		b, err := historyBatch(uint64(from), uint64(to), domain.Micros(at), writes, items)
		if err != nil {
			return nil, unavailable(damagedf("change log batch up to seq %d: %v", to, err), "read the history of the %s graph", key)
		}
		if !col.Add(b) {
			break
		}
	}
	if err := rows.Err(); err != nil && !errors.Is(err, context.Canceled) {
		return nil, unavailable(err, "read the history of the %s graph", key)
	}
	return col.Entries(), nil
}

func historyBatch(from, to uint64, at domain.Micros, writes, items []byte) (domain.HistoryBatch, error) {
	var ws []writeRec
	if err := json.Unmarshal(writes, &ws); err != nil {
		return domain.HistoryBatch{}, err
	}
	var ir itemsRec
	if err := json.Unmarshal(items, &ir); err != nil {
		return domain.HistoryBatch{}, err
	}
	after, err := ir.delta(to)
	if err != nil {
		return domain.HistoryBatch{}, err
	}
	before, err := ir.before()
	if err != nil {
		return domain.HistoryBatch{}, err
	}
	writers := make([]changes.Writer, len(ws))
	for i, w := range ws {
		writers[i] = changes.Writer{Session: w.Session, Principal: w.Principal, Op: domain.HistoryOp(w.Op), FirstSeq: w.FirstSeq, LastSeq: w.LastSeq}
	}
	return domain.HistoryBatch{SeqBefore: from - 1, SeqAfter: to, Entries: changes.BatchEntries(before, after, writers, at)}, nil
}

// PruneHistory implements ports.HistoryRepository: the batches committed
// before cutoff go, but the graph's last Options.ChangesKept, which other
// servers may still need to catch up (docs/design/team.md#pruning-the-change-log).
// The server holding a graph's maintenance lease also prunes by
// Options.ChangesRetention, which kg sets from KG_HISTORY_DAYS.
func (s *Store) PruneHistory(ctx context.Context, key domain.GraphKey, cutoff domain.Micros) error {
	level, owner, project := keyCols(key)
	_, err := s.pool.Exec(ctx, `DELETE FROM changes c USING graphs g
		WHERE g.level = $1 AND g.owner = $2 AND g.project_key = $3 AND c.graph_id = g.id
			AND c.rev <= g.rev - $4 AND c.committed_at < to_timestamp($5 / 1000000.0)`,
		level, owner, project, s.opt.ChangesKept, int64(cutoff))
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return unavailable(err, "prune the history of the %s graph", key)
	}
	return nil
}
