// Merging two nodes on the page (docs/design/trust.md#merging-two-nodes):
// finding the other node, and what a merge's answer means for the graph on
// screen. The merge itself — what is united, rewired and dropped — is the
// server's (POST /api/nodes/merge), shown from its dry run, so the preview
// is exactly what is written.

const words = (s) => s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

/**
 * The nodes a person may mean by query, for the merge's "other node": every
 * word of the query in the id or the gist, not `self`; ids that start with
 * the query first, then by id. An empty query lists none.
 * @param {Iterable<object>} nodes
 */
export function mergeCandidates(nodes, self, query, limit = 12) {
  const q = query.trim().toLowerCase();
  const ws = words(q);
  if (!ws.length) return [];
  const out = [];
  for (const n of nodes) {
    if (n.id === self) continue;
    const hay = `${n.id} ${n.gist ?? ''}`.toLowerCase();
    if (ws.every((w) => hay.includes(w))) out.push(n);
  }
  const starts = (n) => (n.id.toLowerCase().startsWith(q) ? 0 : 1);
  out.sort((a, b) => starts(a) - starts(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return out.slice(0, limit);
}

/**
 * The events a merge's answer stands for, as /ws will send them: the node
 * kept, each edge written, the node merged deleted (its edges with it). The
 * page applies them at once, as it does its other writes' answers.
 */
export function eventsOfMerge(r) {
  if (!r || r.dry_run) return [];
  return [
    { type: 'node_updated', node: r.node },
    ...(r.written ?? []).map((edge) => ({ type: 'edge_updated', edge })),
    { type: 'node_deleted', node_id: r.deleted, edges_deleted: r.edges_deleted ?? 0 },
  ];
}

const end = (k) => `${k.from} ${k.rel} ${k.to}`;

/** One edge of the plan for a person: what it was, what it becomes. */
export function describeEdge(e) {
  switch (e.action) {
    case 'rewired': return { was: end(e.was), now: end(e.now), say: 'rewired' };
    case 'united': return { was: end(e.was), now: end(e.now), say: 'joins the edge it already has' };
    case 'dropped': return { was: end(e.was), now: null, say: 'dropped: it would join the node to itself' };
    default: return { was: end(e.was), now: e.now ? end(e.now) : null, say: e.action };
  }
}

/** What a merge did, in one sentence. */
export function mergeSummary(r) {
  const n = (k) => (r.edges ?? []).filter((e) => e.action === k).length;
  const parts = [];
  const moved = n('rewired') + n('united');
  if (moved) parts.push(`${moved} edge${moved === 1 ? '' : 's'} rewired`);
  if (n('dropped')) parts.push(`${n('dropped')} dropped`);
  return `Merged ${r.from} into ${r.into}${parts.length ? `: ${parts.join(', ')}` : ''}.`;
}
