// The home view's latest changes: who changed what, in which graph, and what
// each compaction run moved. Entries come from sources, each of which can
// be replaced without touching the view:
//
//   - LiveEvents: the /ws events the page hears while it is open (every
//     graph: the page's socket has scope=all);
//   - SyncSessions: POST /api/sync through sessions of the page's own, one
//     per graph, which report what changed since the page last asked — so a
//     change made while the page was closed or disconnected is listed too.
//
// A source is {start(feed), refresh(graphs), stop()}; it hands entries to
// feed.add. The change log (GET /api/history: daylog.js) is one more
// source of the same shape, and takes the place of SyncSessions on a server
// that keeps one.
//
// An entry: {key, ts (seconds), level, project, session (or null), kind, ...}
// with kind node | edge | deleted_node | deleted_edge | recalled | compacted
// | replaced | removed; a key names one change, so the same change heard twice (an
// event and a sync) is listed once.

import { scopeKey, scopeOf } from './api.js';

const KEEP = 300;
const WHY_KEPT = 50;
const STORE_KEY = 'kg.changes.v1';
const SESSIONS_KEY = 'kg.page-sessions.v1';

const now = () => Date.now() / 1000;

function storage() {
  try { return window.localStorage; } catch { return null; }
}

function load(key, fallback) {
  try { return JSON.parse(storage()?.getItem(key) ?? '') ?? fallback; } catch { return fallback; }
}

function save(key, v) {
  try { storage()?.setItem(key, JSON.stringify(v)); } catch { /* full or disabled: kept in memory only */ }
}

const graphKey = (level, project) => scopeKey(scopeOf(level, project));

/** The entries of one /ws event, or none. */
export function entriesOfEvent(ev) {
  const base = { level: ev.level, project: ev.project ?? null, session: ev.source_session ?? null, seq: ev.seq };
  const key = (what) => `${graphKey(ev.level, ev.project)}|${ev.seq}|${what}`;
  switch (ev.type) {
    case 'node_updated':
      return [{ ...base, key: key('n'), kind: 'node', id: ev.node.id, gist: ev.node.gist ?? '', ts: ev.node.updated_ts ?? now(), version: ev.node.version }];
    case 'node_recalled':
      return [{ ...base, key: key('n'), kind: 'recalled', id: ev.node.id, rescued: ev.rescued ?? [], ts: now() }];
    case 'edge_updated':
      return [{ ...base, key: key('n'), kind: 'edge', edge: pickEdge(ev.edge), ts: ev.edge.updated_ts ?? now() }];
    case 'node_deleted':
      return [{ ...base, key: key('n'), kind: 'deleted_node', id: ev.node_id, edges: ev.edges_deleted ?? 0, ts: now() }];
    case 'edge_deleted':
      return [{ ...base, key: key('n'), kind: 'deleted_edge', edge: pickEdge(ev), ts: now() }];
    case 'compacted':
      // A person's archive (POST /api/nodes/archive) is heard as moves of
      // pass by-hand: it is no compaction run.
      if (ev.moves?.length && ev.moves.every((m) => m.pass === 'by-hand')) {
        return [{ ...base, key: key('c'), kind: 'archived', ids: ev.archived ?? [], ts: now() }];
      }
      return [{
        ...base, key: key('c'), kind: 'compacted', ts: now(),
        moves: { archived: ev.archived ?? [], restored: ev.restored ?? [], orphaned: ev.orphaned ?? [], deleted: ev.deleted ?? [] },
        // Why: each move with its reason, the first WHY_KEPT of them (kept in the browser).
        why: (ev.moves ?? []).slice(0, WHY_KEPT).map(({ id, from, to, reason }) => ({ id, from, to, reason })),
      }];
    case 'graph_replaced':
      return [{ ...base, key: key('r'), kind: 'replaced', count: ev.changes ?? 0, ts: now() }];
    case 'project_removed':
      return [{ ...base, key: key('x'), kind: 'removed', nodes: ev.nodes_removed ?? 0, edges: ev.edges_removed ?? 0, ts: now() }];
    default:
      return [];
  }
}

const pickEdge = (e) => ({ from: e.from, to: e.to, rel: e.rel });

