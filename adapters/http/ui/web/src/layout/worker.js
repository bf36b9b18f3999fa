// The layout worker: runs the simulation of sim.js off the page's thread,
// so that laying out 3,000 nodes never freezes the page. Messages in:
// {type: 'reset'|'patch'|'pin', gen, ...} (layout/client.js). Messages out:
// {type: 'positions', gen, order? | ids?, xy, settled}: all positions, with
// order (the ids of xy) when it changed, or those of the ids moved by a
// change settled in place. Steps run in short chunks, so a newer message
// is taken up soon.
import { Sim } from './sim.js';

const CHUNK_MS = 30;
// Positions are posted when the layout is at rest, and meanwhile at most
// every so often: each post costs the page a redraw of everything, which
// at 3,000 nodes is most of the work, so a bigger graph is posted less.
const postEvery = () => 300 + sim.nodes.length / 5;
const sim = new Sim();
let gen = 0;
let orderSent = false;
let timer = 0;
let posted = 0;

function post(settled, ids = null) {
  posted = performance.now();
  const { xy, ids: which } = sim.positions(ids);
  const msg = { type: 'positions', gen, xy, settled };
  if (which) msg.ids = which;
  else if (!orderSent) { msg.order = sim.order(); orderSent = true; }
  self.postMessage(msg, [xy.buffer]);
}

function run() {
  timer = 0;
  const t0 = performance.now();
  let settled;
  do {
    settled = sim.step(5);
  } while (!settled && performance.now() - t0 < CHUNK_MS);
  if (settled || performance.now() - posted >= postEvery()) post(settled);
  if (!settled) timer = setTimeout(run, 0);
}

function schedule() {
  if (!timer) { posted = performance.now(); timer = setTimeout(run, 0); }
}

self.onmessage = ({ data: m }) => {
  gen = m.gen ?? gen;
  switch (m.type) {
    case 'reset':
      sim.reset(m.vertices, m.links);
      orderSent = false;
      schedule();
      break;
    case 'patch': {
      if ((m.add?.length ?? 0) || (m.remove?.length ?? 0)) orderSent = false;
      const moved = sim.patch(m);
      if (moved) post(true, moved); // settled in place: only these moved
      else {
        // The layout is still moving: the new nodes' first places (beside a
        // neighbour) are posted now, not at the next full post, so they are
        // drawn at once however busy the machine is.
        const fresh = (m.add ?? []).map((a) => a.id);
        if (fresh.length) post(false, fresh);
        schedule();
      }
      break;
    }
    case 'pin':
      sim.pin(m.id, m.x, m.y);
      break;
    default:
  }
};
