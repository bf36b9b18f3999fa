// The REST API of kg (docs/api.md), as the page uses it. Every call is
// same-origin: with a token configured, the login cookie travels with it.

/** An error answer of the API: {detail, kind, field}. */
export class ApiError extends Error {
  constructor(status, body, text) {
    const detail = body?.detail ?? (text || `HTTP ${status}`);
    super(detail);
    this.status = status;
    this.kind = body?.kind ?? '';
    this.field = body?.field ?? '';
  }
}

/** kg did not answer at all (stopped, restarting, or the network is down). */
export class OfflineError extends Error {
  constructor(cause) {
    super('kg is not answering');
    this.cause = cause;
    this.offline = true;
  }
}

/** What to do when the server says the login is gone; set by the app. */
let onUnauthorized = () => window.location.assign('/ui/');
export function setUnauthorizedHandler(fn) { onUnauthorized = fn; }

async function call(method, path, { query, body, raw } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  }
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (raw !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = raw;
  } else if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url, init);
  } catch (e) {
    throw new OfflineError(e);
  }
  let text;
  try {
    text = await res.text();
  } catch (e) {
    throw new OfflineError(e);
  }
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (res.status === 401) onUnauthorized();
  if (!res.ok) throw new ApiError(res.status, data, text);
  return data;
}

const enc = encodeURIComponent;

/** A scope names one graph: {level: 'user'} or {level: 'project', projectPath}. */
export const scopeQuery = (scope) => ({
  level: scope.level,
  project_path: scope.level === 'project' ? scope.projectPath : undefined,
});

export const scopeKey = (s) => (s.level === 'user' ? 'user' : `project:${s.projectPath}`);

/** The scope of an event, a hit or a sync report: {level, project}. */
export const scopeOf = (level, project) => (level === 'project' && project ? { level: 'project', projectPath: project } : { level: 'user' });

const list = (v, key) => (Array.isArray(v) ? v : Array.isArray(v?.[key]) ? v[key] : []);

/** Normalises one graph of /api/graph/read to {nodes, edges, meta}. */
function graphOf(g) {
  if (!g) return { nodes: [], edges: [], meta: {} };
  const nodes = Array.isArray(g.nodes) ? g.nodes : Object.values(g.nodes ?? {});
  const edges = Array.isArray(g.edges) ? g.edges : Object.values(g.edges ?? {});
  return {
    nodes,
    edges: edges.map((e) => ({ ...e, notes: e.notes ?? [] })),
    meta: {
      stats: g.stats, tokens: g.tokens, max_tokens: g.max_tokens, target_tokens: g.target_tokens,
      seq: g.seq, durable_seq: g.durable_seq,
    },
  };
}

function hitOf(h, scope) {
  const node = h.node ?? h;
  return {
    ...node,
    id: node.id ?? h.id,
    score: h.score,
    level: h.level ?? scope?.level ?? 'user',
    project: h.project ?? (scope?.level === 'project' ? scope.projectPath : null),
    // The query terms this node matched, a corrected term as the word used.
    matched: Array.isArray(h.matched) ? h.matched : [],
  };
}

function searchOf(data, scope) {
  return {
    hits: list(data, 'hits').map((h) => hitOf(h, scope)),
    corrections: Array.isArray(data?.corrections) ? data.corrections : [],
    // With no hits, the nearest spelling of each term that matched nothing.
    nearest: Array.isArray(data?.nearest) ? data.nearest : [],
    unavailable: Array.isArray(data?.unavailable) ? data.unavailable : [],
  };
}

