// One graph as the page holds it: its nodes and edges by key, kept up to
// date by applying the live events of /ws in place (docs/api.md#websocket-ws)
// instead of reading the whole graph again. Nodes and edges are never
// modified: a change replaces the object, so a component can tell what
// changed by identity, and `version` counts the changes.
//
// The read and the events meet by seq: the socket is opened first, the
// graph read after, and only the events above the read's durable_seq are
// applied (an event carries the item's whole content, so one the read
// already showed would be harmless, but a deletion older than the read
// would not be).

export const edgeKey = (e) => `${e.from}\u0000${e.to}\u0000${e.rel}`;

/** The tiers a compacted event moves nodes to, by its list. */
const COMPACTED = { archived: 'archived', restored: 'active', orphaned: 'orphaned' };

/** Whether the full read shows an edge between ends of these tiers (docs/design/compaction.md#shown-edges). */
export function shownBetween(a, b) {
  if (a === 'orphaned' || b === 'orphaned') return false;
  if (a === 'active' || b === 'active') return true;
  return a === undefined && b === undefined;
}

/**
 * A change to the store, as the picture and the list need it: the ids of
 * nodes added, changed (content or tier) and removed, and the keys of edges
 * added and removed. `replace` means the graph must be read again.
 */
function emptyPatch() {
  return { nodesAdded: [], nodesChanged: [], nodesRemoved: [], edgesAdded: [], edgesRemoved: [], edgesChanged: [], replace: false };
}

export function patchIsEmpty(p) {
  return !p.replace && !p.nodesAdded.length && !p.nodesChanged.length && !p.nodesRemoved.length
    && !p.edgesAdded.length && !p.edgesRemoved.length && !p.edgesChanged.length;
}

export class GraphStore {
  /** @param {{level: string, projectPath?: string}} scope */
  constructor(scope) {
    this.scope = scope;
    this.nodes = new Map();
    this.edges = new Map();
    // Edge keys by end, so that deleting a node finds its edges at once.
    this.byEnd = new Map();
    this.meta = {};
    this.base = 0; // the read's durable seq: events at or below it are in the read
    this.version = 0;
    // shape counts the changes that add or remove a node or change its
    // tier: what the sorted node list depends on.
    this.shape = 0;
    this.loaded = false;
  }

  /** Replaces the content with a graph read ({nodes, edges, meta}). */
  load(g) {
    this.nodes = new Map(g.nodes.map((n) => [n.id, n]));
    this.edges = new Map();
    this.byEnd = new Map();
    for (const e of g.edges) this.putEdge(e);
    this.meta = g.meta ?? {};
    this.base = Math.max(this.meta.durable_seq ?? 0, this.meta.seq ?? 0) || 0;
    this.loaded = true;
    this.version++;
    this.shape++;
  }

  /** Whether an event of /ws is about this graph. */
  concerns(ev) {
    if (ev.level !== this.scope.level) return false;
    return this.scope.level === 'user' || ev.project === this.scope.projectPath;
  }

  nodeList() { return [...this.nodes.values()]; }
  edgeList() { return [...this.edges.values()]; }

  edgesOf(id) {
    const keys = this.byEnd.get(id);
    return keys ? [...keys].map((k) => this.edges.get(k)).filter(Boolean) : [];
  }

  putEdge(e) {
    const k = edgeKey(e);
    this.edges.set(k, e);
    for (const end of [e.from, e.to]) {
      let s = this.byEnd.get(end);
      if (!s) { s = new Set(); this.byEnd.set(end, s); }
      s.add(k);
    }
    return k;
  }

  dropEdge(k) {
    const e = this.edges.get(k);
    if (!e) return false;
    this.edges.delete(k);
    for (const end of [e.from, e.to]) {
      const s = this.byEnd.get(end);
      if (s) { s.delete(k); if (!s.size) this.byEnd.delete(end); }
    }
    return true;
  }

