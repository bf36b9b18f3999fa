// The list of the graph's nodes beside the picture: the keyboard's way to
// every node. It filters as one types, and shows search results instead of
// the whole graph while a search is active.
import { useState } from 'preact/hooks';

const tierOrder = { active: 0, archived: 1, orphaned: 2 };

function Item({ node, selected, onSelect, extra }) {
  const tier = node.tier ?? 'active';
  return (
    <li>
      <button type="button" class={`node-item tier-${tier}`} aria-current={selected ? 'true' : undefined}
        onClick={() => onSelect(node.id)} data-id={node.id}>
        <span class="node-id">{node.id}</span>
        <span class={`badge badge-${tier}`}>{tier}</span>
        {extra}
        <span class="node-gist">{node.gist}</span>
      </button>
    </li>
  );
}

export function NodeList({ nodes, selected, onSelect, search, onClearSearch }) {
  const [filter, setFilter] = useState('');
  if (search) {
    return (
      <section class="list" aria-labelledby="list-title">
        <div class="list-head">
          <h2 id="list-title">Search: “{search.query}”</h2>
          <button type="button" onClick={onClearSearch}>Clear search</button>
        </div>
        <p class="count" role="status">{search.hits.length === 0 ? 'No node matches.' : `${search.hits.length} match${search.hits.length === 1 ? '' : 'es'}, best first.`}</p>
        <ul class="nodes" aria-label="Search results">
          {search.hits.map((h) => (
            <Item key={h.id} node={h} selected={h.id === selected} onSelect={onSelect} />
          ))}
        </ul>
      </section>
    );
  }
  const f = filter.trim().toLowerCase();
  const shown = nodes
    .filter((n) => !f || n.id.toLowerCase().includes(f) || (n.gist ?? '').toLowerCase().includes(f))
    .sort((a, b) => (tierOrder[a.tier] ?? 0) - (tierOrder[b.tier] ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return (
    <section class="list" aria-labelledby="list-title">
      <div class="list-head">
        <h2 id="list-title">Nodes</h2>
        <span class="count">{f ? `${shown.length} of ${nodes.length}` : nodes.length}</span>
      </div>
      <label class="filter">
        <span>Filter the list</span>
        <input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} placeholder="id or gist" />
      </label>
      <ul class="nodes" aria-label="Nodes of this graph">
        {shown.map((n) => <Item key={n.id} node={n} selected={n.id === selected} onSelect={onSelect} />)}
      </ul>
      {nodes.length === 0 && <p class="empty">This graph has no nodes yet. Create one with “New node”.</p>}
    </section>
  );
}
