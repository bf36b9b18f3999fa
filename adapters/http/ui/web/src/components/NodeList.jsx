// The list of the graph's nodes beside the picture: the keyboard's way to
// every node. Its filter asks the search index of this graph (the ranking
// of the search box), and shows at once, while that answer comes, the nodes
// whose id or gist contain the text. Rows are redrawn only when their node
// changes, so a live change at 3,000 nodes costs one row.
import { Component } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, scopeKey } from '../api.js';

const tierOrder = { active: 0, archived: 1, orphaned: 2 };
const PAGE = 300;

class Row extends Component {
  shouldComponentUpdate(next) {
    return next.node !== this.props.node || next.selected !== this.props.selected || next.extra !== this.props.extra || next.picked !== this.props.picked;
  }

  render({ node, selected, onSelect, extra, picked, onPick }) {
    const tier = node.tier ?? 'active';
    return (
      <li class={onPick ? 'pickable' : undefined}>
        {onPick && <input type="checkbox" class="pick" checked={picked} aria-label={`Pick ${node.id}`}
          onChange={(e) => onPick(node.id, e.currentTarget.checked)} />}
        <button type="button" class={`node-item tier-${tier}`} aria-current={selected ? 'true' : undefined}
          onClick={() => onSelect(node.id)} data-id={node.id}>
          <span class="node-id">{node.id}{node.stale?.length ? <StaleBadge stale={node.stale} /> : null}</span>
          <span class={`badge badge-${tier}`}>{tier}</span>
          {extra ? <span class="node-extra">{extra}</span> : null}
          <span class="node-gist">{node.gist}</span>
        </button>
      </li>
    );
  }
}

// A node whose recorded project files changed or vanished since it was
// written (docs/design/trust.md#staleness); the title names the files.
function StaleBadge({ stale }) {
  const files = stale.map((f) => `${f.path} ${f.change}`).join(', ');
  return <span class="badge badge-stale" title={`Recorded files changed since it was written: ${files}`}>possibly stale</span>;
}

const byTierThenId = (a, b) => (tierOrder[a.tier] ?? 0) - (tierOrder[b.tier] ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function NodeList({ store, version, scope, selected, onSelect, picked, onPick }) {
  const [filter, setFilter] = useState('');
  const [ranked, setRanked] = useState(null); // {q, ids} from the search index
  const [limit, setLimit] = useState(PAGE);
  const [staleOnly, setStaleOnly] = useState(false);
  const asked = useRef(0);
  const key = scopeKey(scope);

  useEffect(() => { setFilter(''); setRanked(null); setLimit(PAGE); }, [key]);

  // The index answers a moment after the typing stops.
  const f = filter.trim();
  useEffect(() => {
    if (!f) { setRanked(null); return undefined; }
    const n = ++asked.current;
    const t = setTimeout(async () => {
      try {
        const r = await api.searchGraph(scope, f);
        if (n === asked.current) setRanked({ q: f, ids: r.hits.map((h) => h.id) });
      } catch {
        if (n === asked.current) setRanked({ q: f, ids: [] });
      }
    }, 200);
    return () => clearTimeout(t);
  }, [f, key]); // eslint-disable-line react-hooks/exhaustive-deps

  // The order of the nodes changes only when one comes, goes or changes
  // tier (store.shape); a change of content takes the new node by id.
  const order = useMemo(() => store.nodeList().sort(byTierThenId).map((n) => n.id), [store, store.shape]); // eslint-disable-line react-hooks/exhaustive-deps
  const shown = useMemo(() => {
    if (!f) return null;
    const all = order.map((id) => store.nodes.get(id));
    const low = f.toLowerCase();
    const seen = new Set();
    const out = [];
    if (ranked?.q === f) {
      for (const id of ranked.ids) {
        const n = store.nodes.get(id);
        if (n && !seen.has(id)) { seen.add(id); out.push(n); }
      }
    }
    for (const n of all) {
      if (seen.has(n.id)) continue;
      if (n.id.toLowerCase().includes(low) || (n.gist ?? '').toLowerCase().includes(low)) out.push(n);
    }
    return out;
  }, [order, version, f, ranked]); // eslint-disable-line react-hooks/exhaustive-deps

  const stale = useMemo(() => order.map((id) => store.nodes.get(id)).filter((n) => n?.stale?.length), [order, version]); // eslint-disable-line react-hooks/exhaustive-deps
  const only = staleOnly && stale.length > 0 ? (shown ?? stale).filter((n) => n.stale?.length) : null;
  const list = only ?? shown;
  const total = list ? list.length : order.length;
  const page = list ? list.slice(0, limit) : order.slice(0, limit).map((id) => store.nodes.get(id)).filter(Boolean);
  return (
    <section class="list" aria-labelledby="list-title">
      <div class="list-head">
        <h2 id="list-title">Nodes</h2>
        <span class="count" data-testid="list-count">{list ? `${total} of ${order.length}` : order.length}</span>
      </div>
      {stale.length > 0 && (
        <label class="stale-filter">
          <input type="checkbox" checked={staleOnly} onChange={(e) => { setStaleOnly(e.currentTarget.checked); setLimit(PAGE); }} />
          Only the {stale.length} possibly stale
        </label>
      )}
      <label class="filter">
        <span>Filter the list</span>
        <input type="search" value={filter} onInput={(e) => { setFilter(e.currentTarget.value); setLimit(PAGE); }} placeholder="id, gist or meaning" />
      </label>
      {f && ranked?.q !== f && <p class="count" role="status">Asking the search index…</p>}
      <ul class="nodes" aria-label="Nodes of this graph">
        {page.map((n) => <Row key={n.id} node={n} selected={n.id === selected} onSelect={onSelect} picked={picked?.has(n.id) ?? false} onPick={onPick} />)}
      </ul>
      {total > page.length && (
        <button type="button" class="more" onClick={() => setLimit((l) => l + PAGE * 4)}>
          Show {Math.min(PAGE * 4, total - page.length)} more of {total - page.length}
        </button>
      )}
      {order.length === 0 && <p class="empty">This graph has no nodes yet. Create one with “New node”.</p>}
    </section>
  );
}
