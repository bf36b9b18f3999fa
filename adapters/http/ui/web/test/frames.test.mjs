// Unit tests of the page's event queue (src/frames.js): a burst of /ws
// events applied once per animation frame, in order, with the effect of each.
// Run by e2e/run.sh (make e2e): node --test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameQueue } from '../src/frames.js';
import { GraphStore, edgeKey } from '../src/graphstore.js';

/** A clock whose frames and timers run only when the test says. */
function fakeClock() {
  let next = 1;
  const frames = new Map();
  const timers = new Map();
  return {
    frames,
    timers,
    frame: (f) => { frames.set(next, f); return next++; },
    cancelFrame: (h) => frames.delete(h),
    timer: (f) => { timers.set(next, f); return next++; },
    cancelTimer: (h) => timers.delete(h),
    tick() { const fs = [...frames.values()]; frames.clear(); for (const f of fs) f(); },
    wait() { const fs = [...timers.values()]; timers.clear(); for (const f of fs) f(); },
  };
}

const node = (id, seq) => ({ id, gist: `gist of ${id}`, notes: [], touches: [], tier: 'active', version: 1, seq });
const ev = (type, seq, extra) => ({ type, level: 'project', project: '/p', seq, ...extra });

function store() {
  const s = new GraphStore({ level: 'project', projectPath: '/p' });
  s.load({ nodes: [node('a', 1)], edges: [], meta: { seq: 10, durable_seq: 10 } });
  return s;
}

/** An import's events: n nodes, each with an edge to a, then the first half deleted again. */
function importBurst(n) {
  const evs = [];
  let seq = 10;
  for (let i = 0; i < n; i++) {
    evs.push(ev('node_updated', ++seq, { node: node(`n${i}`, seq) }));
    evs.push(ev('edge_updated', ++seq, { edge: { from: `n${i}`, to: 'a', rel: 'r', notes: [], version: 1, seq } }));
  }
  for (let i = 0; i < n / 2; i++) evs.push(ev('node_deleted', ++seq, { node_id: `n${i}` }));
  return evs;
}

test('a burst of events is applied once, at the next frame, in the order heard', () => {
  const clock = fakeClock();
  const runs = [];
  const q = new FrameQueue((items) => runs.push(items), clock);
  for (let i = 0; i < 300; i++) q.push(i);
  assert.equal(clock.frames.size, 1, 'one frame asked for, not one per event');
  assert.deepEqual(runs, [], 'nothing applied before the frame');
  clock.tick();
  assert.equal(runs.length, 1);
  assert.deepEqual(runs[0], [...Array(300).keys()]);
  assert.equal(clock.timers.size, 0, 'the fallback is cancelled');
  clock.tick();
  assert.equal(runs.length, 1, 'an empty frame runs nothing');
});

test('an event heard while a burst is applied waits for the next frame', () => {
  const clock = fakeClock();
  const runs = [];
  const q = new FrameQueue((items) => { runs.push(items); if (items[0] === 'a') q.push('c'); }, clock);
  q.push('a'); q.push('b');
  clock.tick();
  assert.deepEqual(runs, [['a', 'b']]);
  clock.tick();
  assert.deepEqual(runs, [['a', 'b'], ['c']]);
});

test('without frames (a hidden tab) the queue still runs, after a while', () => {
  const clock = fakeClock();
  const runs = [];
  const q = new FrameQueue((items) => runs.push(items), clock);
  q.push(1); q.push(2);
  clock.wait();
  assert.deepEqual(runs, [[1, 2]]);
  assert.equal(clock.frames.size, 0, 'the frame is cancelled');
});

test('flush applies what is queued at once (before the answer of the page\'s own write); stop drops it', () => {
  const clock = fakeClock();
  const runs = [];
  const q = new FrameQueue((items) => runs.push(items), clock);
  q.flush();
  assert.deepEqual(runs, [], 'nothing queued, nothing run');
  q.push(1);
  q.flush();
  assert.deepEqual(runs, [[1]]);
  assert.equal(clock.frames.size + clock.timers.size, 0);
  q.push(2);
  q.stop();
  clock.tick(); clock.wait();
  assert.deepEqual(runs, [[1]]);
  assert.equal(q.size, 0);
});

test('an import\'s burst is one patch, with every event\'s effect, as if applied one by one', () => {
  const evs = importBurst(150);
  const one = store();
  const ids = new Set();
  for (const e of evs) {
    const p = one.apply(e);
    for (const k of ['nodesAdded', 'nodesChanged', 'nodesRemoved', 'edgesAdded', 'edgesRemoved', 'edgesChanged']) for (const x of p[k]) ids.add(`${k}:${x}`);
  }

  const clock = fakeClock();
  const all = store();
  const updates = [];
  const q = new FrameQueue((items) => updates.push(all.applyAll(items)), clock);
  for (const e of evs) q.push(e);
  clock.tick();
  assert.equal(updates.length, 1, 'one picture update for the burst');
  const [u] = updates;
  assert.equal(u.replaced, false);
  assert.deepEqual([u.from, u.to], [one.version - evs.length, one.version]);
  assert.deepEqual([...all.nodes.keys()].sort(), [...one.nodes.keys()].sort());
  assert.deepEqual([...all.edges.keys()].sort(), [...one.edges.keys()].sort());
  assert.equal(all.nodes.has('n0'), false, 'deleted after it was created');
  assert.equal(all.edges.has(edgeKey({ from: 'n0', to: 'a', rel: 'r' })), false, 'its edge went with it');
  assert.ok(all.nodes.has('n149'));
  const merged = new Set();
  for (const [k, xs] of Object.entries(u.patch)) if (Array.isArray(xs)) for (const x of xs) merged.add(`${k}:${x}`);
  assert.deepEqual([...merged].sort(), [...ids].sort(), 'the patch names everything each event changed');
});

test('a graph_replaced in a burst ends it: what came before is patched, the rest waits for the read', () => {
  const s = store();
  const put = (id, seq) => ev('node_updated', seq, { node: node(id, seq) });
  const r = s.applyAll([put('b', 11), ev('graph_replaced', 12), put('c', 13), put('d', 14)]);
  assert.equal(r.replaced, true);
  assert.deepEqual(r.patch.nodesAdded, ['b']);
  assert.equal(r.to, r.from + 1, 'the version of the patch, not of the replace');
  assert.deepEqual(r.rest.map((e) => e.node.id), ['c', 'd']);
  assert.equal(s.nodes.has('c'), false);
  const none = s.applyAll([ev('node_updated', 5, { node: node('old', 5) })]);
  assert.deepEqual([none.patch, none.replaced, none.rest], [null, false, []], 'nothing new, no patch');
});