/** The entries of one graph's part of a /api/sync answer. */
export function entriesOfSync(g, { counts = true } = {}) {
  if (!g || g.unavailable) return [];
  const out = [];
  for (const c of g.changes ?? []) {
    const base = { level: g.level, project: g.project ?? null, session: c.source_session ?? null, seq: c.seq, ts: c.ts ?? now() };
    const key = `${graphKey(g.level, g.project)}|${c.seq}|n`;
    if (c.kind === 'node') out.push({ ...base, key, kind: 'node', id: c.node.id, version: c.node.version });
    else if (c.kind === 'edge') out.push({ ...base, key, kind: 'edge', edge: pickEdge(c.edge) });
    else if (c.kind === 'deleted_node') out.push({ ...base, key, kind: 'deleted_node', id: c.id });
    else if (c.kind === 'deleted_edge') out.push({ ...base, key, kind: 'deleted_edge', edge: pickEdge(c) });
  }
  const moved = (g.archived ?? 0) + (g.restored ?? 0) + (g.orphaned ?? 0) + (g.pruned ?? 0);
  if (moved && counts) {
    const last = Math.max(0, ...(g.changes ?? []).map((c) => c.seq));
    out.push({
      level: g.level, project: g.project ?? null, session: null, ts: now(), kind: 'compacted',
      key: `${graphKey(g.level, g.project)}|sync-compaction|${last}|${now()}`,
      counts: { archived: g.archived ?? 0, restored: g.restored ?? 0, orphaned: g.orphaned ?? 0, deleted: g.pruned ?? 0 },
    });
  }
  return out;
}

/** The entries shown, newest first, from every source, kept across reloads. */
export class HistoryFeed {
  constructor(sources = []) {
    this.sources = sources;
    this.list = load(STORE_KEY, []).filter((e) => e && e.key);
    this.keys = new Set(this.list.map((e) => e.key));
    this.listeners = new Set();
  }

  start() { for (const s of this.sources) s.start?.(this); }
  stop() { for (const s of this.sources) s.stop?.(); }
  /** The live connection opened (true) or was lost (false): the sources that catch up need to know. */
  connected(on) { for (const s of this.sources) s.connected?.(on); }
  refresh(graphs) { return Promise.all(this.sources.map((s) => s.refresh?.(graphs))); }

  /** Adds entries not listed yet. */
  add(entries) {
    let added = 0;
    for (const e of entries) {
      if (this.keys.has(e.key)) continue;
      this.keys.add(e.key);
      this.list.push(e);
      added++;
    }
    if (!added) return;
    this.list.sort((a, b) => b.ts - a.ts || (b.seq ?? 0) - (a.seq ?? 0));
    if (this.list.length > KEEP) {
      for (const e of this.list.splice(KEEP)) this.keys.delete(e.key);
    }
    save(STORE_KEY, this.list);
    for (const fn of this.listeners) fn(this.list);
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

/** Entries from the live events; the app hands it each event it hears. */
export class LiveEvents {
  start(feed) { this.feed = feed; }
  stop() { this.feed = null; }
  event(ev) { this.feed?.add(entriesOfEvent(ev)); }
}

/**
 * Entries from POST /api/sync through the page's own sessions: one without a
 * project (the user graph) and one per project, kept in localStorage so that
 * the next visit hears what changed in between. An expired session is
 * replaced.
 */
export class SyncSessions {
  constructor(api) {
    this.api = api;
    this.sessions = load(SESSIONS_KEY, {});
    this.busy = null;
    // Whether the live events may have missed something since each graph's
    // last sync: at first (the page was closed), and after a lost
    // connection. Items are listed once anyway (by key); a compaction run
    // comes from sync only as counts, so those are kept only for a gap.
    this.gap = new Set(['*']);
  }

  start(feed) { this.feed = feed; }
  stop() { this.feed = null; }
  connected(on) { if (!on) this.gap.add('*'); }

  /** graphs: the scopes to ask about ({level, projectPath}). */
  refresh(graphs) {
    if (this.busy) return this.busy;
    this.busy = this.poll(graphs).finally(() => { this.busy = null; });
    return this.busy;
  }

  async poll(graphs) {
    if (this.gap.has('*')) { for (const g of graphs) this.gap.add(scopeKey(g)); this.gap.delete('*'); }
    for (const g of graphs) {
      const k = scopeKey(g);
      try {
        const res = await this.syncOnce(k, g);
        // A session registered just now starts after the live socket
        // opened: the events tell everything from here on, so a run's counts
        // reported later would list it twice.
        if (!res) { this.gap.delete(k); continue; }
        // A project's session reports the user graph too; the user graph's
        // own session does that.
        const part = g.level === 'project' ? res.project : res.user;
        this.feed?.add(entriesOfSync(part, { counts: this.gap.has('*') || this.gap.has(k) }));
        this.gap.delete(k);
      } catch {
        // kg not answering, or this graph cannot be read: asked again at
        // the next refresh.
      }
    }
  }

  async syncOnce(k, g) {
    let sid = this.sessions[k];
    if (!sid) {
      const s = await this.api.registerSession(g.level === 'project' ? g.projectPath : undefined);
      sid = s.session_id;
      this.sessions[k] = sid;
      save(SESSIONS_KEY, this.sessions);
      return null; // a new session starts now: nothing to report yet
    }
    try {
      return await this.api.sync(sid);
    } catch (e) {
      if (e?.kind === 'not_found') { // expired: start again
        delete this.sessions[k];
        save(SESSIONS_KEY, this.sessions);
        return this.syncOnce(k, g);
      }
      throw e;
    }
  }
}
