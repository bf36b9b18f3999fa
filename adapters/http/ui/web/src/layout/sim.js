// The force-directed layout of one graph, kept warm between changes: a
// d3-force simulation that is reset when another graph is shown and patched
// when the graph changes (nodes and links added or removed), so a live
// update moves little. It runs in the layout worker (worker.js), or in the
// page when workers are not available; it knows nothing of either.
//
// d3-force's random source is seeded, so the same graph gives the same
// picture. The simulation never runs on a timer: it is stepped in chunks by
// its host (step), which posts the positions after each.
import { forceSimulation, forceLink, forceManyBody, forceCollide, forceX, forceY } from 'd3-force';

/** Steps of a cold start, by graph size: bigger graphs settle with fewer. */
export function coldSteps(n) {
  if (n > 2000) return 160;
  if (n > 600) return 220;
  return 300;
}

/** Steps of a warm change: a few, at a low temperature, so little moves. */
export const WARM_STEPS = 60;
const WARM_ALPHA = 0.08;
/** A change of more new nodes than this warms the whole layout instead. */
const LOCAL_MAX = 200;
const LOCAL_STEPS = 80;

export class Sim {
  constructor() {
    this.nodes = [];
    this.index = new Map();
    this.links = new Map(); // key -> {source, target} (ids until the link force resolves them)
    this.left = 0; // steps still to run
    this.sim = forceSimulation([])
      .force('link', forceLink([]).id((n) => n.id).distance(60).strength(0.4))
      .force('charge', forceManyBody().strength(-140).distanceMax(400).theta(0.95))
      .force('collide', forceCollide(16).iterations(1))
      .force('x', forceX(0).strength(0.05))
      .force('y', forceY(0).strength(0.05))
      .stop();
  }

  /** The ids in the order of the positions step returns; changes on reset and patch. */
  order() { return this.nodes.map((n) => n.id); }

  /**
   * Replaces the graph. vertices: [{id, x?, y?, pinned?}] (positions kept
   * from the picture drawn before, if any); links: [[key, from, to]].
   */
  reset(vertices, links) {
    this.nodes = vertices.map((v) => {
      const n = { id: v.id };
      if (Number.isFinite(v.x)) { n.x = v.x; n.y = v.y; }
      if (v.pinned) { n.fx = v.x; n.fy = v.y; }
      return n;
    });
    this.index = new Map(this.nodes.map((n) => [n.id, n]));
    this.links = new Map(links.map(([k, s, t]) => [k, { source: s, target: t }]));
    this.placeNew(this.nodes.filter((n) => n.x === undefined));
    const placed = vertices.filter((v) => Number.isFinite(v.x)).length;
    this.rebind();
    if (placed > this.nodes.length / 2) {
      this.sim.alpha(0.3);
      this.left = Math.ceil(coldSteps(this.nodes.length) / 2);
    } else {
      this.sim.alpha(1);
      this.left = coldSteps(this.nodes.length);
    }
  }

  /**
   * Applies a change: add [{id, x?, y?}], remove [id], addLinks [[key,
   * from, to]], removeLinks [key]. New nodes start beside a placed
   * neighbour. When the layout is at rest, only the new nodes move: they
   * settle among their neighbours in a small simulation of their own, so an
   * agent's write never shifts the rest of the picture; the ids moved are
   * returned (null: a global warm-up runs instead, as for a large change).
   */
  patch({ add = [], remove = [], addLinks = [], removeLinks = [] }) {
    for (const id of remove) this.index.delete(id);
    if (remove.length) this.nodes = this.nodes.filter((n) => this.index.has(n.id));
    for (const k of removeLinks) this.links.delete(k);
    for (const [k, s, t] of addLinks) this.links.set(k, { source: s, target: t });
    const fresh = [];
    for (const v of add) {
      if (this.index.has(v.id)) continue;
      const n = { id: v.id };
      if (Number.isFinite(v.x)) { n.x = v.x; n.y = v.y; }
      this.nodes.push(n);
      this.index.set(n.id, n);
      fresh.push(n);
    }
    this.placeNew(fresh.filter((n) => n.x === undefined));
    this.rebind();
    if (this.left > 0 || fresh.length > LOCAL_MAX) {
      this.sim.alpha(Math.max(this.sim.alpha(), WARM_ALPHA));
      this.left = Math.max(this.left, WARM_STEPS);
      return null;
    }
    return this.settleLocally(fresh);
  }

