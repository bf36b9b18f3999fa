// The picture of one graph: an SVG changed piece by piece, never
// re-rendered, so that a live change at 3,000 nodes costs what it touches
// (docs/design/http.md#web-page). The layout runs in a worker
// (layout/client.js), which moves only what changed. Markers and edges are
// drawn in batches (batch.js): a few hundred paths, one per look and tile,
// since thousands of elements cost the browser more than the picture is
// worth. The pointer finds the vertex nearest to it, so a target can be
// larger than its marker (touch-sized on a phone).
//
// Tiers differ by shape and line, not only colour: active nodes are filled
// circles, archived ones hollow dashed circles, orphaned ones hollow dotted
// diamonds, and edge ends that are not nodes (files, URLs) grey squares.
// Markers keep a readable size on screen whatever the zoom; labels keep one
// size and are chosen by labels.js so that none overlap, more as one zooms
// in. The picture is for the eye: the node list beside it is the keyboard's
// way to the same nodes. snapshot() tells a test what is drawn where.
import { Layout } from '../layout/client.js';
import { LABEL_FONT, LABEL_FONT_PX, labelText, placeLabels } from './labels.js';
import { Batch } from './batch.js';

const SVG = 'http://www.w3.org/2000/svg';
const R = 8; // an active marker's radius at zoom 1, in world units
const MIN_K = 0.02;
const MAX_K = 8;
const TILE = 160; // world units of a batch's tile

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

const tierOf = (v) => (v.kind === 'ref' ? 'ref' : v.tier);
const tile = (x, y) => `${Math.floor(x / TILE)},${Math.floor(y / TILE)}`;
const f1 = (n) => n.toFixed(1);

/** Drawing order: quiet edges, shown, local, lit; markers: refs, orphaned, archived, active. */
const edgeRank = (look) => (look.includes('e-lit') ? 3 : look.includes('near') ? 2 : look.includes('e-quiet') ? 0 : 1);
const markRank = (look) => ({ ref: 0, orphaned: 1, archived: 2, active: 3 }[/v-(\w+)/.exec(look)?.[1]] ?? 4) + (look.includes('near') ? 5 : 0);

/** Measures label widths once per text, with the font the labels are drawn in. */
class Widths {
  constructor() {
    this.cache = new Map();
    this.ctx = document.createElement('canvas').getContext?.('2d') ?? null;
  }

  of(text, bold) {
    const key = bold ? `b${text}` : text;
    let w = this.cache.get(key);
    if (w === undefined) {
      if (this.ctx) {
        this.ctx.font = bold ? `bold ${LABEL_FONT}` : LABEL_FONT;
        w = Math.ceil(this.ctx.measureText(text).width) + 2;
      } else {
        w = text.length * LABEL_FONT_PX * 0.6;
      }
      this.cache.set(key, w);
    }
    return w;
  }
}

export class Picture {
  /**
   * @param {HTMLElement} host the element the SVG fills
   * @param {{onSelect: (id: string) => void, onState?: (s: object) => void}} opts
   */
  constructor(host, { onSelect, onState }) {
    this.host = host;
    this.onSelect = onSelect;
    this.onState = onState ?? (() => {});
    this.vertices = new Map(); // id -> {id, kind, tier}
    this.edges = new Map(); // key -> {key, from, to, rel, shown}
    this.byVertex = new Map(); // id -> Set(edge key)
    this.view = { k: 1, tx: 0, ty: 0 };
    // While a new graph's layout settles, the view follows it (fits it);
    // then it stays put until the person zooms, pans or asks to fit, so a
    // live change never moves the picture.
    this.following = true;
    this.selected = null;
    this.depth = 1;
    this.localOn = true;
    this.localOnly = false;
    this.hidden = new Set();
    this.hits = null;
    this.near = new Set();
    // Nodes an agent added since the person last looked: those outside the
    // view are counted for the "N new — show" button (GraphView).
    this.fresh = new Set();
    this.touch = false;
    this.widths = new Widths();
    this.labels = new Map(); // id -> text element
    this.priority = null; // ids in label order, recomputed when the selection, the hits or what is shown change
    this.frame = 0;
    this.box = { w: 1, h: 1 };
    this.applied = {}; // what applyView last set
    this.drawnR = 0; // the marker radius the batches were drawn with
    this.clean();

    this.svg = el('svg', { class: 'pic', role: 'img', 'data-settled': 'false' });
    this.svg.kgPicture = this; // for tests: snapshot()
    this.world = el('g', { class: 'world' }, this.svg);
    const edgesG = el('g', { class: 'edges' }, this.world);
    this.arrowsG = el('g', { class: 'arrows', 'aria-hidden': 'true' }, this.world);
    const marksG = el('g', { class: 'vertices' }, this.world);
    this.ringsG = el('g', { class: 'rings', 'aria-hidden': 'true' }, this.world);
    this.labelsG = el('g', { class: 'labels', 'aria-hidden': 'true' }, this.world);
    this.edgeBatch = new Batch(edgesG, edgeRank);
    this.markBatch = new Batch(marksG, markRank);
    host.appendChild(this.svg);

    this.layout = new Layout((moved, settled) => this.moved(moved, settled));
    this.listen();
    this.resizer = new ResizeObserver(([e]) => {
      const old = this.box;
      this.box = { w: e.contentRect.width || 1, h: e.contentRect.height || 1 };
      if (this.following || old.w <= 1) this.fit();
      else if (this.localOnly && this.selected) this.focus();
      else if (old.w > 1) { // keep what was in the middle in the middle
        this.view = { ...this.view, tx: this.view.tx + (this.box.w - old.w) / 2, ty: this.view.ty + (this.box.h - old.h) / 2 };
      }
      this.schedule();
    });
    this.resizer.observe(this.svg);
  }

