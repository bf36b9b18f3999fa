// The change log as the page shows it (GET /api/history, POST /api/undo:
// docs/api.md): a node's history, a session's changes and the plan of an
// undo, in words. A server without the change log answers 404 "no such
// route" (a backend without one, 503 "keeps no change log"); the page
// then leaves the history out rather than show an error.

/** Whether err says this server keeps no change log. */
export function historyUnavailable(err) {
  if (err?.status === 404 && !err.field && /no such route/.test(err.message ?? '')) return true;
  return err?.kind === 'unavailable' && /keeps no change log/.test(err.message ?? '');
}

const edgeName = (e) => (e ? `${e.from} ${e.rel} ${e.to}` : 'an edge');

/** The item an entry or an undo step is about: "node a", "edge a uses b", "the graph". */
export function itemName(x) {
  if (x.item === 'edge') return `edge ${edgeName(x.edge)}`;
  if (x.item === 'graph') return 'the graph';
  return `node ${x.id}`;
}

const OPS = {
  put: (e) => (e.before ? 'changed' : 'created'),
  delete: () => 'deleted',
  move: (e) => `moved ${e.tier?.from ?? '?'} → ${e.tier?.to ?? '?'}`,
  archive: () => 'archived by hand',
  undo: () => 'put back (undo)',
  import_replace: () => 'replaced by an import',
  project_mv: () => 'moved with its project',
  migrate: () => 'migrated',
};

/** What an entry did, in words: "created", "changed", "moved active → archived". */
export function entryAction(e) {
  return (OPS[e.op] ?? (() => e.op))(e);
}

/** A value of a diff row for a person: lists one item a line, none as "—". */
export function diffValue(v) {
  if (v === null || v === undefined || v === '') return '—';
  if (Array.isArray(v)) return v.length ? v.join('\n') : '—';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** The rows of an entry's readable diff. */
export function diffRows(e) {
  return (Array.isArray(e.diff) ? e.diff : []).map((d) => ({ field: d.field, before: diffValue(d.before), after: diffValue(d.after) }));
}

/** The entries of a history answer, newest first, whatever order they came in. */
export function entriesOf(answer) {
  const list = Array.isArray(answer?.entries) ? [...answer.entries] : [];
  return list.sort((a, b) => (b.seq ?? 0) - (a.seq ?? 0));
}

/** How far either side of a change the log is read to find the rest of its write. */
export const CHANGE_WINDOW = 250;

/**
 * The seqs of the one write an entry belongs to: the run of consecutive
 * seqs around seq whose entries share its time and session — a write takes
 * one clock read and consecutive seqs, so a node's deletion and its edges',
 * or a merge, come out whole. entries is the log read around seq (any
 * order); the run stops at a seq the read does not hold.
 * @returns {{from: number, to: number} | null} null when seq is not among them
 */
export function changeRange(entries, seq) {
  const bySeq = new Map(entries.map((e) => [e.seq, e]));
  const e = bySeq.get(seq);
  if (!e) return null;
  const same = (o) => o && o.time === e.time && (o.session_id ?? '') === (e.session_id ?? '');
  let from = seq;
  let to = seq;
  while (same(bySeq.get(from - 1))) from--;
  while (same(bySeq.get(to + 1))) to++;
  return { from, to };
}

const ACTIONS = { restore: 'put back as it was', delete: 'deleted (it did not exist before)', recreate: 'created again' };

/** One step of an undo plan for a person. */
export function undoStep(s) {
  return `${itemName(s)}: ${ACTIONS[s.action] ?? s.action}`;
}

/** An undo plan or result in one sentence. */
export function undoSummary(r) {
  const a = r?.applied?.length ?? 0;
  const s = r?.skipped?.length ?? 0;
  const items = (n) => `${n} item${n === 1 ? '' : 's'}`;
  const verb = r?.dry_run ? 'would put back' : 'put back';
  return `Undo ${verb} ${items(a)}${s ? `; ${items(s)} skipped, changed since by someone else` : ''}.`;
}
