// The selected node: its content, its edges in and out with their notes,
// and why it ranks where it does in compaction. Nothing here reads the node
// by id, which would recall it: the content comes from the graph read (kept
// live by the events), the ranking from the compaction plan, read when a
// node is shown. Recall is its own button.
//
// The panel is a list of sections (SECTIONS below), each a component of
// ({node, ...props}); the node's history (History.jsx) is the last.
import { formatTime, formatDay, percent, sessions, duration, ordinal, pick } from '../format.js';
import { NodeHistory } from './History.jsx';
import { attentionFor } from '../attention.js';

/** What needs a person about this node (attention.js): stale files, possible duplicates, a stored secret, the budget's edge. */
function NeedsAttention({ node, attention, onMergeWith, onSelect }) {
  const items = attentionFor(attention, node.id);
  if (!items.length) return null;
  return (
    <section class="needs-attention" aria-labelledby="attention-title" data-testid="node-attention">
      <h3 id="attention-title">Needs attention</h3>
      <ul>
        {items.map((it, i) => (
          <li key={i} data-kind={it.kind}>
            {it.text}
            {it.other && (
              <>{' '}<button type="button" class="link" onClick={() => onSelect?.(it.other)}>open {it.other}</button>{' '}
                <button type="button" class="small" onClick={() => onMergeWith?.(it.other)}>Merge…</button></>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Ranking({ node, rank, move }) {
  const tier = node.tier ?? 'active';
  const planned = move && (
    <p class="move" data-testid="planned-move"><strong>The plan would {move.pruned ? 'delete it' : `move it to ${move.to}`}:</strong> {move.reason}</p>
  );
  if (tier === 'orphaned') {
    return <>{planned}<p>Orphaned nodes are not ranked: they wait for a recall, a recalled neighbour, or deletion after the orphan grace.</p></>;
  }
  if (!rank) return <>{planned}<p>No ranking for this node in the plan.</p></>;
  const ranked = typeof rank.score === 'number';
  const w = rank.weights; // the formula of the plan (GET /api/compaction/plan)
  // Under "use" the score is the use count's percentile; recency and
  // connectedness are shown as facts, without percentiles of their own.
  const byUse = rank.scoring === 'use';
  const facts = (
    <>
      {byUse && <><dt>Use</dt><dd data-testid="use">{ranked ? `${percent(rank.pUse)}, ` : ''}{sessions(rank.use)} sessions lately, last counted {formatDay(rank.useDay)}</dd></>}
      <dt>Recency</dt><dd>{ranked && !byUse ? `${percent(rank.pRecency)}, ` : ''}last used {formatTime(rank.recency)}</dd>
      <dt>Connectedness</dt><dd>{ranked && !byUse ? `${percent(rank.pConnectedness)}, ` : ''}{rank.connectedness ?? 0}{w && ` (${w.in} × edges in + ${w.out} × edges out, with active nodes)`}</dd>
      <dt>Grace left</dt><dd data-testid="grace">{duration(rank.graceLeft)}</dd>
    </>
  );
  if (!ranked) {
    return (
      <>
        <dl class="facts ranking">{facts}</dl>
        <p data-testid="unranked">{tier === 'archived'
          ? `Archived nodes are not in the ranking of active nodes. Recall brings it back; a compaction run also restores it when it outranks a node it would archive${w ? ` by ${w.resurrection_margin}` : ''}.`
          : 'In its grace period: never archived until the grace is over, so not ranked.'}</p>
        {planned}
      </>
    );
  }
  return (
    <>
      <dl class="facts ranking">
        <dt>Score</dt><dd data-testid="score">{rank.score.toFixed(4)}</dd>
        {facts}
        <dt>Place</dt><dd data-testid="place">{rank.position ? `${ordinal(rank.position)} of ${rank.of}, lowest first` : '—'}</dd>
      </dl>
      <p class="explain" data-testid="formula">{byUse
        ? 'Score = use percentile, among the active nodes past grace: how many separate sessions needed it lately (each session counts once; the count halves every 7 days). '
        : w && `Score = ${w.recency} × recency percentile + ${w.connectedness} × connectedness percentile, among the active nodes past grace. `}When the graph is over its token budget, the lowest-placed are archived first.</p>
      {planned}
    </>
  );
}

function EdgeRow({ e, direction, isNode, isUserNode, onSelect, onOpenUser, onEditEdge, onDeleteEdge }) {
  const other = direction === 'out' ? e.to : e.from;
  return (
    <li class="edge" data-rel={e.rel} data-other={other}>
      <div class="edge-line">
        <span class="rel">{direction === 'out' ? `${e.rel} →` : `← ${e.rel}`}</span>{' '}
        {isNode(other)
          ? <button type="button" class="link" onClick={() => onSelect(other)}>{other}</button>
          : isUserNode(other)
            ? <button type="button" class="link" onClick={() => onOpenUser(other)} title="a node of the user graph: open it there">{other} <span class="hint">(user graph)</span></button>
            : <span class="ref" title="not a node of this graph">{other}</span>}
      </div>
      {e.notes.length > 0 && <ul class="notes">{e.notes.map((n, i) => <li key={i}>{n}</li>)}</ul>}
      <div class="row-actions">
        <button type="button" onClick={() => onEditEdge(e)} aria-label={`Edit notes of edge ${e.from} ${e.rel} ${e.to}`}>Edit notes</button>
        <button type="button" class="danger" onClick={() => onDeleteEdge(e)} aria-label={`Delete edge ${e.from} ${e.rel} ${e.to}`}>Delete</button>
      </div>
    </li>
  );
}

const byRelThenEnd = (end) => (a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : a[end] < b[end] ? -1 : a[end] > b[end] ? 1 : 0);

function Edges({ node, store, userIds, onSelect, onOpenUser, onEditEdge, onDeleteEdge }) {
  const all = store.edgesOf(node.id);
  const out = all.filter((e) => e.from === node.id).sort(byRelThenEnd('to'));
  const inn = all.filter((e) => e.to === node.id).sort(byRelThenEnd('from'));
  const isNode = (id) => store.nodes.has(id);
  // A project's edge may name a node of the user graph: it opens there.
  const isUserNode = (id) => store.scope.level === 'project' && !!onOpenUser && (userIds?.has(id) ?? false);
  const rows = (list, direction) => (list.length === 0
    ? <p class="empty">None.</p>
    : <ul class="edges-list">{list.map((e) => <EdgeRow key={`${e.from}|${e.to}|${e.rel}`} e={e} direction={direction} isNode={isNode} isUserNode={isUserNode} onSelect={onSelect} onOpenUser={onOpenUser} onEditEdge={onEditEdge} onDeleteEdge={onDeleteEdge} />)}</ul>);
  return (
    <>
      <h3>Edges out ({out.length})</h3>
      {rows(out, 'out')}
      <h3>Edges in ({inn.length})</h3>
      {rows(inn, 'in')}
    </>
  );
}

function Content({ node }) {
  return (
    <>
      <dl class="facts">
        <dt>Tier</dt><dd>{node.tier ?? 'active'}</dd>
        <dt>Version</dt><dd data-testid="version">{pick(node, 'version', '_v') ?? '—'}</dd>
        <dt>Change seq</dt><dd>{pick(node, 'seq', '_seq') ?? '—'}</dd>
        <dt>Created</dt><dd>{formatTime(pick(node, 'created', '_created_ts'))}</dd>
        <dt>Last write</dt><dd>{formatTime(pick(node, 'updated_ts', 'last_write', '_last_write_ts'))}</dd>
        {node.written_by && <><dt>Written by</dt><dd data-testid="written-by">{node.written_by}</dd></>}
        <dt>Last read</dt><dd>{formatTime(pick(node, 'last_read', '_last_read_ts'))}</dd>
      </dl>
      <h3>Notes</h3>
      {(node.notes ?? []).length ? <ul class="notes">{node.notes.map((n, i) => <li key={i}>{n}</li>)}</ul> : <p class="empty">None.</p>}
      <h3>Touches</h3>
      {(node.touches ?? []).length ? <ul class="touches">{node.touches.map((t, i) => <li key={i}><code>{t}</code></li>)}</ul> : <p class="empty">None.</p>}
    </>
  );
}

function Rank({ node, rank, move, rankState }) {
  return (
    <section aria-labelledby="rank-title" class="rank-section">
      <h3 id="rank-title">Why it ranks here</h3>
      {rankState === 'loading' && !rank
        ? <p class="empty">Reading the ranking…</p>
        : rankState?.error
          ? <p class="error">The ranking could not be read: {rankState.error}</p>
          : <Ranking node={node} rank={rank} move={move} />}
    </section>
  );
}

/** The sections of the panel, in order. */
const SECTIONS = [NeedsAttention, Content, Edges, Rank, NodeHistory];

export function Details({ node, busy, onEdit, onDelete, onRecall, onNewEdge, onMerge, ...rest }) {
  if (!node) {
    return <p class="empty">Select a node in the list or the picture to see it here.</p>;
  }
  const tier = node.tier ?? 'active';
  return (
    <article class="details" aria-labelledby="details-title" data-id={node.id}>
      <header class="details-head">
        <h2 id="details-title" tabIndex={-1}>{node.id}</h2>
        <span class={`badge badge-${tier}`} data-testid="tier">{tier}</span>
      </header>
      <p class="gist" data-testid="gist">{node.gist}</p>
      <div class="actions">
        <button type="button" onClick={onEdit} disabled={busy}>Edit</button>
        {tier !== 'active' && <button type="button" onClick={onRecall} disabled={busy} class="primary">Recall</button>}
        <button type="button" onClick={onNewEdge} disabled={busy}>Add edge from here</button>
        <button type="button" onClick={onMerge} disabled={busy}>Merge…</button>
        <button type="button" class="danger" onClick={onDelete} disabled={busy}>Delete</button>
      </div>
      {SECTIONS.map((S, i) => <S key={i} node={node} {...rest} />)}
    </article>
  );
}
