package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kg-memory/kg/adapters/storage/record"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

// Load reads every item of the graph (GraphRepository.Load).
func (s *Store) Load(ctx context.Context, key domain.GraphKey) (domain.GraphData, error) {
	d, _, stored, err := s.loadAt(ctx, key)
	if !stored {
		d.Seq = 0 // a removed graph is empty, as the contract has it
	}
	return d, err
}

// LoadAt reads every item of the graph in one snapshot, with the position
// of the change log that snapshot is at. An item that does not decode makes
// this graph unavailable, naming the item; every other graph stays readable.
// A project graph removed and not stored since has no items and the seq the
// removed graph had reached, which the graph stored next continues
// (ports.SharedGraphRepository.LoadAt).
func (s *Store) LoadAt(ctx context.Context, key domain.GraphKey) (domain.GraphData, uint64, error) {
	d, rev, _, err := s.loadAt(ctx, key)
	return d, rev, err
}

// loadAt is LoadAt that also reports whether the graph is stored.
func (s *Store) loadAt(ctx context.Context, key domain.GraphKey) (domain.GraphData, uint64, bool, error) {
	if err := validKey(key); err != nil {
		return domain.GraphData{}, 0, false, err
	}
	var d domain.GraphData
	var rev uint64
	var stored bool
	// One snapshot: the items and the position agree.
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		d, rev, stored, err = s.readGraph(ctx, tx, key)
		return err
	})
	if err != nil {
		s.log.Error("postgres: graph cannot be loaded", "graph", key.String(), "err", err)
		return domain.GraphData{}, 0, false, unavailable(err, "the %s graph cannot be loaded from the database", key)
	}
	return d, rev, stored, nil
}

func (s *Store) readGraph(ctx context.Context, tx pgx.Tx, key domain.GraphKey) (domain.GraphData, uint64, bool, error) {
	level, owner, project := keyCols(key)
	d := domain.GraphData{ProjectPath: key.Project}
	var id, seq, rev int64
	var meta []byte
	err := tx.QueryRow(ctx, `SELECT id, seq, rev, schema, project_path, meta FROM graphs
		WHERE level = $1 AND owner = $2 AND project_key = $3`, level, owner, project).
		Scan(&id, &seq, &rev, &d.Schema, &d.ProjectPath, &meta)
	if errors.Is(err, pgx.ErrNoRows) {
		// Never stored, or removed: at the position and seq a graph
		// stored later starts from.
		floor, err := removedRev(ctx, tx, key)
		if err == nil && floor > 0 {
			err = tx.QueryRow(ctx, "SELECT seq FROM removed_graphs WHERE project_key = $1", key.Project).Scan(&d.Seq)
		}
		return d, floor, false, err
	}
	if err != nil {
		return d, 0, false, err
	}
	s.rememberKey(id, key)
	d.Seq = uint64(seq)
	d.NodeTombstones = map[string]domain.Tombstone{}
	d.EdgeTombstones = map[domain.EdgeKey]domain.Tombstone{}
	d.Progress = map[string]domain.RawJSON{}
	d.Meta = map[string]domain.RawJSON{}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(meta, &m); err != nil {
		return d, 0, false, damagedf("graph metadata: %v", err)
	}
	for k, v := range m {
		d.Meta[k] = domain.RawJSON(v)
	}
	for _, read := range [...]func(context.Context, pgx.Tx, int64, *domain.GraphData) error{
		readNodes, readEdges, readNodeTombstones, readEdgeTombstones, readProgress,
	} {
		if err := read(ctx, tx, id, &d); err != nil {
			return d, 0, false, err
		}
	}
	return d, uint64(rev), true, nil
}

// readNodes reads the nodes of the graph stored as id into d.
func readNodes(ctx context.Context, tx pgx.Tx, id int64, d *domain.GraphData) error {
	var count int
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM nodes WHERE graph_id = $1", id).Scan(&count); err != nil {
		return err
	}
	d.Nodes = make([]domain.Node, 0, count)
	var body []byte
	var itemID string
	_, err := pgx.ForEachRow(mustQuery(ctx, tx, "SELECT id, body FROM nodes WHERE graph_id = $1", id), []any{&itemID, &body}, func() error {
		var r record.Node
		if err := json.Unmarshal(body, &r); err != nil {
			return damagedf("node %q: %v", itemID, err)
		}
		n, err := r.Domain()
		if err != nil {
			return damagedf("node %q: %v", itemID, err)
		}
		d.Nodes = append(d.Nodes, n)
		return nil
	})
	return err
}

func readEdges(ctx context.Context, tx pgx.Tx, id int64, d *domain.GraphData) error {
	var body []byte
	_, err := pgx.ForEachRow(mustQuery(ctx, tx, "SELECT body FROM edges WHERE graph_id = $1", id), []any{&body}, func() error {
		var r record.Edge
		if err := json.Unmarshal(body, &r); err != nil {
			return damagedf("edge: %v", err)
		}
		d.Edges = append(d.Edges, r.Domain())
		return nil
	})
	return err
}