  clean() { this.dirty = { moved: new Set(), edges: new Set(), marks: new Set(), labels: false, all: false }; }

  destroy() {
    cancelAnimationFrame(this.frame);
    this.resizer.disconnect();
    this.layout.destroy();
    this.svg.remove();
  }

  // ---- the graph --------------------------------------------------------

  /** Draws another graph (or the same one read again), keeping the positions of what stays. */
  setGraph(store, { resetView = false } = {}) {
    const vs = new Map();
    for (const n of store.nodes.values()) vs.set(n.id, { id: n.id, kind: 'node', tier: n.tier ?? 'active' });
    for (const e of store.edges.values()) {
      for (const end of [e.from, e.to]) if (!vs.has(end)) vs.set(end, { id: end, kind: 'ref', tier: 'ref' });
    }
    this.vertices = vs;
    this.edges = new Map();
    this.byVertex = new Map();
    for (const [k, e] of store.edges) this.putEdge(k, e);
    for (const [id, t] of this.labels) if (!vs.has(id)) { t.remove(); this.labels.delete(id); }
    if (resetView) { this.following = true; this.layout.positions.clear(); this.layout.pinned.clear(); }
    this.layout.reset([...vs.keys()].map((id) => ({ id })), [...store.edges].map(([k, e]) => [k, e.from, e.to]));
    this.svg.dataset.settled = 'false';
    this.svg.dataset.nodes = String(store.nodes.size);
    this.priority = null;
    this.refreshNear();
    this.schedule('all');
  }

  /** Applies a patch of the store (graphstore.js) in place. */
  applyPatch(store, patch) {
    const add = []; const remove = []; const addLinks = []; const removeLinks = [];
    const touched = new Set();
    const neighbours = (id) => [...(store.byEnd.get(id) ?? [])].map((k) => { const e = store.edges.get(k); return e.from === id ? e.to : e.from; });
    for (const k of patch.edgesRemoved) {
      const e = this.edges.get(k);
      if (!e) continue;
      this.dropEdge(k);
      removeLinks.push(k);
      touched.add(e.from); touched.add(e.to);
    }
    for (const id of patch.nodesRemoved) touched.add(id);
    for (const id of [...patch.nodesAdded, ...patch.nodesChanged]) {
      const n = store.nodes.get(id);
      if (!n) continue;
      if (!this.vertices.has(id)) { add.push({ id, near: neighbours(id) }); this.fresh.add(id); }
      this.putVertex({ id, kind: 'node', tier: n.tier ?? 'active' });
      touched.add(id);
    }
    for (const k of [...patch.edgesAdded, ...patch.edgesChanged]) {
      const e = store.edges.get(k);
      if (!e) continue;
      for (const end of [e.from, e.to]) {
        if (!this.vertices.has(end)) {
          this.putVertex({ id: end, kind: 'ref', tier: 'ref' });
          add.push({ id: end, near: [e.from === end ? e.to : e.from] });
        }
        touched.add(end);
      }
      if (!this.edges.has(k)) addLinks.push([k, e.from, e.to]);
      this.putEdge(k, e);
    }
    // A vertex that no node and no edge names any more goes.
    for (const id of touched) {
      const v = this.vertices.get(id);
      if (!v) continue;
      const isNode = store.nodes.has(id);
      if (!isNode && !(this.byVertex.get(id)?.size)) { this.dropVertex(id); remove.push(id); continue; }
      if (!isNode && v.kind === 'node') this.putVertex({ id, kind: 'ref', tier: 'ref' });
    }
    if (add.length || remove.length || addLinks.length || removeLinks.length) {
      this.layout.patch({ add, remove, addLinks, removeLinks });
      this.svg.dataset.settled = 'false';
    }
    for (const id of touched) this.dirty.moved.add(id);
    this.svg.dataset.nodes = String(store.nodes.size);
    // Newcomers are labelled after what is labelled already; the order is
    // sorted again at the next change of selection or view (order()).
    if (this.priority) for (const a of add) this.priority.push(a.id);
    this.refreshNear();
    this.schedule();
  }

