// Unit tests of label placement (src/picture/labels.js) and of edge ends
// (src/ends.js). Run by e2e/run.sh (make e2e): node --test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { placeLabels, labelText } from '../src/picture/labels.js';
import { closest, distance, looksLikeReference } from '../src/ends.js';
import { rng } from '../../../../../e2e/browser/graphs.mjs';

const view = { width: 800, height: 600, max: 1000 };
const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

test('no two labels overlap, whatever the crowd', () => {
  const r = rng(3);
  const cands = Array.from({ length: 800 }, (_, i) => ({ id: `n${i}`, sx: r() * 800, sy: r() * 600, r: 5, w: 40 + r() * 80 }));
  const placed = [...placeLabels(cands, view).values()];
  assert.ok(placed.length > 50 && placed.length < 800, `some but not all placed: ${placed.length}`);
  for (let i = 0; i < placed.length; i++) for (let j = i + 1; j < placed.length; j++) assert.ok(!overlap(placed[i], placed[j]), `${i} and ${j}`);
  for (const b of placed) assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.w <= 800 && b.y + b.h <= 600, 'in view');
});

test('right of the node first, then left, above, below', () => {
  const one = (sx) => placeLabels([{ id: 'a', sx, sy: 100, r: 5, w: 60 }], view).get('a');
  assert.equal(one(100).side, 'right');
  assert.equal(one(780).side, 'left', 'no room on the right');
  const two = placeLabels([
    { id: 'a', sx: 100, sy: 100, r: 5, w: 60 },
    { id: 'b', sx: 100, sy: 104, r: 5, w: 60 }, // right and left taken by a's: above or below
  ], view);
  assert.ok(['above', 'below', 'left'].includes(two.get('b').side), two.get('b').side);
  assert.ok(!overlap(two.get('a'), two.get('b')));
});

test('priority decides who gets the place; the selection always gets one', () => {
  const same = [0, 1, 2, 3, 4, 5].map((i) => ({ id: `n${i}`, sx: 100, sy: 100, r: 5, w: 60 }));
  const placed = placeLabels(same, view);
  assert.ok(placed.has('n0') && !placed.has('n5'), 'first come first placed');
  const capped = placeLabels([{ id: 'x', sx: 10, sy: 10, r: 5, w: 60 }, { id: 'sel', sx: 400, sy: 300, r: 5, w: 60, must: true }], { ...view, max: 1 });
  assert.ok(capped.has('sel'), 'a must label passes the cap');
});

test('labels that stay keep their place, and newcomers avoid them', () => {
  const stay = new Map([['old', { x: 110, y: 92, w: 60, h: 15, side: 'right' }]]);
  const placed = placeLabels([{ id: 'new', sx: 100, sy: 100, r: 5, w: 60 }], view, stay);
  assert.deepEqual(placed.get('old'), stay.get('old'));
  assert.ok(placed.has('new') && !overlap(placed.get('new'), placed.get('old')));
});

test('no label covers another vertex\'s marker; one that cannot avoid them all is left out', () => {
  const r = rng(5);
  const markers = Array.from({ length: 300 }, () => ({ sx: r() * 800, sy: r() * 600, r: 5 }));
  const cands = markers.map((m, i) => ({ id: `n${i}`, ...m, w: 40 + r() * 60 }));
  const placed = placeLabels(cands, view, null, markers);
  assert.ok(placed.size > 20, `some placed: ${placed.size}`);
  const box = (m) => ({ x: m.sx - m.r, y: m.sy - m.r, w: 2 * m.r, h: 2 * m.r });
  for (const b of placed.values()) for (const m of markers) assert.ok(!overlap(b, box(m)), 'a label covers a marker');
  // Without the markers, the same crowd puts labels on them.
  const blind = [...placeLabels(cands, view).values()];
  assert.ok(blind.some((b) => markers.some((m) => overlap(b, box(m)))), 'the check can fail');
  // A marker right of a vertex sends its label to the left.
  const two = placeLabels([{ id: 'a', sx: 100, sy: 100, r: 5, w: 60 }], view, null, [{ sx: 100, sy: 100, r: 5 }, { sx: 130, sy: 100, r: 5 }]);
  assert.equal(two.get('a').side, 'left');
  // Markers on every side: a label that is read looks farther, and still covers none.
  const boxed = [{ sx: 100, sy: 100, r: 5 }, { sx: 130, sy: 100, r: 5 }, { sx: 70, sy: 100, r: 5 }, { sx: 100, sy: 80, r: 5 }, { sx: 100, sy: 120, r: 5 }];
  assert.equal(placeLabels([{ id: 'a', sx: 100, sy: 100, r: 5, w: 60 }], view, null, boxed).has('a'), false);
  const read = placeLabels([{ id: 'a', sx: 100, sy: 100, r: 5, w: 60, keep: true }], view, null, boxed).get('a');
  assert.ok(read, 'a read label with a free corner is drawn');
  for (const m of boxed.slice(1)) assert.ok(!overlap(read, box(m)), 'the read label covers a marker');
  assert.ok(!read.over, 'a read label with a free place is not marked as over a marker');
  // A crowd of markers all round: a read label goes over one rather than go
  // missing, and says so; any other label is left out.
  const crowd = [];
  for (let x = 0; x <= 200; x += 9) for (let y = 40; y <= 160; y += 9) crowd.push({ sx: x, sy: y, r: 4 });
  const over = placeLabels([{ id: 'a', sx: 100, sy: 100, r: 5, w: 60, keep: true }], view, null, crowd).get('a');
  assert.ok(over?.over, 'a read label with no free place is drawn over a marker, marked over');
  assert.equal(placeLabels([{ id: 'a', sx: 100, sy: 100, r: 5, w: 60 }], view, null, crowd).has('a'), false);
});

test('long ids are cut', () => {
  assert.equal(labelText('short'), 'short');
  assert.equal(labelText('x'.repeat(40)), `${'x'.repeat(31)}…`);
});

test('a mistyped id finds the node it meant; paths and addresses are references', () => {
  const ids = ['lesson-01-testing', 'lesson-02-naming', 'auth-token-refresh'];
  assert.equal(closest('lesson-01-testin', ids), 'lesson-01-testing');
  assert.equal(closest('Auth-Token-Refresh', ids), 'auth-token-refresh');
  assert.equal(closest('an-idea-for-later', ids), null);
  assert.equal(distance('kitten', 'sitting'), 3);
  assert.equal(distance('abc', 'abcdefgh', 2), Infinity);
  for (const s of ['docs/style.md', 'C:\\\\x', 'https://example.com', 'mailto:a']) assert.ok(looksLikeReference(s), s);
  for (const s of ['lesson-01-testin', 'README.md']) assert.ok(!looksLikeReference(s), s);
});