func readNodeTombstones(ctx context.Context, tx pgx.Tx, id int64, d *domain.GraphData) error {
	var body []byte
	var itemID string
	_, err := pgx.ForEachRow(mustQuery(ctx, tx, "SELECT id, body FROM node_tombstones WHERE graph_id = $1", id), []any{&itemID, &body}, func() error {
		var r record.Tombstone
		if err := json.Unmarshal(body, &r); err != nil {
			return damagedf("node tombstone %q: %v", itemID, err)
		}
		d.NodeTombstones[itemID] = r.Domain()
		return nil
	})
	return err
}

func readEdgeTombstones(ctx context.Context, tx pgx.Tx, id int64, d *domain.GraphData) error {
	var body []byte
	var from, to, rel string
	_, err := pgx.ForEachRow(mustQuery(ctx, tx, "SELECT from_end, to_end, rel, body FROM edge_tombstones WHERE graph_id = $1", id),
		[]any{&from, &to, &rel, &body}, func() error {
			var r record.Tombstone
			if err := json.Unmarshal(body, &r); err != nil {
				return damagedf("edge tombstone %s --%s--> %s: %v", from, rel, to, err)
			}
			d.EdgeTombstones[domain.EdgeKey{From: from, To: to, Rel: rel}] = r.Domain()
			return nil
		})
	return err
}

func readProgress(ctx context.Context, tx pgx.Tx, id int64, d *domain.GraphData) error {
	var body []byte
	var task string
	_, err := pgx.ForEachRow(mustQuery(ctx, tx, "SELECT task, state FROM progress WHERE graph_id = $1", id), []any{&task, &body}, func() error {
		d.Progress[task] = domain.RawJSON(slices.Clone(body))
		return nil
	})
	return err
}

// rowsOrErr lets pgx.ForEachRow report a query's error as its own.
type rowsOrErr struct {
	pgx.Rows
	err error
}

func (r rowsOrErr) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.Rows.Err()
}

func (r rowsOrErr) Next() bool { return r.err == nil && r.Rows.Next() }

func (r rowsOrErr) Close() {
	if r.Rows != nil {
		r.Rows.Close()
	}
}

func mustQuery(ctx context.Context, tx pgx.Tx, sql string, args ...any) pgx.Rows {
	rows, err := tx.Query(ctx, sql, args...)
	return rowsOrErr{Rows: rows, err: err}
}

// List returns every stored project graph with its slug, sorted by slug.
func (s *Store) List(ctx context.Context) ([]ports.StoredGraph, error) {
	// The summary's fields are taken apart by the database: decoding a
	// jsonb per row here cost half of a thousand projects' listing.
	rows, err := s.pool.Query(ctx, `SELECT id, project_key, slug, rev, summary IS NOT NULL,
			coalesce((summary->>'active')::bigint, 0), coalesce((summary->>'archived')::bigint, 0),
			coalesce((summary->>'orphaned')::bigint, 0), coalesce((summary->>'gist_cost')::bigint, 0),
			coalesce((summary->>'notes_cost')::bigint, 0), coalesce((summary->>'edges')::bigint, 0),
			coalesce((summary->>'shown_edges')::bigint, 0), coalesce((summary->>'last_change')::bigint, 0)
		FROM graphs WHERE level = 'project' ORDER BY slug, project_key`)
	if err != nil {
		return nil, unavailable(err, "list the graphs in the database")
	}
	var (
		out        []ports.StoredGraph
		missing    []unsummarised
		id, rev    int64
		key, slug  string
		summarised bool
		r          summaryRec
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &key, &slug, &rev, &summarised, &r.Active, &r.Archived, &r.Orphaned,
		&r.GistCost, &r.NotesCost, &r.Edges, &r.ShownEdges, &r.LastChange}, func() error {
		sg := ports.StoredGraph{Key: domain.ProjectGraph(key), Slug: slug}
		if summarised {
			sg.Summary = r.summary()
		} else {
			missing = append(missing, unsummarised{index: len(out), id: id, rev: rev})
		}
		out = append(out, sg)
		s.rememberKey(id, sg.Key)
		return nil
	})
	if err != nil {
		return nil, unavailable(err, "list the graphs in the database")
	}
	for _, m := range missing {
		out[m.index].Summary = s.summarise(ctx, out[m.index].Key, m)
	}
	return out, nil
}

// unsummarised is a listed graph with no summary yet: stored before schema
// 5 and not committed to since.
type unsummarised struct {
	index   int // in List's result
	id, rev int64
}