export const api = {
  async projects() {
    return list(await call('GET', '/api/projects'), 'projects');
  },
  /** The graph of scope, every tier, with its counts and token figures. */
  async graph(scope) {
    const data = await call('GET', '/api/graph/read', {
      query: { project_path: scope.level === 'project' ? scope.projectPath : undefined },
    });
    const g = scope.level === 'project' ? data?.project : data?.user;
    // A graph that cannot be loaded comes back empty, with the reason: show
    // the reason, not an empty graph (docs/design/storage.md#loading-and-damage).
    if (g?.unavailable) throw new ApiError(503, { detail: g.unavailable, kind: 'unavailable' });
    return graphOf(g);
  },
  /** One box over every graph: the user graph and every project (scope=all). */
  async searchAll(q, limit = 50) {
    return searchOf(await call('GET', '/api/search', { query: { q, scope: 'all', limit } }), null);
  },
  /** A search of one graph (the list's filter). */
  async searchGraph(scope, q, limit = 100) {
    return searchOf(await call('GET', '/api/search', { query: { q, ...scopeQuery(scope), limit } }), scope);
  },
  plan(scope) {
    return call('GET', '/api/compaction/plan', { query: scopeQuery(scope) });
  },
  /** Creates (expectedVersion 0) or updates (the version read) a node; undefined: last write wins. */
  putNode(scope, { id, gist, notes, touches }, expectedVersion) {
    return call('POST', '/api/nodes', {
      body: { ...scopeQuery(scope), id, gist, notes, touches, expected_version: expectedVersion },
    });
  },
  deleteNode(scope, id, sessionID) {
    return call('DELETE', `/api/nodes/${enc(scope.level)}/${enc(id)}`, {
      query: { project_path: scopeQuery(scope).project_path, session_id: sessionID },
    });
  },
  /** One compaction run of the graph now (POST /api/compaction/run): the moves made. */
  compact(scope) {
    return call('POST', '/api/compaction/run', { query: scopeQuery(scope) });
  },
  /** The graph as a kg-graph document (GET /api/export), parsed. */
  exportDoc(scope) {
    return call('GET', '/api/export', { query: scopeQuery(scope) });
  },
  /** Reads a node by id: an archived or orphaned node becomes active. */
  recall(scope, id) {
    return call('GET', `/api/nodes/${enc(scope.level)}/${enc(id)}`, {
      query: { project_path: scopeQuery(scope).project_path },
    });
  },
  /**
   * Merges node `from` into node `into` (POST /api/nodes/merge); dryRun
   * says what it would do. The versions are those the person looked at.
   */
  mergeNodes(scope, { into, from, gist, intoVersion, fromVersion, sessionID }, dryRun) {
    return call('POST', '/api/nodes/merge', {
      body: {
        ...scopeQuery(scope), into, from, gist: gist || undefined, session_id: sessionID,
        into_version: intoVersion, from_version: fromVersion, dry_run: dryRun,
      },
    });
  },
  /** The change log (GET /api/history): of a node (id) or a session (sessionID), or of the last duration (since: '24h'), newest first. */
  history(scope, { id, sessionID, since, sinceSeq, beforeSeq, limit = 50 }) {
    return call('GET', '/api/history', {
      query: { ...scopeQuery(scope), id, session_id: sessionID, since, since_seq: sinceSeq, before_seq: beforeSeq, limit },
    });
  },
  /** Moves the nodes ids to the archived tier as one write of session sessionID (POST /api/nodes/archive). */
  archiveNodes(scope, ids, sessionID) {
    return call('POST', '/api/nodes/archive', { body: { ...scopeQuery(scope), ids, session_id: sessionID } });
  },
  /** Undoes a session's changes or a seq range (POST /api/undo); dryRun gives the plan. */
  undo(scope, { sessionID, seqRange }, dryRun) {
    return call('POST', '/api/undo', {
      body: { ...scopeQuery(scope), session_id: sessionID, seq_range: seqRange, dry_run: dryRun },
    });
  },
  putEdge(scope, { from, to, rel, notes }) {
    return call('POST', '/api/edges', { body: { ...scopeQuery(scope), from, to, rel, notes } });
  },
  deleteEdge(scope, { from, to, rel }) {
    return call('DELETE', '/api/edges', { query: { ...scopeQuery(scope), from, to, rel } });
  },
  /** What of one graph needs a person (GET /api/attention): stale, duplicates, secrets, the budget's edge. */
  attention(scope) {
    return call('GET', '/api/attention', { query: scopeQuery(scope) });
  },
  /** What kg knows of a live session (GET /api/sessions/{id}/stats): its project_path, started_at. */
  sessionStats(id) {
    return call('GET', `/api/sessions/${enc(id)}/stats`);
  },
  /** A session of the page's own, bound to a project or to none. */
  registerSession(projectPath) {
    return call('POST', '/api/sessions/register', { query: { project_path: projectPath } });
  },
  sync(sessionID) {
    return call('POST', '/api/sync', { body: { session_id: sessionID } });
  },
  /** The address that downloads one graph as a document (GET /api/export). */
  exportURL(scope) {
    const u = new URL('/api/export', window.location.origin);
    for (const [k, v] of Object.entries(scopeQuery(scope))) if (v) u.searchParams.set(k, v);
    return u.toString();
  },
  /** Imports a document (its text) into scope; mode merge or replace. */
  import(scope, text, mode) {
    return call('POST', '/api/import', { query: { mode, ...scopeQuery(scope) }, raw: text });
  },
};