  setNode(n, patch) {
    const cur = this.nodes.get(n.id);
    // The same write heard twice (the page's own answer, then its event):
    // nothing to do.
    if (cur && typeof cur.seq === 'number' && cur.seq === n.seq && cur.version === n.version && cur.tier === n.tier) return;
    const had = !!cur;
    if (!had || cur.tier !== n.tier) this.shape++;
    this.nodes.set(n.id, n);
    (had ? patch.nodesChanged : patch.nodesAdded).push(n.id);
    // An edge's shown flag follows its ends' tiers.
    for (const e of this.edgesOf(n.id)) this.reshow(e, patch);
  }

  setTier(id, tier, patch) {
    const n = this.nodes.get(id);
    if (!n || n.tier === tier) return;
    const next = { ...n, tier, _archived: tier !== 'active' ? true : undefined };
    if (tier !== 'orphaned') delete next._orphaned_ts;
    this.setNode(next, patch);
  }

  reshow(e, patch) {
    const shown = shownBetween(this.nodes.get(e.from)?.tier, this.nodes.get(e.to)?.tier);
    if (e.shown === shown) return;
    const k = this.putEdge({ ...e, shown });
    patch.edgesChanged.push(k);
  }

  removeNode(id, patch) {
    if (!this.nodes.delete(id)) return;
    this.shape++;
    patch.nodesRemoved.push(id);
    for (const e of this.edgesOf(id)) {
      const k = edgeKey(e);
      if (this.dropEdge(k)) patch.edgesRemoved.push(k);
    }
  }

  /**
   * Applies one event of /ws and returns what changed (a patch), or null
   * when the event is not about this graph or is already in it.
   */
  apply(ev) {
    if (!this.loaded || !this.concerns(ev)) return null;
    if (typeof ev.seq === 'number' && ev.seq <= this.base) return null;
    const patch = emptyPatch();
    switch (ev.type) {
      case 'node_updated':
        if (ev.node) this.setNode(ev.node, patch);
        break;
      case 'node_recalled':
        if (ev.node) this.setNode(ev.node, patch);
        for (const id of ev.rescued ?? []) this.setTier(id, 'archived', patch);
        break;
      case 'edge_updated':
        if (ev.edge) {
          const k = edgeKey(ev.edge);
          const cur = this.edges.get(k);
          if (cur && typeof cur.seq === 'number' && cur.seq === ev.edge.seq && cur.version === ev.edge.version) break;
          const had = !!cur;
          this.putEdge({
            ...ev.edge,
            notes: ev.edge.notes ?? [],
            shown: shownBetween(this.nodes.get(ev.edge.from)?.tier, this.nodes.get(ev.edge.to)?.tier),
          });
          (had ? patch.edgesChanged : patch.edgesAdded).push(k);
        }
        break;
      case 'node_deleted':
        this.removeNode(ev.node_id, patch);
        break;
      case 'edge_deleted': {
        const k = edgeKey(ev);
        if (this.dropEdge(k)) patch.edgesRemoved.push(k);
        break;
      }
      case 'compacted':
        for (const [list, tier] of Object.entries(COMPACTED)) {
          for (const id of ev[list] ?? []) this.setTier(id, tier, patch);
        }
        for (const id of ev.deleted ?? []) this.removeNode(id, patch); // pruned, with its edges
        break;
      case 'graph_replaced': // too many changes to be told one by one
      case 'project_removed': // kg project rm: what is left is nothing
        patch.replace = true;
        break;
      default:
        return null;
    }
    if (patchIsEmpty(patch)) return null;
    this.version++;
    return patch;
  }

  /** Counts per tier and edges, as the graph read's stats give them. */
  counts() {
    const c = { active: 0, archived: 0, orphaned: 0, edges: this.edges.size };
    for (const n of this.nodes.values()) c[n.tier ?? 'active'] = (c[n.tier ?? 'active'] ?? 0) + 1;
    return c;
  }
}

/** Merges patches into one, in order (a burst of events applied at once). */
export function mergePatches(ps) {
  const out = emptyPatch();
  for (const p of ps) {
    out.replace ||= p.replace;
    for (const k of Object.keys(out)) if (Array.isArray(out[k])) out[k].push(...p[k]);
  }
  return out;
}