  putVertex(v) {
    const cur = this.vertices.get(v.id);
    if (cur && cur.kind === v.kind && cur.tier === v.tier) return;
    this.vertices.set(v.id, { ...v });
    this.dirty.marks.add(v.id);
    for (const k of this.byVertex.get(v.id) ?? []) this.dirty.edges.add(k);
  }

  dropVertex(id) {
    this.vertices.delete(id);
    this.dirty.marks.add(id);
    const l = this.labels.get(id);
    if (l) { l.remove(); this.labels.delete(id); }
  }

  putEdge(k, e) {
    let cur = this.edges.get(k);
    if (!cur) {
      cur = { key: k, from: e.from, to: e.to };
      this.edges.set(k, cur);
      for (const end of [e.from, e.to]) {
        let s = this.byVertex.get(end);
        if (!s) { s = new Set(); this.byVertex.set(end, s); }
        s.add(k);
      }
    }
    cur.shown = e.shown !== false;
    cur.rel = e.rel;
    this.dirty.edges.add(k);
  }

  dropEdge(k) {
    const e = this.edges.get(k);
    if (!e) return;
    this.edges.delete(k);
    for (const end of [e.from, e.to]) {
      const s = this.byVertex.get(end);
      if (s) { s.delete(k); if (!s.size) this.byVertex.delete(end); }
    }
    this.dirty.edges.add(k);
  }

  /** The layout moved these vertices. */
  moved(ids, settled) {
    for (const id of ids) this.dirty.moved.add(id);
    // (A hidden picture, 1 × 1, keeps following until it is shown.)
    if (this.following) { this.dirty.fit = true; if (settled && this.box.w > 1) this.following = false; }
    if (settled && this.wantFocus) this.dirty.focus = true;
    this.svg.dataset.settled = settled ? 'true' : 'false';
    this.schedule();
  }

  // ---- what is shown ----------------------------------------------------

  /** Selects a vertex (or none); focus: bring its local graph into view. */
  setSelected(id, { focus = false } = {}) {
    const old = this.selected;
    this.selected = id && this.vertices.has(id) ? id : null;
    if (old !== this.selected) {
      for (const vid of [old, this.selected]) for (const k of this.byVertex.get(vid) ?? []) this.dirty.edges.add(k);
      this.refreshNear();
      this.priority = null;
    }
    if (focus && this.selected) this.focus();
    this.schedule();
  }

  setDepth(d) { this.depth = d; this.refreshNear(); this.priority = null; this.schedule(); }

  /** Local graph on (the rest dimmed), and only the local graph (a phone). */
  setLocal(on, only) {
    this.localOn = on;
    this.localOnly = !!only;
    this.refreshNear();
    this.priority = null;
    this.dirty.all = true;
    this.schedule();
  }

  /** Hides the tiers named (active, archived, orphaned, ref). */
  setHidden(set) {
    this.hidden = new Set(set);
    this.svg.dataset.hidden = [...this.hidden].sort().join(' ');
    this.priority = null;
    this.dirty.all = true;
    this.schedule();
  }

  /** Marks search hits (ids of this graph), or none, and brings them into view. */
  setHits(ids) {
    const old = this.hits;
    this.hits = ids ? new Set(ids) : null;
    if (this.hits?.size) this.dirty.showHits = true;
    this.svg.classList.toggle('searching', !!this.hits);
    for (const id of new Set([...(old ?? []), ...(this.hits ?? [])])) this.dirty.marks.add(id);
    this.priority = null;
    this.schedule();
  }

  setTouch(on) { if (this.touch !== on) { this.touch = on; this.dirty.all = true; this.schedule(); } }

  /** The local graph: the selection and what is within depth edges of it. */
  refreshNear() {
    const old = this.near;
    const near = new Set();
    if (this.selected && this.localOn) {
      near.add(this.selected);
      let frontier = [this.selected];
      for (let d = 0; d < this.depth; d++) {
        const next = [];
        for (const id of frontier) {
          for (const k of this.byVertex.get(id) ?? []) {
            const e = this.edges.get(k);
            const o = e.from === id ? e.to : e.from;
            if (!near.has(o)) { near.add(o); next.push(o); }
          }
        }
        frontier = next;
      }
    }
    this.near = near;
    this.svg.classList.toggle('local', near.size > 0);
    for (const id of new Set([...old, ...near])) {
      if (old.has(id) === near.has(id)) continue;
      this.dirty.marks.add(id);
      for (const k of this.byVertex.get(id) ?? []) this.dirty.edges.add(k);
    }
    if (this.localOnly && old.size !== near.size) this.dirty.all = true;
    this.onState({ near: near.size });
  }

