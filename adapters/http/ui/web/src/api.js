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

/** What to do when the server says the login is gone; set by the app. */
let onUnauthorized = () => window.location.assign('/ui/');
export function setUnauthorizedHandler(fn) { onUnauthorized = fn; }

async function call(method, path, { query, body } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  }
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(url, init);
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (res.status === 401) onUnauthorized();
  if (!res.ok) throw new ApiError(res.status, data, text);
  return data;
}

const enc = encodeURIComponent;

/** A scope names one graph: {level: 'user'} or {level: 'project', projectPath}. */
const scopeQuery = (scope) => ({
  level: scope.level,
  project_path: scope.level === 'project' ? scope.projectPath : undefined,
});

const list = (v, key) => (Array.isArray(v) ? v : Array.isArray(v?.[key]) ? v[key] : v && typeof v === 'object' ? Object.values(v[key] ?? {}) : []);

/** Normalises one graph of /api/graph/read to {nodes: [...], edges: [...]}. */
function graphOf(g) {
  if (!g) return { nodes: [], edges: [] };
  const nodes = Array.isArray(g.nodes) ? g.nodes : Object.values(g.nodes ?? {});
  const edges = Array.isArray(g.edges) ? g.edges : Object.values(g.edges ?? {});
  return { nodes, edges: edges.map((e) => ({ ...e, notes: e.notes ?? [] })) };
}

export const api = {
  async projects() {
    return list(await call('GET', '/api/projects'), 'projects');
  },
  /** The graph of scope, every tier. */
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
  async search(scope, q) {
    const data = await call('GET', '/api/search', { query: { q, ...scopeQuery(scope), limit: 50 } });
    return list(data, 'hits').map((h) => {
      const node = h.node ?? h;
      return { ...node, id: node.id ?? h.id, score: h.score, level: h.level ?? scope.level };
    });
  },
  plan(scope) {
    return call('GET', '/api/compaction/plan', { query: scopeQuery(scope) });
  },
  /** Creates (expectedVersion 0) or updates (the version read) a node. */
  putNode(scope, { id, gist, notes, touches }, expectedVersion) {
    return call('POST', '/api/nodes', {
      body: { ...scopeQuery(scope), id, gist, notes, touches, expected_version: expectedVersion },
    });
  },
  deleteNode(scope, id) {
    return call('DELETE', `/api/nodes/${enc(scope.level)}/${enc(id)}`, {
      query: { project_path: scopeQuery(scope).project_path },
    });
  },
  /** Reads a node by id: an archived or orphaned node becomes active. */
  recall(scope, id) {
    return call('GET', `/api/nodes/${enc(scope.level)}/${enc(id)}`, {
      query: { project_path: scopeQuery(scope).project_path },
    });
  },
  putEdge(scope, { from, to, rel, notes }) {
    return call('POST', '/api/edges', { body: { ...scopeQuery(scope), from, to, rel, notes } });
  },
  deleteEdge(scope, { from, to, rel }) {
    return call('DELETE', '/api/edges', { query: { ...scopeQuery(scope), from, to, rel } });
  },
};
