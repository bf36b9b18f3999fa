// What needs a person (GET /api/attention, docs/design/trust.md#needs-attention):
// per graph, the nodes marked possibly stale with the files that changed,
// the clusters of possible duplicates, the credentials found in stored
// data, and the nodes at the budget's edge (the moves a compaction run
// would make now). The home view lists them for every graph; the details
// panel and the search hits say them of the node they are about.

const list = (v) => (Array.isArray(v) ? v : []);

/** One graph's answer in the page's shape; null stays null. */
export function attentionOf(answer) {
  if (!answer) return null;
  return {
    stale: list(answer.stale).map((s) => ({ id: s.id, files: list(s.files) })),
    duplicates: list(answer.duplicates).map((c) => ({ ids: list(c.ids), pairs: list(c.pairs) })),
    secrets: list(answer.secrets),
    edge: list(answer.edge?.moves).map((m) => ({ id: m.id, from: m.from, to: m.to, reason: m.reason ?? '' })),
    overBudget: !!answer.edge?.over_budget,
  };
}

/** How many things need a person in one graph's attention. */
export function attentionCount(a) {
  return a ? a.stale.length + a.duplicates.length + a.secrets.length + (a.edge.length ? 1 : 0) : 0;
}

const likeness = (p) => (p.by === 'id' ? 'the same id' : `gists ${Number(p.score).toFixed(2)} alike`);

/** A stale node's files in words: "src/a.go changed, src/b.go vanished". */
export const staleText = (files) => files.map((f) => `${f.path} ${f.change}`).join(', ');

/** Where a stored secret is, in words, never the secret. */
export function secretText(s) {
  const where = s.edge ? `edge ${s.edge.from} ${s.edge.rel} ${s.edge.to}` : `node ${s.node}`;
  return `${where}: ${s.message}`;
}

/**
 * What needs a person about node id, for its details and its search hit:
 * [{kind: 'stale'|'duplicate'|'secret'|'edge', text, other?}].
 */
export function attentionFor(a, id) {
  if (!a || !id) return [];
  const out = [];
  for (const s of a.stale) if (s.id === id) out.push({ kind: 'stale', text: `possibly stale: ${staleText(s.files)}` });
  for (const c of a.duplicates) {
    if (!c.ids.includes(id)) continue;
    for (const p of c.pairs) {
      if (p.a !== id && p.b !== id) continue;
      const other = p.a === id ? p.b : p.a;
      out.push({ kind: 'duplicate', text: `may repeat ${other} (${likeness(p)})`, other });
    }
  }
  for (const s of a.secrets) if (s.node === id) out.push({ kind: 'secret', text: `holds a secret: ${s.message}` });
  for (const m of a.edge) if (m.id === id) out.push({ kind: 'edge', text: `at the budget's edge: the next run ${m.to === 'deleted' ? 'deletes it' : `moves it to ${m.to}`} (${m.reason})` });
  return out;
}

/** The pairs of a cluster in words: "a ~ b: gists 0.86 alike". */
export const pairText = (p) => `${p.a} ~ ${p.b}: ${likeness(p)}`;