// summarise works out the summary of a graph stored before schema 5 from
// the graph itself and stores it, unless a commit changed the graph
// meanwhile (that commit wrote its own). Each such graph is read once, by
// the first listing after the upgrade. A graph that cannot be read is
// listed without a summary: the app reads it again, and says why.
func (s *Store) summarise(ctx context.Context, key domain.GraphKey, m unsummarised) *ports.GraphSummary {
	data, err := s.Load(ctx, key)
	if err != nil {
		return nil
	}
	g, _ := domain.Restore(key, data, domain.RestoreOptions{})
	rec := summaryRecOf(g.Stats(), data.LastChange())
	body, err := json.Marshal(rec)
	if err != nil {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `UPDATE graphs SET summary = $3 WHERE id = $1 AND rev = $2 AND summary IS NULL`,
		m.id, m.rev, body); err != nil {
		s.log.Warn("postgres: a graph's summary could not be stored; it is worked out again at the next listing",
			"graph", key.String(), "err", err)
	}
	return rec.summary()
}

// Commit durably stores the changes cs names (GraphRepository.Commit): one
// transaction under the graph's lock, recorded in the change log like any
// batch so that other servers see it. Commit is for a caller that holds
// the only copy of the graph it writes (a migration, the contract suite):
// when another server committed to the graph since g was loaded it refuses,
// rather than overwrite what it never saw. Servers write through
// BeginWrite.
func (s *Store) Commit(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet) error {
	return s.commitOnlyCopy(ctx, key, g, cs, ports.BatchRecord{})
}

// commitOnlyCopy commits cs from g with rec as its changes row, refusing
// when another server committed to the graph since g was loaded.
func (s *Store) commitOnlyCopy(ctx context.Context, key domain.GraphKey, g *domain.Graph, cs domain.ChangeSet, rec ports.BatchRecord) error {
	if cs.Empty() {
		return nil
	}
	w, err := s.begin(ctx, key)
	if err != nil {
		return err
	}
	if w.seq > g.DurableSeq() {
		w.Abort(ctx)
		return domain.Unavailable(nil, "the %s graph was changed by another server (its seq is %d, this copy's %d); load it again", key, w.seq, g.DurableSeq())
	}
	_, err = w.Commit(ctx, g, cs, rec)
	return err
}

// BeginWrite locks the graph's row and reads what was committed after at
// (ports.SharedGraphRepository).
func (s *Store) BeginWrite(ctx context.Context, key domain.GraphKey, at uint64) (ports.GraphWrite, []ports.CommittedBatch, error) {
	w, err := s.begin(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	if w.rev < at {
		// The graph was removed (and perhaps stored again) since the
		// copy was loaded: a removal keeps positions rising, so this is
		// a copy of a graph whose log is gone.
		w.Abort(ctx)
		return nil, nil, fmt.Errorf("%w: the graph's position %d is behind the copy's %d", ports.ErrLogGap, w.rev, at)
	}
	if w.rev == at {
		return w, nil, nil
	}
	batches, err := s.since(ctx, w.tx, w.id, at, w.rev)
	if err != nil {
		w.Abort(ctx)
		return nil, nil, err
	}
	return w, batches, nil
}

// write is one batch's transaction, holding the graph's row lock.
type write struct {
	s        *Store
	key      domain.GraphKey
	tx       pgx.Tx
	id       int64
	seq, rev uint64
	// lastChange is the last change the graph's summary held when locked;
	// nil for a graph with no summary yet (new, or stored before schema 5).
	lastChange *int64
	done       bool
}

// begin opens a transaction and locks the graph's row, creating the row of a
// graph never stored (the insert is undone with the transaction when the
// batch stores nothing).
func (s *Store) begin(ctx context.Context, key domain.GraphKey) (*write, error) {
	if err := validKey(key); err != nil {
		return nil, err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, unavailable(err, "begin a write of the %s graph", key)
	}
	w := &write{s: s, key: key, tx: tx}
	start := time.Now()
	err = w.lock(ctx)
	s.stats.lockWait.Observe(time.Since(start).Seconds())
	if err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return nil, unavailable(err, "lock the %s graph", key)
	}
	s.rememberKey(w.id, key)
	return w, nil
}

