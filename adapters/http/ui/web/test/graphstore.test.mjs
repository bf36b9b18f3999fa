// Unit tests of the page's graph store: events applied in place
// (src/graphstore.js). Run by e2e/run.sh (make e2e): node --test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphStore, edgeKey, mergePatches, shownBetween } from '../src/graphstore.js';

const node = (id, extra = {}) => ({ id, gist: `gist of ${id}`, notes: [], touches: [], tier: 'active', version: 1, seq: 1, ...extra });
const edge = (from, to, rel = 'r', extra = {}) => ({ from, to, rel, notes: [], version: 1, seq: 1, ...extra });

function store() {
  const s = new GraphStore({ level: 'project', projectPath: '/p' });
  s.load({
    nodes: [node('a'), node('b'), node('c', { tier: 'archived' })],
    edges: [edge('a', 'b'), edge('b', 'c'), edge('a', 'src/a.go', 'touches')],
    meta: { seq: 10, durable_seq: 10 },
  });
  return s;
}
const ev = (type, extra) => ({ type, level: 'project', project: '/p', seq: 11, source_session: 'S', ...extra });

test('a put node adds or changes one node, and says which', () => {
  const s = store();
  const v = s.version;
  const p = s.apply(ev('node_updated', { node: node('d', { seq: 11 }) }));
  assert.deepEqual(p.nodesAdded, ['d']);
  assert.equal(s.nodes.get('d').gist, 'gist of d');
  assert.equal(s.version, v + 1);
  const q = s.apply(ev('node_updated', { seq: 12, node: node('a', { gist: 'new', version: 2, seq: 12 }) }));
  assert.deepEqual(q.nodesChanged, ['a']);
  assert.equal(s.nodes.get('a').gist, 'new');
});

test('an event the read already holds, or heard twice, changes nothing', () => {
  const s = store();
  assert.equal(s.apply(ev('node_updated', { seq: 9, node: node('old', { seq: 9 }) })), null, 'at or below the read\'s durable seq');
  assert.equal(s.nodes.has('old'), false);
  const n = node('d', { seq: 11 });
  assert.ok(s.apply(ev('node_updated', { node: n })));
  const v = s.version;
  assert.equal(s.apply(ev('node_updated', { node: { ...n } })), null, "the page's own answer, then its event");
  assert.equal(s.version, v);
});

test('events of another graph are not applied', () => {
  const s = store();
  assert.equal(s.apply({ ...ev('node_updated', { node: node('x', { seq: 11 }) }), project: '/q' }), null);
  assert.equal(s.apply({ ...ev('node_updated', { node: node('x', { seq: 11 }) }), level: 'user', project: null }), null);
  assert.equal(s.nodes.has('x'), false);
});

test('deleting a node deletes the edges of this graph that touch it', () => {
  const s = store();
  const p = s.apply(ev('node_deleted', { node_id: 'b', edges_deleted: 2 }));
  assert.deepEqual(p.nodesRemoved, ['b']);
  assert.deepEqual(p.edgesRemoved.sort(), [edgeKey(edge('a', 'b')), edgeKey(edge('b', 'c'))].sort());
  assert.deepEqual(s.edgesOf('a').map(edgeKey), [edgeKey(edge('a', 'src/a.go', 'touches'))]);
  assert.equal(s.edges.size, 1);
});

test("an edge put or deleted; its shown flag follows its ends' tiers", () => {
  const s = store();
  let p = s.apply(ev('edge_updated', { edge: edge('c', 'd', 'r', { seq: 11 }) }));
  assert.deepEqual(p.edgesAdded, [edgeKey(edge('c', 'd'))]);
  assert.equal(s.edges.get(edgeKey(edge('c', 'd'))).shown, false, 'archived to a reference: hidden');
  p = s.apply(ev('compacted', { seq: 12, archived: [], restored: ['c'], orphaned: [], deleted: [] }));
  assert.deepEqual(p.nodesChanged, ['c']);
  assert.equal(s.nodes.get('c').tier, 'active');
  assert.ok(p.edgesChanged.includes(edgeKey(edge('c', 'd'))));
  assert.equal(s.edges.get(edgeKey(edge('c', 'd'))).shown, true);
  p = s.apply(ev('edge_deleted', { seq: 13, from: 'c', to: 'd', rel: 'r' }));
  assert.deepEqual(p.edgesRemoved, [edgeKey(edge('c', 'd'))]);
  assert.equal(s.apply(ev('edge_deleted', { seq: 14, from: 'c', to: 'd', rel: 'r' })), null, 'an edge gone already');
});

test('a compaction run moves tiers, and a pruned node goes with its edges', () => {
  const s = store();
  const p = s.apply(ev('compacted', { archived: ['a'], restored: [], orphaned: ['b'], deleted: ['c'] }));
  assert.equal(s.nodes.get('a').tier, 'archived');
  assert.equal(s.nodes.get('a')._archived, true);
  assert.equal(s.nodes.get('b').tier, 'orphaned');
  assert.equal(s.nodes.has('c'), false);
  assert.deepEqual(p.nodesRemoved, ['c']);
  assert.ok(p.edgesRemoved.includes(edgeKey(edge('b', 'c'))));
  assert.equal(s.counts().archived, 1);
  assert.equal(s.counts().orphaned, 1);
});

test('a recall makes the node active and the rescued archived', () => {
  const s = store();
  s.apply(ev('compacted', { archived: [], restored: [], orphaned: ['a', 'b'], deleted: [] }));
  const p = s.apply(ev('node_recalled', { seq: 12, node: node('a', { version: 2, seq: 12 }), rescued: ['b'] }));
  assert.deepEqual(p.nodesChanged.sort(), ['a', 'b']);
  assert.equal(s.nodes.get('a').tier, 'active');
  assert.equal(s.nodes.get('b').tier, 'archived');
});

test('graph_replaced asks for a new read; patches merge in order', () => {
  const s = store();
  assert.equal(s.apply(ev('graph_replaced', { changes: 900 })).replace, true);
  const a = s.apply(ev('node_updated', { node: node('d', { seq: 11 }) }));
  const b = s.apply(ev('node_deleted', { seq: 12, node_id: 'd' }));
  const m = mergePatches([a, b]);
  assert.deepEqual([m.nodesAdded, m.nodesRemoved], [['d'], ['d']]);
});

test("the list's order changes only when a node comes, goes or changes tier", () => {
  const s = store();
  const shape = s.shape;
  s.apply(ev('node_updated', { seq: 12, node: node('a', { gist: 'content only', version: 2, seq: 12 }) }));
  assert.equal(s.shape, shape);
  s.apply(ev('compacted', { archived: ['a'], restored: [], orphaned: [], deleted: [] }));
  assert.equal(s.shape, shape + 1);
});

test('shown edges, as the full read shows them', () => {
  assert.equal(shownBetween('active', 'archived'), true);
  assert.equal(shownBetween('archived', 'archived'), false);
  assert.equal(shownBetween('active', 'orphaned'), false);
  assert.equal(shownBetween('active', undefined), true);
  assert.equal(shownBetween(undefined, undefined), true);
  assert.equal(shownBetween('archived', undefined), false);
});
