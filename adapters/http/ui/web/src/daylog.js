// The home view's day from the change log (GET /api/history?since=24h,
// docs/design/http.md#the-last-24-hours): what every graph's log holds of the
// last 24 hours, on any visit — a fresh browser included — and then what
// each graph's log gained since (since_seq). It takes the place of the
// page's own sync sessions (history.js SyncSessions), which only know what
// changed since this browser's last visit; on a server that keeps no change
// log it hands over to them.
//
// Entries are the feed's (history.js): a node or edge change keyed by its
// graph and seq, as the live event of the same change is, so a change heard
// live and read from the log is listed once; a compaction run (consecutive
// moves of one write) keyed by its last seq, as the live `compacted` event;
// so is a person's archive (the archive entries of one write).

import { scopeKey } from './api.js';
import { historyUnavailable } from './changelog.js';

/** How far back a first read goes: the day a person catches up on. */
export const DAY = '24h';
export const DAY_SECONDS = 86400;
/** Entries read per graph and read (the API's limit). */
const PAGE = 500;

const secondsOf = (time) => {
  const ms = Date.parse(time);
  return Number.isFinite(ms) ? ms / 1000 : 0;
};

const TO = { archived: 'archived', orphaned: 'orphaned', deleted: 'deleted', active: 'restored' };

/** Whether b continues the write a began: consecutive seq, same time and session. */
const sameWrite = (a, b) => a && b && b.seq === a.seq + 1 && a.time === b.time && (a.session_id ?? '') === (b.session_id ?? '');

/**
 * The feed entries of one graph's change log (entries in any order), oldest
 * first: one per node or edge change, one per compaction run, one per
 * change of the whole graph (an import with replace, a project move).
 */
export function entriesOfLog(entries, scope) {
  const level = scope.level;
  const project = level === 'project' ? scope.projectPath : null;
  const gk = scopeKey(scope);
  const list = [...(entries ?? [])].sort((a, b) => a.seq - b.seq);
  const out = [];
  let run = null; // the compaction run being gathered
  for (let i = 0; i < list.length; i++) {
    const e = list[i];
    const base = {
      level, project, session: e.session_id || null, principal: e.principal || '', seq: e.seq, ts: secondsOf(e.time),
    };
    if (e.op === 'move' || e.op === 'archive') {
      if (!run || !sameWrite(list[i - 1], e) || list[i - 1].op !== e.op) {
        // A person's archive is one entry of its own, as its live event is (history.js).
        run = e.op === 'archive'
          ? { ...base, kind: 'archived', ids: [] }
          : { ...base, kind: 'compacted', moves: { archived: [], restored: [], orphaned: [], deleted: [] } };
        out.push(run);
      }
      run.seq = e.seq;
      run.key = `${gk}|${e.seq}|c`;
      if (e.op === 'archive') run.ids.push(e.id);
      else run.moves[TO[e.tier?.to] ?? 'archived'].push(e.id);
      continue;
    }
    run = null;
    const entry = entryOf(e, list[i + 1]);
    if (entry) out.push({ ...base, key: `${gk}|${e.seq}|n`, ...entry });
  }
  // A node's deletion takes its edges with it in one write; the log holds
  // one entry each, the feed one line, as the live event gives it.
  return foldDeletedEdges(out);
}

function entryOf(e, next) {
  const edge = e.edge ? { from: e.edge.from, to: e.edge.to, rel: e.edge.rel } : null;
  switch (e.op) {
    case 'put':
      if (e.item === 'edge') return { kind: 'edge', edge };
      return { kind: 'node', id: e.id, version: e.after?.version, gist: e.after?.gist ?? '', created: !e.before };
    case 'delete':
      if (e.item === 'edge') {
        const partOf = next && next.op === 'delete' && next.item === 'node' && sameWrite(e, next) && edge && (edge.from === next.id || edge.to === next.id);
        return { kind: 'deleted_edge', edge, partOf: partOf ? next.seq : undefined };
      }
      return { kind: 'deleted_node', id: e.id, edges: 0 };
    case 'undo':
      return { kind: 'undone', item: e.item, id: e.id, edge };
    case 'import_replace':
      return { kind: 'replaced', count: e.items?.length ?? 0 };
    default:
      return { kind: 'graph', op: e.op, detail: e.detail ?? '' };
  }
}

function foldDeletedEdges(out) {
  const bySeq = new Map(out.map((x) => [x.seq, x]));
  const kept = [];
  for (const x of out) {
    if (x.kind === 'deleted_edge' && x.partOf !== undefined) {
      const node = bySeq.get(x.partOf);
      // An edge deleted with a node comes just before it: count it there.
      for (let s = x.seq + 1; node && s <= x.partOf; s++) {
        const y = bySeq.get(s);
        if (y?.kind === 'deleted_node') { y.edges++; break; }
      }
      if (node) continue;
    }
    delete x.partOf;
    kept.push(x);
  }
  return kept;
}

/**
 * A feed source (history.js) reading the change log of every graph shown
 * on the home view. fallback: the sources to use instead when the server
 * keeps no change log.
 */
export class ChangeLogSource {
  constructor(api, fallback = []) {
    this.api = api;
    this.fallback = fallback;
    this.mode = 'log'; // or 'fallback'
    this.last = new Map(); // graph key → the highest seq read
    this.busy = null;
  }

  start(feed) { this.feed = feed; }

  stop() {
    this.feed = null;
    for (const s of this.fallback) s.stop?.();
  }

  connected(on) {
    if (this.mode === 'fallback') for (const s of this.fallback) s.connected?.(on);
  }

  /** graphs: the scopes to read ({level, projectPath}). */
  refresh(graphs) {
    if (this.busy) return this.busy;
    this.busy = this.poll(graphs).finally(() => { this.busy = null; });
    return this.busy;
  }

  async poll(graphs) {
    if (this.mode === 'fallback') {
      await Promise.all(this.fallback.map((s) => s.refresh?.(graphs)));
      return;
    }
    for (const g of graphs) {
      const k = scopeKey(g);
      let answer;
      try {
        answer = await this.api.history(g, this.last.has(k) ? { sinceSeq: this.last.get(k), limit: PAGE } : { since: DAY, limit: PAGE });
      } catch (err) {
        if (historyUnavailable(err)) { await this.handOver(graphs); return; }
        continue; // not answering, or this graph cannot be read: asked again at the next refresh
      }
      const entries = answer?.entries ?? [];
      if (!entries.length) continue;
      this.last.set(k, Math.max(this.last.get(k) ?? 0, ...entries.map((e) => e.seq)));
      this.feed?.add(entriesOfLog(entries, g));
    }
  }

  async handOver(graphs) {
    this.mode = 'fallback';
    for (const s of this.fallback) s.start?.(this.feed);
    await Promise.all(this.fallback.map((s) => s.refresh?.(graphs)));
  }
}

/** The entries of the last day, newest first (the feed keeps them so). */
export function lastDay(list, now = Date.now() / 1000) {
  return list.filter((e) => e.ts >= now - DAY_SECONDS);
}