  visible(v) {
    if (this.hidden.has(tierOf(v))) return false;
    if (this.localOnly && this.near.size && !this.near.has(v.id)) return false;
    return true;
  }

  // ---- the view ---------------------------------------------------------

  /** The picture's size, as the resize observer last saw it (reading layout here would force it). */
  size() { return this.box; }

  /** On-screen radius of an active node's marker. */
  screenR() {
    const min = this.touch ? 11 : 3.5;
    const max = this.touch ? 16 : 13;
    return Math.min(max, Math.max(min, R * this.view.k));
  }

  applyView() {
    const { k, tx, ty } = this.view;
    // Only what changed is set: each of these restyles the picture.
    const set = (what, v, fn) => { if (this.applied[what] !== v) { this.applied[what] = v; fn(v); } };
    set('transform', `translate(${tx.toFixed(2)},${ty.toFixed(2)}) scale(${k.toFixed(5)})`, (v) => this.world.setAttribute('transform', v));
    set('font', `${(LABEL_FONT_PX / k).toFixed(4)}px`, (v) => { this.labelsG.style.fontSize = v; });
    set('halo', `${(3 / k).toFixed(4)}px`, (v) => { this.labelsG.style.strokeWidth = v; });
    set('k', k.toFixed(4), (v) => { this.svg.dataset.k = v; this.onState({ k }); });
    // Markers are drawn in world units: a zoom that changes their on-screen
    // size redraws them.
    const r = this.screenR() / k;
    if (Math.abs(r - this.drawnR) > this.drawnR * 0.04) { this.drawnR = r; this.markBatch.touchAll(); this.dirty.rings = true; }
  }

  /** Zooms by factor f about the screen point (cx, cy), relative to the picture. */
  zoomBy(f, cx, cy) {
    const { w, h } = this.size();
    const x = cx ?? w / 2; const y = cy ?? h / 2;
    const k = Math.min(MAX_K, Math.max(MIN_K, this.view.k * f));
    const g = k / this.view.k;
    this.view = { k, tx: x - (x - this.view.tx) * g, ty: y - (y - this.view.ty) * g };
    this.following = false;
    this.schedule();
  }

  /** Fits the visible vertices (or the ids given) into the picture. */
  fit(ids = null, { maxK = 2.5 } = {}) {
    let x0 = Infinity; let y0 = Infinity; let x1 = -Infinity; let y1 = -Infinity;
    const each = ids ?? [...this.vertices.values()].filter((v) => this.visible(v)).map((v) => v.id);
    for (const id of each) {
      const p = this.layout.positions.get(id);
      if (!p) continue;
      x0 = Math.min(x0, p.x); y0 = Math.min(y0, p.y); x1 = Math.max(x1, p.x); y1 = Math.max(y1, p.y);
    }
    const { w, h } = this.size();
    if (!Number.isFinite(x0)) { this.view = { k: 1, tx: w / 2, ty: h / 2 }; return; }
    // Room for the labels, which run beside their markers.
    const padX = 130; const padY = 40;
    let k = Math.min((w - padX) / Math.max(1, x1 - x0), (h - padY) / Math.max(1, y1 - y0), maxK);
    k = Math.max(MIN_K, k);
    this.view = { k, tx: w / 2 - k * (x0 + x1) / 2, ty: h / 2 - k * (y0 + y1) / 2 };
  }

  /**
   * The new nodes outside the view: those inside it are seen, and no longer
   * counted. Says the count to onState (fresh).
   */
  countFresh() {
    if (!this.fresh.size) return;
    const { k, tx, ty } = this.view;
    const { w, h } = this.size();
    let out = 0;
    for (const id of [...this.fresh]) {
      const p = this.layout.positions.get(id);
      const v = this.vertices.get(id);
      if (!v) { this.fresh.delete(id); continue; }
      if (!p) { out++; continue; }
      const x = p.x * k + tx; const y = p.y * k + ty;
      if (x >= 0 && y >= 0 && x <= w && y <= h) this.fresh.delete(id); else out++;
    }
    this.onState({ fresh: out });
  }

  /** Brings the new nodes outside the view into it (the "N new — show" button). */
  showFresh() {
    const ids = [...this.fresh].filter((id) => this.layout.positions.has(id));
    if (!ids.length) return;
    this.fit(ids, { maxK: 2.2 });
    this.following = false;
    this.schedule('all');
  }

  /** Fits everything (the Fit button). */
  reset() { this.fit(); this.schedule(); }

  /** Fits the search hits into view, unless they all are already. */
  showHits() {
    const { k, tx, ty } = this.view;
    const { w, h } = this.size();
    const ids = [...this.hits].filter((id) => this.layout.positions.has(id));
    const seen = ids.every((id) => {
      const p = this.layout.positions.get(id);
      const x = p.x * k + tx; const y = p.y * k + ty;
      return x > 20 && y > 20 && x < w - 140 && y < h - 20;
    });
    if (seen || !ids.length) return;
    this.fit(ids, { maxK: 2.2 });
    this.following = false;
  }

