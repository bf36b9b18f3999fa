// The page's side of the layout: it hands the graph to the layout worker
// (worker.js) and receives positions as the simulation settles, keeping the
// latest position of every vertex. Where workers are not available the
// same simulation runs here, in chunks between frames.
import { Sim } from './sim.js';

/* The worker's file name, hashed by the build (build.mjs). */
/* global KG_LAYOUT_WORKER */
const WORKER_FILE = typeof KG_LAYOUT_WORKER === 'string' ? KG_LAYOUT_WORKER : '';

function startWorker() {
  if (!WORKER_FILE || typeof Worker === 'undefined') return null;
  try {
    return new Worker(new URL(WORKER_FILE, import.meta.url));
  } catch {
    return null;
  }
}

/** Runs sim.js on this thread, with the worker's messages. */
class LocalWorker {
  constructor() {
    this.sim = new Sim();
    this.onmessage = null;
    this.timer = 0;
    this.gen = 0;
    this.orderSent = false;
  }

  postMessage(m) {
    this.gen = m.gen ?? this.gen;
    if (m.type === 'reset') { this.sim.reset(m.vertices, m.links); this.orderSent = false; }
    if (m.type === 'pin') { this.sim.pin(m.id, m.x, m.y); return; }
    if (m.type === 'patch') {
      if (m.add?.length || m.remove?.length) this.orderSent = false;
      const moved = this.sim.patch(m);
      if (moved) {
        const { xy, ids } = this.sim.positions(moved);
        setTimeout(() => this.onmessage?.({ data: { type: 'positions', gen: this.gen, xy, ids, settled: this.sim.left <= 0 } }), 0);
        return;
      }
    }
    if (!this.timer) this.timer = setTimeout(() => this.run(), 0);
  }

  run() {
    this.timer = 0;
    const t0 = performance.now();
    let settled;
    do { settled = this.sim.step(5); } while (!settled && performance.now() - t0 < 12);
    const data = { type: 'positions', gen: this.gen, xy: this.sim.positions().xy, settled };
    if (!this.orderSent) { data.order = this.sim.order(); this.orderSent = true; }
    this.onmessage?.({ data });
    if (!settled) this.timer = setTimeout(() => this.run(), 16);
  }

  terminate() { clearTimeout(this.timer); }
}

export class Layout {
  /**
   * @param {(moved: string[], settled: boolean) => void} onPositions called
   *   with the ids whose position changed by more than half a unit
   */
  constructor(onPositions) {
    this.onPositions = onPositions;
    this.positions = new Map(); // id -> {x, y}
    this.pinned = new Set();
    this.order = [];
    this.gen = 0;
    this.settled = true;
    this.worker = startWorker() ?? new LocalWorker();
    this.inWorker = !(this.worker instanceof LocalWorker);
    this.worker.onmessage = ({ data }) => this.receive(data);
  }

  receive(m) {
    if (m.type !== 'positions' || m.gen !== this.gen) return;
    if (m.order) this.order = m.order;
    const moved = [];
    const { xy } = m;
    const ids = m.ids ?? this.order;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      const x = xy[2 * i];
      const y = xy[2 * i + 1];
      if (!Number.isFinite(x)) continue;
      const p = this.positions.get(id);
      if (!p) {
        this.positions.set(id, { x, y });
        moved.push(id);
      } else if (Math.abs(p.x - x) > 0.5 || Math.abs(p.y - y) > 0.5) {
        p.x = x; p.y = y;
        moved.push(id);
      }
    }
    this.settled = m.settled;
    this.onPositions(moved, m.settled);
  }

  /** Lays out another graph, keeping the positions of vertices already placed. */
  reset(vertices, links) {
    this.gen++;
    this.settled = false;
    const keep = new Set(vertices.map((v) => v.id));
    for (const id of [...this.positions.keys()]) if (!keep.has(id)) this.positions.delete(id);
    for (const id of [...this.pinned]) if (!keep.has(id)) this.pinned.delete(id);
    this.worker.postMessage({
      type: 'reset', gen: this.gen,
      vertices: vertices.map((v) => {
        const p = this.positions.get(v.id);
        return p ? { id: v.id, x: p.x, y: p.y, pinned: this.pinned.has(v.id) } : { id: v.id };
      }),
      links,
    });
  }

  /**
   * Adds and removes vertices and links in place. A new vertex is placed at
   * once beside a neighbour (near), so it can be drawn before the layout
   * answers.
   */
  patch({ add = [], remove = [], addLinks = [], removeLinks = [] }) {
    const added = [];
    for (const v of add) {
      if (this.positions.has(v.id)) continue;
      const n = (v.near ?? []).map((id) => this.positions.get(id)).find(Boolean);
      const p = n ? { x: n.x + 14 + (added.length % 5) * 3, y: n.y + 14 } : this.emptySpot(added.length);
      this.positions.set(v.id, p);
      added.push({ id: v.id, x: p.x, y: p.y });
    }
    for (const id of remove) { this.positions.delete(id); this.pinned.delete(id); }
    this.settled = false;
    this.worker.postMessage({ type: 'patch', gen: this.gen, add: added, remove, addLinks, removeLinks });
  }

  /** A place at the edge of the drawing for a vertex with no placed neighbour. */
  emptySpot(i) {
    let x1 = 0; let y0 = 0;
    for (const p of this.positions.values()) { x1 = Math.max(x1, p.x); y0 = Math.min(y0, p.y); }
    return { x: x1 + 40, y: y0 + 30 * i };
  }

  /** Pins a vertex at x, y (a drag ended there), or frees it (x null). */
  pin(id, x, y) {
    if (x === null) this.pinned.delete(id);
    else {
      this.pinned.add(id);
      const p = this.positions.get(id);
      if (p) { p.x = x; p.y = y; }
    }
    this.worker.postMessage({ type: 'pin', gen: this.gen, id, x, y });
  }

  destroy() { this.worker.terminate(); }
}
