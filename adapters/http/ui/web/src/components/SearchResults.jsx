// The hits of the one search box, over the user graph and every project
// (GET /api/search?scope=all), best first: each with its graph and the
// terms the server says it matched (a corrected term as the word used).
// Hits of the graph on screen are marked on the picture too; a hit of
// another graph opens that graph. With no hits, the nearest spelling of
// each term that matched nothing is offered as a search of its own.
import { scopeKey, scopeOf } from '../api.js';
import { attentionFor } from '../attention.js';

export function SearchResults({ search, currentKey, graphName, selected, onOpen, onClear, onSearch, attention }) {
  const { query, hits, corrections, nearest, unavailable, error } = search;
  const here = hits.filter((h) => scopeKey(scopeOf(h.level, h.project)) === currentKey).length;
  return (
    <section class="list" aria-labelledby="list-title">
      <div class="list-head">
        <h2 id="list-title">Search: “{query}”</h2>
        <button type="button" onClick={onClear}>Clear search</button>
      </div>
      {corrections?.length > 0 && (
        <p class="corrections" data-testid="corrections">
          Searched for {corrections.map((c, i) => <span key={c.term}>{i ? ', ' : ''}<strong>{c.used}</strong> (you typed “{c.term}”)</span>)}.
        </p>
      )}
      {error
        ? <p class="error" role="alert">{error}</p>
        : (
          <p class="count" role="status">
            {hits.length === 0
              ? 'No node matches, in any graph.'
              : `${hits.length} match${hits.length === 1 ? '' : 'es'} in every graph, best first; ${here} in this graph, marked on the picture.`}
          </p>
        )}
      {hits.length === 0 && nearest?.length > 0 && (() => {
        const spelt = nearest.reduce((q, n) => q.replace(new RegExp(n.term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), n.nearest), query);
        return (
          <p class="corrections" data-testid="nearest">
            Nearest spelling: <button type="button" class="link" onClick={() => onSearch(spelt)}>{spelt}</button>
          </p>
        );
      })()}
      {unavailable?.length > 0 && <p class="error">Not searched: {unavailable.join('; ')}</p>}
      <ul class="nodes hits" aria-label="Search results">
        {hits.map((h) => {
          const scope = scopeOf(h.level, h.project);
          const k = scopeKey(scope);
          const tier = h.tier ?? 'active';
          const words = h.matched ?? [];
          const needs = attentionFor(attention?.get(k), h.id);
          return (
            <li key={`${k}|${h.id}`}>
              <button type="button" class={`node-item tier-${tier}${k === currentKey ? ' here' : ''}`}
                aria-current={k === currentKey && h.id === selected ? 'true' : undefined}
                onClick={() => onOpen(scope, h.id)} data-id={h.id} data-graph={k}>
                <span class="node-id">{h.id}</span>
                <span class={`badge badge-${tier}`}>{tier}</span>
                <span class="hit-graph">{graphName(scope)}</span>
                <span class="node-gist">{h.gist}</span>
                {words.length > 0 && <span class="matched" data-testid="matched">matched: {words.join(', ')}</span>}
                {needs.map((it, i) => <span key={i} class={`attention-badge attention-${it.kind}`} data-kind={it.kind}>{it.text}</span>)}
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