  /** Centres the selection's local graph (the Centre button). */
  centre() { this.focus(); this.schedule(); }

  /** Centres the selection's local graph, zooming in until its labels have room. */
  focus() {
    if (!this.selected) return;
    // While the layout is still moving, wait: it would move away.
    if (!this.layout.settled || !this.layout.positions.has(this.selected)) { this.wantFocus = true; return; }
    this.wantFocus = false;
    const ids = this.near.size ? [...this.near] : [this.selected];
    this.fit(ids, { maxK: 2.2 });
    this.following = false;
  }

  // ---- drawing ----------------------------------------------------------

  schedule(what) {
    if (what === 'all') this.dirty.all = true;
    this.dirty.labels = true;
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  /** The batch and look of a vertex's marker, or null when it is not drawn. */
  markChunk(v) {
    if (!v || !this.visible(v)) return null;
    const p = this.layout.positions.get(v.id);
    if (!p) return null;
    const near = this.near.has(v.id) ? ' near' : '';
    const hit = this.hits?.has(v.id) ? ' hit' : '';
    return `v v-${tierOf(v)}${near}${hit}|${tile(p.x, p.y)}`;
  }

  /** The chunk of an edge: its look and the tile of its middle, or null when hidden. */
  edgeChunk(e) {
    const f = this.vertices.get(e.from); const t = this.vertices.get(e.to);
    if (!f || !t || !this.visible(f) || !this.visible(t)) return null;
    const a = this.layout.positions.get(e.from); const b = this.layout.positions.get(e.to);
    if (!a || !b) return null;
    const lit = this.selected !== null && (e.from === this.selected || e.to === this.selected);
    const near = this.near.has(e.from) && this.near.has(e.to);
    return `e${e.shown ? '' : ' e-quiet'}${lit ? ' e-lit' : ''}${near ? ' near' : ''}|${tile((a.x + b.x) / 2, (a.y + b.y) / 2)}`;
  }

  /** The path data of a vertex's marker, in world units. */
  markPath(id) {
    const v = this.vertices.get(id);
    const p = this.layout.positions.get(id);
    if (!v || !p) return '';
    const r = this.drawnR * (v.kind === 'ref' ? 0.62 : v.tier === 'active' ? 1 : 0.9);
    const { x, y } = p;
    if (v.kind === 'ref') return `M${f1(x - r)} ${f1(y - r)}h${f1(2 * r)}v${f1(2 * r)}h${f1(-2 * r)}Z`;
    if (v.tier === 'orphaned') return `M${f1(x)} ${f1(y - r)}L${f1(x + r)} ${f1(y)}L${f1(x)} ${f1(y + r)}L${f1(x - r)} ${f1(y)}Z`;
    const r1 = r.toFixed(2);
    return `M${f1(x - r)} ${f1(y)}a${r1} ${r1} 0 1 0 ${(2 * r).toFixed(2)} 0a${r1} ${r1} 0 1 0 ${(-2 * r).toFixed(2)} 0Z`;
  }

  edgePath(k) {
    const e = this.edges.get(k);
    const a = this.layout.positions.get(e.from); const b = this.layout.positions.get(e.to);
    return `M${f1(a.x)} ${f1(a.y)}L${f1(b.x)} ${f1(b.y)}`;
  }

  flush() {
    this.frame = 0;
    const d = this.dirty;
    this.clean();
    // On a phone the picture is the local graph: it follows the selection.
    const phoneKey = this.localOnly && this.selected ? `${this.selected}|${this.near.size}|${this.box.w}|${this.box.h}` : null;
    if (phoneKey && phoneKey !== this.phoneKey && this.layout.settled) { this.phoneKey = phoneKey; d.focus = true; }
    if (d.focus) { this.fit(); this.focus(); } else if (d.showHits) this.showHits();
    else if (d.fit) this.fit();
    this.applyView();
    if (d.all) {
      for (const id of this.markBatch.of.keys()) if (!this.vertices.has(id)) this.markBatch.file(id, null);
      for (const k of this.edgeBatch.of.keys()) if (!this.edges.has(k)) this.edgeBatch.file(k, null);
      for (const v of this.vertices.values()) this.markBatch.file(v.id, this.markChunk(v));
      for (const e of this.edges.values()) this.edgeBatch.file(e.key, this.edgeChunk(e));
    } else {
      for (const id of d.moved) {
        d.marks.add(id);
        for (const k of this.byVertex.get(id) ?? []) d.edges.add(k);
      }
      for (const id of d.marks) this.markBatch.file(id, this.markChunk(this.vertices.get(id)));
      for (const k of d.edges) { const e = this.edges.get(k); this.edgeBatch.file(k, e ? this.edgeChunk(e) : null); }
    }
    this.markBatch.render((id) => this.markPath(id));
    this.edgeBatch.render((k) => this.edgePath(k));
    const set = (k, v) => { if (this.svg.dataset[k] !== v) this.svg.dataset[k] = v; };
    set('edges', String(this.edgeBatch.size));
    set('drawn', String(this.markBatch.size));
    this.drawRings();
    this.drawLabels(d.all ? null : d.moved);
    this.drawArrows();
  }

  /** Rings on the selection, the search hits and the pinned vertices. */
  drawRings() {
    const pos = this.layout.positions;
    const ring = (id, grow) => {
      const p = pos.get(id); const v = this.vertices.get(id);
      if (!p || !v || !this.visible(v)) return '';
      const r = (this.drawnR * (v.kind === 'ref' ? 0.62 : 1)) + grow / this.view.k;
      const r1 = r.toFixed(2);
      return `M${f1(p.x - r)} ${f1(p.y)}a${r1} ${r1} 0 1 0 ${(2 * r).toFixed(2)} 0a${r1} ${r1} 0 1 0 ${(-2 * r).toFixed(2)} 0Z`;
    };
    let sel = ''; let hits = ''; let pins = '';
    if (this.selected) sel = ring(this.selected, 3);
    for (const id of this.hits ?? []) hits += ring(id, 2);
    for (const id of this.layout.pinned) pins += ring(id, 5);
    const key = `${pins}|${hits}|${sel}`;
    if (key === this.ringsKey) return; // unchanged: no repaint
    this.ringsKey = key;
    this.ringsG.replaceChildren();
    if (pins) el('path', { class: 'ring ring-pinned', d: pins }, this.ringsG);
    if (hits) el('path', { class: 'ring ring-hit', d: hits }, this.ringsG);
    if (sel) el('path', { class: 'ring ring-selected', d: sel }, this.ringsG);
  }

  /** The order in which vertices get labels: selection, neighbours, hits, then by tier and degree. */
  order() {
    if (this.priority) return this.priority;
    const score = (v) => {
      if (v.id === this.selected) return 0;
      if (this.near.has(v.id)) return 1;
      if (this.hits?.has(v.id)) return 2;
      if (this.near.size && !this.localOnly) return 6; // dimmed: last
      if (v.kind === 'ref') return 5;
      return v.tier === 'active' ? 3 : 4;
    };
    const deg = (id) => this.byVertex.get(id)?.size ?? 0;
    this.priority = [...this.vertices.values()].filter((v) => this.visible(v))
      .map((v) => ({ v, s: score(v), d: deg(v.id) }))
      .sort((a, b) => a.s - b.s || b.d - a.d || (a.v.id < b.v.id ? -1 : a.v.id > b.v.id ? 1 : 0))
      .map((x) => x.v.id);
    return this.priority;
  }

  /**
   * Chooses and draws the labels. When neither the view nor the order
   * changed and only a few vertices moved (an agent's write), only those
   * are placed again, among the labels that stay: the rest of the picture
   * is not touched.
   */
  drawLabels(moved = null) {
    this.countFresh();
    const { w, h } = this.size();
    const { k, tx, ty } = this.view;
    const rs = this.screenR();
    const pos = this.layout.positions;
    const max = this.touch ? 40 : Math.round((w * h) / 2600);
    const order = this.order();
    const key = `${k.toFixed(5)}|${tx.toFixed(2)}|${ty.toFixed(2)}|${w}|${h}|${this.touch}|${this.selected}`;
    const some = moved && moved.size < 64 && key === this.labelKey && order === this.labelOrder;
    this.labelKey = key;
    this.labelOrder = order;
    const candidate = (id) => {
      const v = this.vertices.get(id);
      const p = pos.get(id);
      if (!v || !p || !this.visible(v)) return null;
      const sx = p.x * k + tx; const sy = p.y * k + ty;
      if (sx < -200 || sy < -20 || sx > w + 200 || sy > h + 20) return null;
      const text = labelText(v.id);
      const bold = v.id === this.selected;
      return { id: v.id, sx, sy, r: v.kind === 'ref' ? rs * 0.62 : rs, w: this.widths.of(text, bold), must: bold, text, bold };
    };
    // Every marker on screen: no label covers one (labels.js).
    const markers = [];
    for (const v of this.vertices.values()) {
      const p = pos.get(v.id);
      if (!p || !this.visible(v)) continue;
      const sx = p.x * k + tx; const sy = p.y * k + ty;
      if (sx < -20 || sy < -20 || sx > w + 20 || sy > h + 20) continue;
      markers.push({ sx, sy, r: v.kind === 'ref' ? rs * 0.62 : rs });
    }
    let cands; let placed;
    if (some) {
      const stay = new Map([...(this.placed ?? [])].filter(([id]) => !moved.has(id)));
      cands = [...moved].map(candidate).filter(Boolean);
      for (const c of cands) {
        if (c.bold || this.near.has(c.id) || this.hits?.has(c.id)) c.keep = true; else c.avoid = false;
      }
      placed = placeLabels(cands, { width: w, height: h, max }, stay, markers);
    } else {
      // After the selection, its neighbours and the hits, the labels shown
      // before come first, so a change elsewhere does not reshuffle them.
      const first = []; const kept = []; const rest = [];
      for (const id of order) {
        const c = candidate(id);
        if (!c) continue;
        // The selection's neighbourhood and the hits are read: their labels
        // cover no marker. The rest may, or a fitted large graph would keep
        // almost none.
        if (c.bold || this.near.has(id) || this.hits?.has(id)) { c.keep = true; first.push(c); } else if (this.labels.has(id)) { c.avoid = false; kept.push(c); } else { c.avoid = false; rest.push(c); }
      }
      cands = [...first, ...kept, ...rest];
      placed = placeLabels(cands, { width: w, height: h, max }, null, markers);
    }
    this.placed = placed;
    const byId = new Map(cands.map((c) => [c.id, c]));
    for (const [id, t] of this.labels) {
      if (!placed.has(id)) { t.remove(); this.labels.delete(id); }
    }
    for (const [id, b] of placed) {
      const c = byId.get(id);
      if (!c) continue; // stayed where it was
      let t = this.labels.get(id);
      if (!t) {
        t = el('text', { 'data-id': id }, this.labelsG);
        t.textContent = c.text;
        this.labels.set(id, t);
      }
      const v = this.vertices.get(id);
      const cls = `label label-${tierOf(v)}${c.bold ? ' label-selected' : ''}${this.near.has(id) ? ' near' : ''}${this.hits?.has(id) ? ' hit' : ''}`;
      if (t.getAttribute('class') !== cls) t.setAttribute('class', cls);
      // Back from screen to world units: the box's left, and the baseline.
      const x = ((b.x + 1 - tx) / k).toFixed(2); const y = ((b.y + 11.5 - ty) / k).toFixed(2);
      if (t.getAttribute('x') !== x) t.setAttribute('x', x);
      if (t.getAttribute('y') !== y) t.setAttribute('y', y);
      // For tests: a read label placed over a marker because no place was free.
      if (b.over) t.dataset.over = '1'; else delete t.dataset.over;
    }
    if (this.svg.dataset.labels !== String(placed.size)) this.svg.dataset.labels = String(placed.size);
  }

  /** Arrowheads on the selection's edges, which say their direction. */
  drawArrows() {
    if (!this.selected) {
      if (this.arrowsKey) { this.arrowsKey = ''; this.arrowsG.replaceChildren(); }
      return;
    }
    const { k } = this.view;
    const rs = this.screenR();
    const pos = this.layout.positions;
    let d = '';
    for (const key of this.byVertex.get(this.selected) ?? []) {
      const e = this.edges.get(key);
      const a = pos.get(e.from); const b = pos.get(e.to);
      if (!a || !b || e.from === e.to) continue;
      const t = this.vertices.get(e.to); const f = this.vertices.get(e.from);
      if (!t || !f || !this.visible(t) || !this.visible(f)) continue;
      const dx = b.x - a.x; const dy = b.y - a.y;
      const len = Math.hypot(dx, dy) || 1;
      const back = (rs + 2) / k;
      const tipX = b.x - (dx / len) * back; const tipY = b.y - (dy / len) * back;
      const s = 11 / k;
      const ang = Math.atan2(dy, dx);
      d += `M${tipX.toFixed(2)} ${tipY.toFixed(2)}L${(tipX - s * Math.cos(ang - 0.42)).toFixed(2)} ${(tipY - s * Math.sin(ang - 0.42)).toFixed(2)}`
        + `L${(tipX - s * Math.cos(ang + 0.42)).toFixed(2)} ${(tipY - s * Math.sin(ang + 0.42)).toFixed(2)}Z`;
    }
    if (d === this.arrowsKey) return;
    this.arrowsKey = d;
    this.arrowsG.replaceChildren();
    if (d) el('path', { class: 'arrow', d }, this.arrowsG);
  }

  /** Whether the vertex id is drawn (cheap, for a test that waits for it). */
  isDrawn(id) { return this.markBatch.of.has(id); }

  /**
   * What is drawn where, for tests and tools: each vertex with its tier,
   * whether it is drawn, dimmed, a hit, selected or pinned, and its centre
   * in the page's coordinates; the picture's zoom.
   */
  snapshot() {
    const r = this.svg.getBoundingClientRect();
    const { k, tx, ty } = this.view;
    const out = [];
    for (const v of this.vertices.values()) {
      const p = this.layout.positions.get(v.id);
      out.push({
        id: v.id, kind: v.kind, tier: tierOf(v), drawn: this.visible(v) && !!p,
        dimmed: this.near.size > 0 && !this.near.has(v.id), near: this.near.has(v.id),
        hit: !!this.hits?.has(v.id), selected: v.id === this.selected, pinned: this.layout.pinned.has(v.id),
        x: p ? r.left + p.x * k + tx : null, y: p ? r.top + p.y * k + ty : null,
      });
    }
    return { k, settled: this.layout.settled, edges: this.edgeBatch.size, vertices: out, screenR: this.screenR() };
  }

  // ---- the pointer ------------------------------------------------------

  /** The vertex under the screen point (x, y), within the touch or mouse target's radius. */
  vertexAt(x, y) {
    const { k, tx, ty } = this.view;
    const rs = this.screenR();
    const reach = this.touch ? Math.max(22, rs) : Math.max(9, rs + 2);
    let best = null; let bestD = reach * reach;
    for (const v of this.vertices.values()) {
      if (!this.visible(v)) continue;
      const p = this.layout.positions.get(v.id);
      if (!p) continue;
      const dx = p.x * k + tx - x; const dy = p.y * k + ty - y;
      const d2 = dx * dx + dy * dy;
      if (d2 <= bestD) { best = v; bestD = d2; }
    }
    return best;
  }

  listen() {
    const svg = this.svg;
    const pointers = new Map();
    let drag = null; // {mode: 'pan'|'vertex'|'pinch', ...}
    const local = (e) => { const r = svg.getBoundingClientRect(); return { x: e.clientX - r.left, y: e.clientY - r.top }; };

    svg.addEventListener('pointerdown', (e) => {
      if (e.button !== 0 && e.pointerType === 'mouse') return;
      pointers.set(e.pointerId, local(e));
      svg.setPointerCapture?.(e.pointerId);
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        drag = { mode: 'pinch', dist: Math.hypot(a.x - b.x, a.y - b.y), view: { ...this.view } };
        return;
      }
      const at = local(e);
      const v = this.vertexAt(at.x, at.y);
      if (v) drag = { mode: 'vertex', id: v.id, x: at.x, y: at.y, moved: false };
      else drag = { mode: 'pan', x: at.x, y: at.y, view: { ...this.view }, moved: false };
    });
    svg.addEventListener('pointermove', (e) => {
      if (!pointers.has(e.pointerId) || !drag) {
        if (e.pointerType === 'mouse') {
          const at = local(e);
          svg.style.cursor = this.vertexAt(at.x, at.y)?.kind === 'node' ? 'pointer' : '';
        }
        return;
      }
      const at = local(e);
      pointers.set(e.pointerId, at);
      if (drag.mode === 'pinch' && pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        const dist = Math.hypot(a.x - b.x, a.y - b.y);
        this.view = drag.view;
        this.zoomBy(dist / (drag.dist || 1), (a.x + b.x) / 2, (a.y + b.y) / 2);
        return;
      }
      const dx = at.x - drag.x; const dy = at.y - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      drag.moved = true;
      if (drag.mode === 'pan') {
        this.view = { ...drag.view, tx: drag.view.tx + dx, ty: drag.view.ty + dy };
        this.following = false;
        this.schedule();
      } else if (drag.mode === 'vertex') {
        const { k, tx, ty } = this.view;
        const p = this.layout.positions.get(drag.id);
        if (!p) return;
        p.x = (at.x - tx) / k; p.y = (at.y - ty) / k;
        this.dirty.moved.add(drag.id);
        this.schedule();
      }
    });
    const end = (e) => {
      pointers.delete(e.pointerId);
      if (!drag) return;
      const d = drag;
      if (pointers.size === 0) drag = null;
      if (d.mode !== 'vertex') return;
      if (d.moved) {
        const p = this.layout.positions.get(d.id);
        if (p) this.layout.pin(d.id, p.x, p.y);
        this.onState({ pinned: this.layout.pinned.size });
        this.schedule();
      } else if (e.type === 'pointerup') {
        const v = this.vertices.get(d.id);
        if (v?.kind === 'node') this.onSelect(d.id);
      }
    };
    svg.addEventListener('pointerup', end);
    svg.addEventListener('pointercancel', end);
    svg.addEventListener('dblclick', (e) => {
      const at = local(e);
      const v = this.vertexAt(at.x, at.y);
      if (v && this.layout.pinned.has(v.id)) this.unpin(v.id);
    });
    svg.addEventListener('wheel', (e) => {
      e.preventDefault();
      const at = local(e);
      const f = Math.exp(-Math.max(-120, Math.min(120, e.deltaY)) * (e.deltaMode === 1 ? 0.05 : 0.002));
      this.zoomBy(f, at.x, at.y);
    }, { passive: false });
  }

  unpin(id) {
    this.layout.pin(id, null);
    this.onState({ pinned: this.layout.pinned.size });
    this.schedule();
  }

  unpinAll() { for (const id of [...this.layout.pinned]) this.unpin(id); }
}
