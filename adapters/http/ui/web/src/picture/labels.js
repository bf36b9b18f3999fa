// Which vertices get a label: chosen by on-screen size, so that more show as
// one zooms in, and culled so that no two overlap and none covers another
// vertex's marker. Pure: positions in, label boxes out (screen pixels), so
// it is cheap to run on every zoom step.

/** Screen size of a label, in CSS pixels (the stylesheet's .label). */
export const LABEL_FONT_PX = 12;
export const LABEL_FONT = `${LABEL_FONT_PX}px "Liberation Sans", Arial, Helvetica, sans-serif`;
const LABEL_HEIGHT = 15;
const PAD = 2;
const MAX_CHARS = 32;

/** The text of a label: long ids are cut with an ellipsis. */
export function labelText(id) {
  return id.length > MAX_CHARS ? `${id.slice(0, MAX_CHARS - 1)}…` : id;
}

/**
 * Places labels greedily in priority order: a label goes right of its
 * vertex, else left, above or below, whichever is first free — overlapping
 * no label already placed and no marker — and is skipped if none is free
 * or in the view.
 *
 * @param {{id: string, sx: number, sy: number, r: number, w: number, must?: boolean}[]} candidates
 *   in priority order; sx, sy the vertex's centre on screen, r its radius
 *   on screen, w the label's width; must: placed even if it overlaps;
 *   keep: a label that is read, which tries farther places, and covers a
 *   marker (its box says over: true) only when none of them is free;
 *   avoid: false lets it cover markers (the crowd far from the selection,
 *   where a label on a marker costs less than no label)
 * @param {{width: number, height: number, max: number}} view
 * @param {Map<string, object>} [stay] labels placed before that stay where they are
 * @param {{sx: number, sy: number, r: number}[]} [markers] the markers drawn on screen, which no label may cover
 * @returns {Map<string, {x: number, y: number, w: number, h: number, side: 'right'|'left'|'above'|'below', over?: boolean}>}
 *   each placed label's box on screen (x, y its top left); over: a read
 *   label placed over a marker because no place was free of them
 */
/** The places a read label tries after the four sides: the corners, then the sides a label's height out. */
function farther(c) {
  const gap = c.r + 3;
  const out = LABEL_HEIGHT + 2;
  const hy = LABEL_HEIGHT / 2;
  return [
    { x: c.sx + gap, y: c.sy - gap - LABEL_HEIGHT, w: c.w, h: LABEL_HEIGHT, side: 'right' },
    { x: c.sx + gap, y: c.sy + gap, w: c.w, h: LABEL_HEIGHT, side: 'right' },
    { x: c.sx - gap - c.w, y: c.sy - gap - LABEL_HEIGHT, w: c.w, h: LABEL_HEIGHT, side: 'left' },
    { x: c.sx - gap - c.w, y: c.sy + gap, w: c.w, h: LABEL_HEIGHT, side: 'left' },
    { x: c.sx + gap + out, y: c.sy - hy, w: c.w, h: LABEL_HEIGHT, side: 'right' },
    { x: c.sx - gap - out - c.w, y: c.sy - hy, w: c.w, h: LABEL_HEIGHT, side: 'left' },
    { x: c.sx - c.w / 2, y: c.sy - c.r - 2 - LABEL_HEIGHT - out, w: c.w, h: LABEL_HEIGHT, side: 'above' },
    { x: c.sx - c.w / 2, y: c.sy + c.r + 2 + out, w: c.w, h: LABEL_HEIGHT, side: 'below' },
  ];
}

export function placeLabels(candidates, view, stay = null, markers = null) {
  const cell = 64;
  const grid = new Map();
  const marks = new Map(); // the markers' boxes, by cell
  const placed = new Map();
  const cols = Math.ceil(view.width / cell) + 2;
  const cellsOf = (b) => {
    const out = [];
    const c0 = Math.floor(b.x / cell); const c1 = Math.floor((b.x + b.w) / cell);
    const r0 = Math.floor(b.y / cell); const r1 = Math.floor((b.y + b.h) / cell);
    for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) out.push(r * cols + c);
    return out;
  };
  const hits = (b, avoid) => {
    for (const k of cellsOf(b)) {
      for (const o of grid.get(k) ?? []) {
        if (b.x < o.x + o.w + PAD && o.x < b.x + b.w + PAD && b.y < o.y + o.h + PAD && o.y < b.y + b.h + PAD) return true;
      }
      if (!avoid) continue;
      for (const o of marks.get(k) ?? []) {
        if (b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h) return true;
      }
    }
    return false;
  };
  for (const m of markers ?? []) {
    const b = { x: m.sx - m.r, y: m.sy - m.r, w: 2 * m.r, h: 2 * m.r };
    if (b.x + b.w < 0 || b.y + b.h < 0 || b.x > view.width || b.y > view.height) continue;
    for (const k of cellsOf(b)) {
      let l = marks.get(k);
      if (!l) { l = []; marks.set(k, l); }
      l.push(b);
    }
  }
  const inView = (b) => b.x >= 0 && b.y >= 0 && b.x + b.w <= view.width && b.y + b.h <= view.height;
  const add = (id, b) => {
    placed.set(id, b);
    for (const k of cellsOf(b)) {
      let l = grid.get(k);
      if (!l) { l = []; grid.set(k, l); }
      l.push(b);
    }
  };
  for (const [id, b] of stay ?? []) add(id, b);
  for (const c of candidates) {
    if (placed.size >= view.max && !c.must) break;
    const y = c.sy - LABEL_HEIGHT / 2;
    const right = { x: c.sx + c.r + 3, y, w: c.w, h: LABEL_HEIGHT, side: 'right' };
    const left = { x: c.sx - c.r - 3 - c.w, y, w: c.w, h: LABEL_HEIGHT, side: 'left' };
    const above = { x: c.sx - c.w / 2, y: c.sy - c.r - 2 - LABEL_HEIGHT, w: c.w, h: LABEL_HEIGHT, side: 'above' };
    const below = { x: c.sx - c.w / 2, y: c.sy + c.r + 2, w: c.w, h: LABEL_HEIGHT, side: 'below' };
    const sides = [right, left, above, below];
    let fit = sides.find((b) => inView(b) && !hits(b, c.avoid !== false));
    // A label that is read (keep: the selection's local graph, the hits)
    // looks farther before it covers a marker: the four corners, then each
    // side a label's height out. Only when every one of those is taken does
    // it go over a marker (over: true) rather than go missing.
    if (!fit && (c.keep || c.must)) fit = farther(c).find((b) => inView(b) && !hits(b, true));
    if (!fit && c.keep) {
      fit = [...sides, ...farther(c)].find((b) => inView(b) && !hits(b, false));
      if (fit) fit = { ...fit, over: true };
    }
    if (fit) add(c.id, fit);
    else if (c.must && inView(right)) add(c.id, right);
  }
  return placed;
}
