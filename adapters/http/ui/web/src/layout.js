// The force-directed layout of one graph, computed with d3-force. It runs
// to rest synchronously instead of animating: the picture is the same on
// every load (d3-force's random source is seeded), costs no CPU once drawn,
// and needs no motion for people who ask for none. Positions of the nodes
// already placed are kept, so a live update moves little.
import {
  forceSimulation, forceLink, forceManyBody, forceCollide, forceX, forceY,
} from 'd3-force';

/**
 * @param {{id: string}[]} vertices
 * @param {{source: string, target: string}[]} links
 * @param {Map<string, {x: number, y: number}>} previous
 * @returns {Map<string, {x: number, y: number}>}
 */
export function layout(vertices, links, previous = new Map()) {
  const nodes = vertices.map((v) => {
    const p = previous.get(v.id);
    return p ? { id: v.id, x: p.x, y: p.y } : { id: v.id };
  });
  const byId = new Map(nodes.map((n) => [n.id, n]));
  // A new node starts beside a neighbour that is already placed.
  for (const l of links) {
    const a = byId.get(l.source);
    const b = byId.get(l.target);
    if (!a || !b) continue;
    if (a.x === undefined && b.x !== undefined) { a.x = b.x + 12; a.y = b.y + 12; }
    if (b.x === undefined && a.x !== undefined) { b.x = a.x - 12; b.y = a.y + 12; }
  }
  const placed = nodes.filter((n) => n.x !== undefined).length;
  const sim = forceSimulation(nodes)
    // forceLink replaces the ends of the links it is given by node objects:
    // give it copies, so the caller's links keep their ids.
    .force('link', forceLink(links.filter((l) => byId.has(l.source) && byId.has(l.target))
      .map((l) => ({ source: l.source, target: l.target })))
      .id((n) => n.id).distance(60).strength(0.4))
    .force('charge', forceManyBody().strength(-140).distanceMax(400))
    .force('collide', forceCollide(16))
    .force('x', forceX(0).strength(0.05))
    .force('y', forceY(0).strength(0.05))
    .stop();
  // A warm start (most nodes placed) needs fewer steps.
  if (placed > nodes.length / 2) sim.alpha(0.3);
  const steps = Math.ceil(Math.log(sim.alphaMin()) / Math.log(1 - sim.alphaDecay()) * (placed > nodes.length / 2 ? 0.5 : 1));
  sim.tick(Math.min(steps, nodes.length > 2000 ? 100 : 300));
  return new Map(nodes.map((n) => [n.id, { x: n.x, y: n.y }]));
}
