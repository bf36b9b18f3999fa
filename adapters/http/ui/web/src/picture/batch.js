// Many small shapes drawn as a few SVG paths: items (edges, markers) are
// filed by look (the path's class) and by tile of the picture, and each
// (look, tile) is one <path>. Changing an item redraws the path of its tile
// only, so the browser repaints that tile, not the picture; and a picture
// of 3,000 nodes is a few hundred elements, not thousands, which is what
// keeps style, layout and paint cheap (docs/design/http.md#web-page).

const SVG = 'http://www.w3.org/2000/svg';

export class Batch {
  /**
   * @param {SVGGElement} parent the group the paths go in
   * @param {(look: string) => number} rank drawing order of looks (low first)
   */
  constructor(parent, rank) {
    this.parent = parent;
    this.rank = rank;
    this.chunks = new Map(); // chunk key -> {look, keys: Set, path}
    this.of = new Map(); // item key -> chunk key
    this.groups = new Map(); // look -> g
    this.dirty = new Set();
  }

  get size() { return this.of.size; }

  /** Files item key under chunk (look|tile), or takes it out (null). */
  file(key, chunk) {
    const old = this.of.get(key) ?? null;
    if (old !== null) {
      this.dirty.add(old);
      if (old !== chunk) this.chunks.get(old)?.keys.delete(key);
    }
    if (chunk === null) { this.of.delete(key); return; }
    let c = this.chunks.get(chunk);
    if (!c) { c = { look: chunk.slice(0, chunk.indexOf('|')), keys: new Set(), path: null }; this.chunks.set(chunk, c); }
    c.keys.add(key);
    this.of.set(key, chunk);
    this.dirty.add(chunk);
  }

  /** Marks every chunk for redrawing (the shapes' size changed with the zoom). */
  touchAll() { for (const k of this.chunks.keys()) this.dirty.add(k); }

  /** Redraws the chunks that changed; draw(key) returns an item's path data. */
  render(draw) {
    for (const ck of this.dirty) {
      const c = this.chunks.get(ck);
      if (!c) continue;
      if (!c.keys.size) { c.path?.remove(); this.chunks.delete(ck); continue; }
      if (!c.path) {
        c.path = document.createElementNS(SVG, 'path');
        c.path.setAttribute('class', c.look);
        this.group(c.look).appendChild(c.path);
      }
      let d = '';
      for (const k of c.keys) d += draw(k);
      c.path.setAttribute('d', d);
    }
    this.dirty.clear();
  }

  group(look) {
    let g = this.groups.get(look);
    if (g) return g;
    g = document.createElementNS(SVG, 'g');
    g.dataset.look = look;
    this.groups.set(look, g);
    const order = [...this.groups.keys()].sort((a, b) => this.rank(a) - this.rank(b) || (a < b ? -1 : a > b ? 1 : 0));
    for (const l of order) this.parent.appendChild(this.groups.get(l));
    return g;
  }
}
