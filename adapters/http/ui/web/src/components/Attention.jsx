// The home view's "Needs attention" (attention.js): for every graph, the
// stale nodes with the files that changed, the clusters of possible
// duplicates with Merge…, the secrets found in stored data and the nodes at
// the budget's edge; each node a link that opens it.
import { useState } from 'preact/hooks';
import { scopeKey } from '../api.js';
import { attentionCount, pairText, secretText, staleText } from '../attention.js';

const SHOWN = 10;

function GraphAttention({ g, a, onOpen, onMerge }) {
  const [all, setAll] = useState(() => new Set()); // the kinds listed whole
  const upTo = (kind, l) => (all.has(kind) ? l : l.slice(0, SHOWN));
  const More = ({ kind, n }) => (n > SHOWN && !all.has(kind)
    ? <li class="hint"><button type="button" class="link" onClick={() => setAll((s) => new Set(s).add(kind))}>and {n - SHOWN} more — show all</button></li>
    : null);
  const open = (id) => <button type="button" class="link" onClick={() => onOpen(g.scope, id)}>{id}</button>;
  return (
    <section class="attention-graph" data-graph={scopeKey(g.scope)} aria-label={`Needs attention in ${g.name}`}>
      <h3>{g.name}</h3>
      {a.stale.length > 0 && (
        <>
          <h4>Possibly stale: a file they were written from changed</h4>
          <ul class="attention-list" data-kind="stale">
            {upTo('stale', a.stale).map((s) => <li key={s.id} data-id={s.id}>{open(s.id)}: {staleText(s.files)}</li>)}
            <More kind="stale" n={a.stale.length} />
          </ul>
        </>
      )}
      {a.duplicates.length > 0 && (
        <>
          <h4>Possible duplicates</h4>
          <ul class="attention-list" data-kind="duplicate">
            {upTo('duplicate', a.duplicates).map((c) => (
              <li key={c.ids.join('|')} data-id={c.ids[0]}>
                {c.ids.map((id, i) => <span key={id}>{i ? ', ' : ''}{open(id)}</span>)}
                <span class="hint"> — {c.pairs.map(pairText).join('; ')}</span>{' '}
                <button type="button" class="small" onClick={() => onMerge(g.scope, c.ids[0], c.ids[1])}
                  aria-label={`Merge ${c.ids[1]} into ${c.ids[0]}…`}>Merge…</button>
              </li>
            ))}
            <More kind="duplicate" n={a.duplicates.length} />
          </ul>
        </>
      )}
      {a.secrets.length > 0 && (
        <>
          <h4>Secrets found in stored data: rewrite or delete, then rotate the credential</h4>
          <ul class="attention-list" data-kind="secret">
            {upTo('secret', a.secrets).map((s, i) => (
              <li key={i} data-id={s.node ?? ''}>{s.node ? <>{open(s.node)} </> : null}<span>{secretText(s)}</span></li>
            ))}
            <More kind="secret" n={a.secrets.length} />
          </ul>
        </>
      )}
      {a.edge.length > 0 && (
        <>
          <h4>At the budget's edge: the next compaction run moves {a.edge.length} node{a.edge.length === 1 ? '' : 's'}</h4>
          <ul class="attention-list" data-kind="edge">
            {upTo('edge', a.edge).map((m) => <li key={m.id} data-id={m.id}>{open(m.id)} {m.from} → {m.to}: <span class="reason">{m.reason}</span></li>)}
            <More kind="edge" n={a.edge.length} />
          </ul>
        </>
      )}
    </section>
  );
}

export function Attention({ graphs, attention, onOpen, onMerge }) {
  const shown = graphs.filter((g) => attentionCount(attention.get(scopeKey(g.scope))) > 0);
  return (
    <section class="home-attention" aria-labelledby="home-attention-title">
      <h2 id="home-attention-title">Needs attention</h2>
      {shown.length === 0
        ? <p class="empty" data-testid="no-attention">Nothing needs you: no stale node, possible duplicate, stored secret or node at the budget's edge.</p>
        : shown.map((g) => <GraphAttention key={scopeKey(g.scope)} g={g} a={attention.get(scopeKey(g.scope))} onOpen={onOpen} onMerge={onMerge} />)}
    </section>
  );
}