  /** Lets the nodes given find their place among their neighbours, which stay put. */
  settleLocally(fresh) {
    if (!fresh.length) return [];
    const moving = new Set(fresh.map((n) => n.id));
    const around = new Map();
    const links = [];
    for (const l of this.links.values()) {
      const s = typeof l.source === 'object' ? l.source.id : l.source;
      const t = typeof l.target === 'object' ? l.target.id : l.target;
      if (s === t || !(moving.has(s) || moving.has(t))) continue;
      for (const id of [s, t]) {
        const n = this.index.get(id);
        if (n && !around.has(id)) around.set(id, n);
      }
      if (this.index.has(s) && this.index.has(t)) links.push({ source: s, target: t });
    }
    for (const n of fresh) around.set(n.id, n);
    // Copies: the neighbours are fixed where they are.
    const local = [...around.values()].map((n) => (moving.has(n.id)
      ? { id: n.id, x: n.x, y: n.y }
      : { id: n.id, x: n.x, y: n.y, fx: n.x, fy: n.y }));
    const byId = new Map(local.map((n) => [n.id, n]));
    // Nodes near the newcomers push them away, so they do not land on them.
    const near = [];
    const r2 = 90 * 90;
    for (const n of this.nodes) {
      if (byId.has(n.id) || n.x === undefined) continue;
      for (const f of fresh) {
        if (f.x !== undefined && (n.x - f.x) ** 2 + (n.y - f.y) ** 2 < r2) { near.push({ id: n.id, x: n.x, y: n.y, fx: n.x, fy: n.y }); break; }
      }
    }
    const sub = forceSimulation([...local, ...near])
      .force('link', forceLink(links).id((n) => n.id).distance(60).strength(0.4))
      .force('charge', forceManyBody().strength(-140).distanceMax(200))
      .force('collide', forceCollide(16))
      .stop();
    sub.tick(LOCAL_STEPS);
    for (const n of fresh) {
      const m = byId.get(n.id);
      n.x = m.x; n.y = m.y; n.vx = 0; n.vy = 0;
    }
    return [...moving];
  }

  /** Pins a node where it was dropped (fx, fy), or frees it (x null). */
  pin(id, x, y) {
    const n = this.index.get(id);
    if (!n) return;
    if (x === null) {
      n.fx = null; n.fy = null;
    } else {
      n.fx = x; n.fy = y; n.x = x; n.y = y;
    }
  }

  /** Places nodes without a position beside a placed neighbour, or near the centre. */
  placeNew(fresh) {
    if (!fresh.length) return;
    const want = new Set(fresh.map((n) => n.id));
    for (const l of this.links.values()) {
      const s = typeof l.source === 'object' ? l.source.id : l.source;
      const t = typeof l.target === 'object' ? l.target.id : l.target;
      const a = this.index.get(s);
      const b = this.index.get(t);
      if (!a || !b) continue;
      if (want.has(a.id) && a.x === undefined && b.x !== undefined) { a.x = b.x + 14; a.y = b.y + 14; }
      if (want.has(b.id) && b.x === undefined && a.x !== undefined) { b.x = a.x - 14; b.y = a.y + 14; }
    }
    // The others are left to d3-force's phyllotaxis start.
  }

  /** Hands the current nodes and links to the forces. */
  rebind() {
    this.sim.nodes(this.nodes);
    const links = [];
    for (const l of this.links.values()) {
      const s = typeof l.source === 'object' ? l.source.id : l.source;
      const t = typeof l.target === 'object' ? l.target.id : l.target;
      if (this.index.has(s) && this.index.has(t) && s !== t) links.push({ source: s, target: t });
    }
    this.sim.force('link').links(links);
  }

  /** Runs up to max steps of what is left; reports whether the layout is at rest. */
  step(max) {
    const n = Math.min(max, this.left);
    if (n > 0) this.sim.tick(n);
    this.left -= n;
    return this.left <= 0;
  }

  /** The positions, [x0, y0, x1, y1, …] in order(), or of the ids given. */
  positions(ids = null) {
    const nodes = ids ? ids.map((id) => this.index.get(id)).filter(Boolean) : this.nodes;
    const xy = new Float32Array(nodes.length * 2);
    for (let i = 0; i < nodes.length; i++) {
      xy[2 * i] = nodes[i].x;
      xy[2 * i + 1] = nodes[i].y;
    }
    return { xy, ids: ids ? nodes.map((n) => n.id) : null };
  }
}
