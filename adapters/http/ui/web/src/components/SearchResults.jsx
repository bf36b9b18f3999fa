// The hits of the one search box, over the user graph and every project
// (GET /api/search?scope=all), best first: each with its graph and the
// words it matched. Hits of the graph on screen are marked on the picture
// too; a hit of another graph opens that graph.
import { scopeKey, scopeOf } from '../api.js';

/** The query's words, as a person typed them. */
export const queryTerms = (q) => q.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((t) => t.length > 1);

/**
 * The words a hit matched: the server's list when it gives one, else the
 * query's words found in the node's id, gist or notes.
 */
export function matchedOf(hit, query, corrections = []) {
  if (Array.isArray(hit.matched) && hit.matched.length) return hit.matched;
  const used = new Map(corrections.map((c) => [String(c.term).toLowerCase(), String(c.used)]));
  const text = `${hit.id} ${hit.gist ?? ''} ${(hit.notes ?? []).join(' ')}`.toLowerCase();
  return queryTerms(query).map((t) => used.get(t) ?? t).filter((t) => text.includes(t.toLowerCase()));
}

export function SearchResults({ search, currentKey, graphName, selected, onOpen, onClear }) {
  const { query, hits, corrections, unavailable, error } = search;
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
      {unavailable?.length > 0 && <p class="error">Not searched: {unavailable.join('; ')}</p>}
      <ul class="nodes hits" aria-label="Search results">
        {hits.map((h) => {
          const scope = scopeOf(h.level, h.project);
          const k = scopeKey(scope);
          const tier = h.tier ?? 'active';
          const words = matchedOf(h, query, corrections);
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
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