func (w *write) lock(ctx context.Context) error {
	level, owner, project := keyCols(w.key)
	var seq, rev int64
	for attempt := 0; attempt < 3; attempt++ {
		err := w.tx.QueryRow(ctx, `SELECT id, seq, rev, (summary->>'last_change')::bigint FROM graphs
			WHERE level = $1 AND owner = $2 AND project_key = $3 FOR UPDATE`,
			level, owner, project).Scan(&w.id, &seq, &rev, &w.lastChange)
		if err == nil {
			w.seq, w.rev = uint64(seq), uint64(rev)
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		// A graph never stored: its row, with the slug it will be
		// listed under. A conflict is either another server creating
		// the same graph (the insert waited for it: select again) or a
		// slug another project holds (then the slug with its hash).
		var slug *string
		if w.key.Level == domain.LevelProject {
			base, hash := record.ProjectSlug(w.key.Project), record.ProjectHash(w.key.Project)
			if attempt > 0 {
				base += "-" + hash
			}
			slug = &base
		}
		// A project removed before continues from its position
		// (docs/design/team.md#removing-a-project).
		err = w.tx.QueryRow(ctx, `INSERT INTO graphs (level, owner, project_key, slug, project_path, rev)
			VALUES ($1, $2, $3, $4, $5, coalesce((SELECT rev FROM removed_graphs WHERE $1 = 'project' AND project_key = $3), 0))
			ON CONFLICT DO NOTHING RETURNING id, rev`, level, owner, project, slug, w.key.Project).Scan(&w.id, &rev)
		if err == nil {
			w.rev = uint64(rev)
			return nil // a new row is this transaction's until it commits
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
	}
	return fmt.Errorf("could not create the row of the %s graph", w.key)
}

// Abort releases the lock, storing nothing.
func (w *write) Abort(ctx context.Context) {
	if w.done {
		return
	}
	w.done = true
	_ = w.tx.Rollback(context.WithoutCancel(ctx))
}

// Commit stores the changes cs names, the graph's new seq and position, the
// change log's row and a notification, in the write's transaction, and
// commits it.
func (w *write) Commit(ctx context.Context, g *domain.Graph, cs domain.ChangeSet, rec ports.BatchRecord) (uint64, error) {
	if w.done {
		return 0, domain.Unavailable(nil, "the write of the %s graph has ended", w.key)
	}
	defer w.Abort(ctx) // after a failure: the transaction goes, and the lock with it
	rev, err := w.store(ctx, g, cs, rec)
	if err != nil {
		return 0, unavailable(err, "save the %s graph to the database", w.key)
	}
	w.done = true
	if err := w.tx.Commit(ctx); err != nil {
		// The outcome may be unknown (the connection died during the
		// commit): the next write's catch-up finds the batch if it
		// was stored (docs/design/team.md#the-write-order).
		return 0, unavailable(err, "commit the %s graph to the database", w.key)
	}
	return rev, nil
}

func (w *write) store(ctx context.Context, g *domain.Graph, cs domain.ChangeSet, rec ports.BatchRecord) (uint64, error) {
	after := itemsNamed(g, cs)
	before := g.PendingBefore()
	items, err := itemsOf(before, after)
	if err != nil {
		return 0, err
	}
	rows, err := rowsOf(g, cs)
	if err != nil {
		return 0, err
	}
	rev := w.rev + 1
	b := &pgx.Batch{}
	rows.queue(b, w.id)
	meta := map[string]json.RawMessage{}
	for _, name := range g.MetaNames() {
		v, _ := g.Meta(name)
		meta[name] = json.RawMessage(v)
	}
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return 0, fmt.Errorf("graph metadata: %w", err)
	}
	summaryJSON, err := json.Marshal(w.summaryAfter(g, after))
	if err != nil {
		return 0, fmt.Errorf("graph summary: %w", err)
	}
	b.Queue(`UPDATE graphs SET seq = $2, rev = $3, schema = $4, project_path = $5, meta = $6, summary = $7 WHERE id = $1`,
		w.id, int64(g.Seq()), int64(rev), domain.SchemaVersion, g.ProjectPath(), metaJSON, summaryJSON)
	writes := make([]writeRec, 0, len(rec.Writes))
	sessions, principals := []string{}, []string{}
	for _, wr := range rec.Writes {
		writes = append(writes, writeRec{Session: wr.Session, Principal: wr.Principal, FirstSeq: wr.FirstSeq, LastSeq: wr.LastSeq, Op: string(wr.Op)})
		if wr.Session != "" && !slices.Contains(sessions, wr.Session) {
			sessions = append(sessions, wr.Session)
		}
		if wr.Principal != "" && !slices.Contains(principals, wr.Principal) {
			principals = append(principals, wr.Principal)
		}
	}
	events := make([]eventRec, 0, len(rec.Events))
	for _, ev := range rec.Events {
		r, err := eventRecOf(ev)
		if err != nil {
			return 0, fmt.Errorf("event %s: %w", ev.Type, err)
		}
		events = append(events, r)
	}
	itemsJSON, err := json.Marshal(items)
	if err != nil {
		return 0, err
	}
	writesJSON, _ := json.Marshal(writes)
	eventsJSON, err := json.Marshal(events)
	if err != nil {
		return 0, err
	}
	b.Queue(`INSERT INTO changes (graph_id, rev, seq_from, seq_to, instance, sessions, principals, writes, items, events)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		w.id, int64(rev), int64(firstSeq(rec.Writes, g.DurableSeq()+1)), int64(g.Seq()), w.s.instance, sessions, principals, writesJSON, itemsJSON, eventsJSON)
	b.Queue(`SELECT pg_notify($1, $2)`, notifyChannel, notification{Graph: w.id, Rev: rev, Instance: w.s.instance,
		At: time.Now().UnixMicro()}.encode())
	if err := w.tx.SendBatch(ctx, b).Close(); err != nil {
		return 0, err
	}
	if err := w.s.injected(); err != nil {
		return 0, err
	}
	return rev, nil
}

// summaryAfter is the graph's summary once the batch is stored: g's counts
// (g holds every batch committed before this one: BeginWrite's caller
// applied them) and the newest change time. A graph without a summary yet
// has its last change worked out from the whole of g, once.
func (w *write) summaryAfter(g *domain.Graph, after domain.Delta) summaryRec {
	last := lastChangeIn(after)
	if w.lastChange != nil {
		last = max(last, domain.Micros(*w.lastChange))
	} else {
		last = max(last, g.Data().LastChange())
	}
	return summaryRecOf(g.Stats(), last)
}

// itemsNamed returns the current value of every item cs names: a caller
// may commit a set other than the graph's pending one (Everything, for a
// copy).
func itemsNamed(g *domain.Graph, cs domain.ChangeSet) domain.Delta {
	out := domain.NewDelta()
	out.Seq = g.Seq()
	for id := range cs.Nodes {
		out.Nodes[id], _ = g.Node(id)
	}
	for k := range cs.Edges {
		out.Edges[k], _ = g.Edge(k)
	}
	for id := range cs.NodeTombstones {
		if t, ok := g.NodeTombstone(id); ok {
			out.NodeTombstones[id] = &t
		} else {
			out.NodeTombstones[id] = nil
		}
	}
	for k := range cs.EdgeTombstones {
		if t, ok := g.EdgeTombstone(k); ok {
			out.EdgeTombstones[k] = &t
		} else {
			out.EdgeTombstones[k] = nil
		}
	}
	for task := range cs.Progress {
		st, ok := g.Progress(task)
		if ok {
			out.Progress[task] = st
		} else {
			out.Progress[task] = nil
		}
	}
	if cs.Meta {
		p := g.ProjectPath()
		out.ProjectPath = &p
	}
	return out
}

// itemRows are the rows one batch puts and deletes, as column arrays, so
// each table takes one statement whatever the batch's size.
type itemRows struct {
	nodeIDs, nodeTiers, nodePrincipals, nodeBodies []string
	nodeV, nodeSeq, nodeTierSeq                    []int64
	delNodes                                       []string

	edgeKeys                                            [][]byte
	edgeFrom, edgeTo, edgeRel, edgePrincipals, edgeBody []string
	edgeV, edgeSeq                                      []int64
	delEdges                                            [][]byte

	ntIDs, ntBodies []string
	ntV, ntSeq      []int64
	delNT           []string

	etKeys                   [][]byte
	etFrom, etTo, etRel, etB []string
	etV, etSeq               []int64
	delET                    [][]byte

	progTasks, progStates []string
	delProg               []string
}

// firstSeq is the first seq the writes took, or dflt when they took none.
func firstSeq(writes []ports.WriteRecord, dflt uint64) uint64 {
	first := uint64(0)
	for _, w := range writes {
		if w.FirstSeq <= w.LastSeq && (first == 0 || w.FirstSeq < first) {
			first = w.FirstSeq
		}
	}
	if first == 0 {
		return dflt
	}
	return first
}

func rowsOf(g *domain.Graph, cs domain.ChangeSet) (*itemRows, error) {
	r := &itemRows{}
	for id := range cs.Nodes {
		n, ok := g.Node(id)
		if !ok {
			r.delNodes = append(r.delNodes, id)
			continue
		}
		rec, err := record.NodeOf(n)
		if err != nil {
			return nil, err
		}
		body, err := json.Marshal(rec)
		if err != nil {
			return nil, fmt.Errorf("node %q: %w", id, err)
		}
		r.nodeIDs = append(r.nodeIDs, id)
		r.nodeV = append(r.nodeV, int64(n.Version.V))
		r.nodeSeq = append(r.nodeSeq, int64(n.Version.Seq))
		r.nodeTiers = append(r.nodeTiers, rec.Tier)
		r.nodeTierSeq = append(r.nodeTierSeq, int64(n.TierSeq))
		r.nodePrincipals = append(r.nodePrincipals, n.Version.Principal)
		r.nodeBodies = append(r.nodeBodies, string(body))
	}
	for k := range cs.Edges {
		e, ok := g.Edge(k)
		if !ok {
			r.delEdges = append(r.delEdges, edgeHash(k))
			continue
		}
		body, err := json.Marshal(record.EdgeOf(e))
		if err != nil {
			return nil, fmt.Errorf("edge %s: %w", k, err)
		}
		r.edgeKeys = append(r.edgeKeys, edgeHash(k))
		r.edgeFrom, r.edgeTo, r.edgeRel = append(r.edgeFrom, k.From), append(r.edgeTo, k.To), append(r.edgeRel, k.Rel)
		r.edgeV, r.edgeSeq = append(r.edgeV, int64(e.Version.V)), append(r.edgeSeq, int64(e.Version.Seq))
		r.edgePrincipals = append(r.edgePrincipals, e.Version.Principal)
		r.edgeBody = append(r.edgeBody, string(body))
	}
	for id := range cs.NodeTombstones {
		t, ok := g.NodeTombstone(id)
		if !ok {
			r.delNT = append(r.delNT, id)
			continue
		}
		body, _ := json.Marshal(record.TombstoneOf(t))
		r.ntIDs, r.ntBodies = append(r.ntIDs, id), append(r.ntBodies, string(body))
		r.ntV, r.ntSeq = append(r.ntV, int64(t.V)), append(r.ntSeq, int64(t.Seq))
	}
	for k := range cs.EdgeTombstones {
		t, ok := g.EdgeTombstone(k)
		if !ok {
			r.delET = append(r.delET, edgeHash(k))
			continue
		}
		body, _ := json.Marshal(record.TombstoneOf(t))
		r.etKeys = append(r.etKeys, edgeHash(k))
		r.etFrom, r.etTo, r.etRel, r.etB = append(r.etFrom, k.From), append(r.etTo, k.To), append(r.etRel, k.Rel), append(r.etB, string(body))
		r.etV, r.etSeq = append(r.etV, int64(t.V)), append(r.etSeq, int64(t.Seq))
	}
	for task := range cs.Progress {
		st, ok := g.Progress(task)
		switch {
		case !ok:
			r.delProg = append(r.delProg, task)
		case !json.Valid(st):
			return nil, fmt.Errorf("progress %q: not valid JSON", task)
		default:
			r.progTasks, r.progStates = append(r.progTasks, task), append(r.progStates, string(st))
		}
	}
	return r, nil
}

// queue adds the batch's statements: for each table, one upsert and one
// delete, skipped when there is nothing to do.
func (r *itemRows) queue(b *pgx.Batch, id int64) {
	if len(r.nodeIDs) > 0 {
		b.Queue(`INSERT INTO nodes (graph_id, id, v, seq, tier, tier_seq, principal, body)
			SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::bigint[], $7::text[], $8::jsonb[])
			ON CONFLICT (graph_id, id) DO UPDATE SET v = EXCLUDED.v, seq = EXCLUDED.seq, tier = EXCLUDED.tier,
				tier_seq = EXCLUDED.tier_seq, body = EXCLUDED.body,
				principal = EXCLUDED.principal`,
			id, r.nodeIDs, r.nodeV, r.nodeSeq, r.nodeTiers, r.nodeTierSeq, r.nodePrincipals, r.nodeBodies)
	}
	if len(r.delNodes) > 0 {
		b.Queue(`DELETE FROM nodes WHERE graph_id = $1 AND id = ANY($2)`, id, r.delNodes)
	}
	if len(r.edgeKeys) > 0 {
		b.Queue(`INSERT INTO edges (graph_id, key, from_end, to_end, rel, v, seq, principal, body)
			SELECT $1, * FROM unnest($2::bytea[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[], $9::jsonb[])
			ON CONFLICT (graph_id, key) DO UPDATE SET v = EXCLUDED.v, seq = EXCLUDED.seq, body = EXCLUDED.body,
				principal = EXCLUDED.principal`,
			id, r.edgeKeys, r.edgeFrom, r.edgeTo, r.edgeRel, r.edgeV, r.edgeSeq, r.edgePrincipals, r.edgeBody)
	}
	if len(r.delEdges) > 0 {
		b.Queue(`DELETE FROM edges WHERE graph_id = $1 AND key = ANY($2)`, id, r.delEdges)
	}
	if len(r.ntIDs) > 0 {
		b.Queue(`INSERT INTO node_tombstones (graph_id, id, v, seq, body)
			SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::jsonb[])
			ON CONFLICT (graph_id, id) DO UPDATE SET v = EXCLUDED.v, seq = EXCLUDED.seq, body = EXCLUDED.body`,
			id, r.ntIDs, r.ntV, r.ntSeq, r.ntBodies)
	}
	if len(r.delNT) > 0 {
		b.Queue(`DELETE FROM node_tombstones WHERE graph_id = $1 AND id = ANY($2)`, id, r.delNT)
	}
	if len(r.etKeys) > 0 {
		b.Queue(`INSERT INTO edge_tombstones (graph_id, key, from_end, to_end, rel, v, seq, body)
			SELECT $1, * FROM unnest($2::bytea[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::jsonb[])
			ON CONFLICT (graph_id, key) DO UPDATE SET v = EXCLUDED.v, seq = EXCLUDED.seq, body = EXCLUDED.body`,
			id, r.etKeys, r.etFrom, r.etTo, r.etRel, r.etV, r.etSeq, r.etB)
	}
	if len(r.delET) > 0 {
		b.Queue(`DELETE FROM edge_tombstones WHERE graph_id = $1 AND key = ANY($2)`, id, r.delET)
	}
	if len(r.progTasks) > 0 {
		b.Queue(`INSERT INTO progress (graph_id, task, state) SELECT $1, * FROM unnest($2::text[], $3::jsonb[])
			ON CONFLICT (graph_id, task) DO UPDATE SET state = EXCLUDED.state`, id, r.progTasks, r.progStates)
	}
	if len(r.delProg) > 0 {
		b.Queue(`DELETE FROM progress WHERE graph_id = $1 AND task = ANY($2)`, id, r.delProg)
	}
}

// Since returns the batches committed after at (ports.SharedGraphRepository).
func (s *Store) Since(ctx context.Context, key domain.GraphKey, at uint64) ([]ports.CommittedBatch, error) {
	level, owner, project := keyCols(key)
	var out []ports.CommittedBatch
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var id, rev int64
		err := tx.QueryRow(ctx, "SELECT id, rev FROM graphs WHERE level = $1 AND owner = $2 AND project_key = $3",
			level, owner, project).Scan(&id, &rev)
		if errors.Is(err, pgx.ErrNoRows) {
			floor, err := removedRev(ctx, tx, key)
			if err == nil && floor > at {
				return fmt.Errorf("%w: the graph was removed after position %d", ports.ErrLogGap, at)
			}
			return err
		}
		if err != nil {
			return err
		}
		if uint64(rev) < at {
			return fmt.Errorf("%w: the graph's position %d is behind %d (it was removed since)", ports.ErrLogGap, rev, at)
		}
		if uint64(rev) == at {
			return nil
		}
		out, err = s.since(ctx, tx, id, at, uint64(rev))
		return err
	})
	if err != nil {
		if errors.Is(err, ports.ErrLogGap) {
			return nil, err
		}
		return nil, unavailable(err, "read what other servers changed in the %s graph", key)
	}
	return out, nil
}

// since reads the change log of graph id from at (exclusive) to head
// (inclusive); a log that does not hold every one of them is a gap.
func (s *Store) since(ctx context.Context, tx pgx.Tx, id int64, at, head uint64) ([]ports.CommittedBatch, error) {
	rows, err := tx.Query(ctx, "SELECT rev, seq_to, items, events FROM changes WHERE graph_id = $1 AND rev > $2 AND rev <= $3 ORDER BY rev",
		id, int64(at), int64(head))
	if err != nil {
		return nil, err
	}
	var out []ports.CommittedBatch
	var rev, seq int64
	var items, events []byte
	_, err = pgx.ForEachRow(rows, []any{&rev, &seq, &items, &events}, func() error {
		want := at + uint64(len(out)) + 1
		if uint64(rev) != want {
			return fmt.Errorf("%w: batch %d is missing from the change log", ports.ErrLogGap, want)
		}
		var ir itemsRec
		if err := json.Unmarshal(items, &ir); err != nil {
			return damagedf("change log batch %d: %v", rev, err)
		}
		d, err := ir.delta(uint64(seq))
		if err != nil {
			return damagedf("change log batch %d: %v", rev, err)
		}
		var evs []eventRec
		if err := json.Unmarshal(events, &evs); err != nil {
			return damagedf("change log batch %d: events: %v", rev, err)
		}
		b := ports.CommittedBatch{At: uint64(rev), Delta: d}
		for _, r := range evs {
			ev, err := r.domain()
			if err != nil {
				return damagedf("change log batch %d: event: %v", rev, err)
			}
			b.Events = append(b.Events, ev)
		}
		out = append(out, b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if uint64(len(out)) != head-at {
		return nil, fmt.Errorf("%w: the change log holds %d of the %d batches after %d", ports.ErrLogGap, len(out), head-at, at)
	}
	s.stats.catchUps.Add(float64(len(out)))
	return out, nil
}

// Heads returns the committed position of each graph of keys in one round
// trip (ports.SharedGraphRepository).
func (s *Store) Heads(ctx context.Context, keys []domain.GraphKey) (map[domain.GraphKey]uint64, error) {
	levels, owners, projects := make([]string, len(keys)), make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		levels[i], owners[i], projects[i] = keyCols(k)
	}
	// A graph removed and not stored since is at the position it left
	// (removed_graphs).
	rows, err := s.pool.Query(ctx, `SELECT k.level, k.owner, k.project_key, coalesce(g.rev, r.rev)
		FROM unnest($1::text[], $2::text[], $3::text[]) AS k(level, owner, project_key)
		LEFT JOIN graphs g ON g.level = k.level AND g.owner = k.owner AND g.project_key = k.project_key
		LEFT JOIN removed_graphs r ON k.level = 'project' AND r.project_key = k.project_key
		WHERE g.id IS NOT NULL OR r.rev IS NOT NULL`, levels, owners, projects)
	if err != nil {
		return nil, unavailable(err, "read the graphs' positions")
	}
	out := make(map[domain.GraphKey]uint64, len(keys))
	var level, owner, project string
	var rev int64
	_, err = pgx.ForEachRow(rows, []any{&level, &owner, &project, &rev}, func() error {
		out[keyOf(level, owner, project)] = uint64(rev)
		return nil
	})
	if err != nil {
		return nil, unavailable(err, "read the graphs' positions")
	}
	return out, nil
}

// removedRev is the position a graph of key starts from: that of its
// removal, or 0 (docs/design/team.md#removing-a-project).
func removedRev(ctx context.Context, tx pgx.Tx, key domain.GraphKey) (uint64, error) {
	if key.Level != domain.LevelProject {
		return 0, nil
	}
	var rev int64
	err := tx.QueryRow(ctx, "SELECT rev FROM removed_graphs WHERE project_key = $1", key.Project).Scan(&rev)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return uint64(rev), err
}

// keyByID returns the key of graph id, from memory or the database.
func (s *Store) keyByID(ctx context.Context, id int64) (domain.GraphKey, bool) {
	s.keysMu.Lock()
	k, ok := s.keys[id]
	s.keysMu.Unlock()
	if ok {
		return k, true
	}
	var level, owner, project string
	err := s.pool.QueryRow(ctx, "SELECT level, owner, project_key FROM graphs WHERE id = $1", id).Scan(&level, &owner, &project)
	if err != nil {
		return domain.GraphKey{}, false
	}
	k = keyOf(level, owner, project)
	s.rememberKey(id, k)
	return k, true
}

// notifyChannel is the channel of the commit notifications.
const notifyChannel = "kg_changes"

// notification is the payload of one: a pointer to the batch (well under
// PostgreSQL's 8,000-byte limit), never its content.
type notification struct {
	Graph    int64  `json:"g"`
	Rev      uint64 `json:"rev"`
	Instance string `json:"i"`
	At       int64  `json:"t"` // commit time, unix microseconds, for the lag metric
	// Removed is set by a project's removal (RemoveProject): the graph's
	// row is gone, so the notification names the project itself (a key
	// of at most 512 characters, well within the limit) and what it held.
	Removed *removedNote `json:"rm,omitempty"`
}

// removedNote is what a removal's notification says of the project.
type removedNote struct {
	Project string `json:"p"`
	Nodes   int    `json:"n"`
	Edges   int    `json:"e"`
}

func (n notification) encode() string {
	b, _ := json.Marshal(n)
	return string(b)
}

func decodeNotification(s string) (notification, error) {
	var n notification
	err := json.NewDecoder(strings.NewReader(s)).Decode(&n)
	return n, err
}

// TakeLease takes the graph's maintenance lease for d, unless another
// server holds it or the graph's row is locked by a write right now
// (ports.SharedGraphRepository).
func (s *Store) TakeLease(ctx context.Context, key domain.GraphKey, d time.Duration) (bool, error) {
	level, owner, project := keyCols(key)
	tag, err := s.pool.Exec(ctx, `UPDATE graphs SET lease_holder = $4, lease_until = now() + $5 * interval '1 millisecond'
		WHERE id = (SELECT id FROM graphs WHERE level = $1 AND owner = $2 AND project_key = $3
			AND (lease_until IS NULL OR lease_until < now() OR lease_holder = $4) FOR UPDATE SKIP LOCKED)`,
		level, owner, project, s.instance, d.Milliseconds())
	if err != nil {
		return false, unavailable(err, "take the maintenance lease of the %s graph", key)
	}
	if tag.RowsAffected() != 1 {
		return false, nil
	}
	s.pruneChanges(ctx, key)
	return true, nil
}

// pruneChanges deletes the batches of the graph's change log older than
// the retention but its last Options.ChangesKept: part of the graph's
// time-driven maintenance, done by the server holding its lease. A server
// whose copy is older than what is left finds a gap and loads the graph
// afresh (docs/design/team.md#pruning-the-change-log). A failure is logged:
// the next lease tries again.
func (s *Store) pruneChanges(ctx context.Context, key domain.GraphKey) {
	if s.opt.ChangesRetention < 0 {
		return
	}
	level, owner, project := keyCols(key)
	tag, err := s.pool.Exec(ctx, `DELETE FROM changes c USING graphs g
		WHERE g.level = $1 AND g.owner = $2 AND g.project_key = $3 AND c.graph_id = g.id
			AND c.rev <= g.rev - $4 AND c.committed_at < now() - $5 * interval '1 millisecond'`,
		level, owner, project, s.opt.ChangesKept, s.opt.ChangesRetention.Milliseconds())
	if err != nil {
		s.log.Warn("postgres: could not prune the change log; the next maintenance tries again", "graph", key.String(), "err", err)
		return
	}
	if n := tag.RowsAffected(); n > 0 {
		s.log.Info("postgres: pruned the change log", "graph", key.String(), "batches", n)
	}
}
