// Tests of the harness's own logic — percentiles, the write checks, the
// targets and the chart — on data made here. run.sh runs them before every
// run (node --test bench/peers/); they take well under a second.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { alternating, median, percentile, summarize } from './stats.mjs';
import { verifyKG, verifyPeer } from './check.mjs';
import { evaluate } from './targets.mjs';
import { chart, points } from './chart.mjs';

describe('stats', () => {
  it('takes nearest-rank percentiles as kgbench does', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    for (const [xs, p, want] of [[[], 50, 0], [[7], 99, 7], [[1, 2, 3, 4], 50, 2], [hundred, 50, 50], [hundred, 99, 99], [hundred, 100, 100]]) {
      assert.equal(percentile(xs, p), want, `percentile(${xs.length} values, ${p})`);
    }
  });

  it('takes the median of an odd and an even count, skipping missing figures', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([null, 5, undefined]), 5);
    assert.equal(median([]), null);
  });

  it('summarizes a phase: ops over wall time and sorted percentiles', () => {
    const s = summarize([5, 1, 3, 2, 4], 500, 1, 'boom');
    assert.deepEqual(s, { ops: 5, errors: 1, first_error: 'boom', elapsed_ms: 500, ops_per_s: 10, p50_ms: 3, p99_ms: 5 });
  });
});

const nodes = [
  { id: 'n000001', gist: 'g1', notes: ['a', 'b'] },
  { id: 'n000002', gist: 'g2', notes: ['c', 'd'] },
  { id: 'n000003', gist: 'g3', notes: ['e', 'f'] },
];
const edges = [
  { from: 'n000001', to: 'n000002', rel: 'relates-to' },
  { from: 'n000002', to: 'n000003', rel: 'relates-to' },
];

describe('alternating', () => {
  it('times two kinds of call in turn, each with its own figures', async () => {
    const order = [];
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    const { a, b } = await alternating(4, async (i) => { order.push(`a${i}`); await sleep(8); }, async (i) => {
      order.push(`b${i}`);
      if (i === 2) throw new Error('no');
    });
    assert.deepEqual(order, ['a0', 'b0', 'a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
    assert.equal(a.ops, 4);
    assert.equal(b.ops, 4);
    assert.equal(b.errors, 1);
    assert.equal(b.first_error, 'no');
    assert.ok(a.p50_ms >= 7 && b.p50_ms < a.p50_ms, `a ${a.p50_ms} ms, b ${b.p50_ms} ms`);
  });
});

describe('checks', () => {
  it('finds every write of kg in its export, whatever the tier', async () => {
    const conn = { exportGraph: async () => ({ nodes: nodes.map((n, i) => ({ ...n, tier: i ? 'archived' : 'active' })), edges }) };
    const c = await verifyKG(conn, nodes, edges);
    assert.equal(c.ok, true, c.problems.join('; '));
    assert.deepEqual([c.nodes_found, c.edges_found], [3, 2]);
  });

  it('reports kg nodes missing or changed, and edges missing', async () => {
    const conn = {
      exportGraph: async () => ({ nodes: [nodes[0], { ...nodes[1], notes: ['c'] }], edges: [edges[0]] }),
    };
    const c = await verifyKG(conn, nodes, edges);
    assert.equal(c.ok, false);
    assert.deepEqual([c.nodes_found, c.edges_found], [1, 1]);
    assert.deepEqual(c.problems, ['node n000002: other content', 'node n000003 missing', 'edge n000002 --relates-to--> n000003 missing']);
  });

  it('counts the peer\'s entities by their observations and its relations', async () => {
    const entities = nodes.map((n) => ({ name: n.id, entityType: 'node', observations: n.notes }));
    entities[2].observations = ['e'];
    const relations = [{ from: 'n000001', to: 'n000002', relationType: 'relates-to' }];
    const c = await verifyPeer({ readGraph: async () => ({ entities, relations }) }, nodes, edges);
    assert.equal(c.ok, false);
    assert.deepEqual([c.nodes_found, c.edges_found], [2, 1]);
  });
});

// run is one run's record with the figures the targets read.
function run(server, size, rep, p50, opsPerS, extra = {}) {
  const phase = (k) => ({ ops_per_s: opsPerS * k, p50_ms: p50 / k, p99_ms: 2 * p50 / k });
  return {
    server, size, rep,
    phases: { create: phase(1), edge: phase(1), search: phase(1), full_read: phase(1), floor: { ops_per_s: 1000, p50_ms: 1, p99_ms: 2 } },
    ...extra,
  };
}

describe('targets', () => {
  const results = { runs: [] };
  for (const rep of [1, 2, 3]) {
    for (const size of [1000, 5000, 20000]) {
      const conc = (r) => ({ concurrent: { one: { ops_per_s: 100 }, many: { ops_per_s: 100 * r } } });
      results.runs.push(run('kg-json', size, rep, size === 20000 ? 3 : 1.5, 600, conc(5)));
      results.runs.push(run('kg-bolt', size, rep, 1.5, 100 * rep, conc(3)));
      if (size <= 5000) results.runs.push(run('peer', size, rep, 10, 100));
      results.runs.push({ server: 'fsync', size, rep, phases: { fsync: { p50_ms: 0.2 } } });
    }
  }
  const rows = evaluate(results);
  const find = (what) => rows.find((r) => r.what === what);

  it('takes each ratio within one repetition, then the median', () => {
    // bolt's create is 100, 200, 300 ops/s against the peer's 100: ×1, ×2, ×3.
    assert.equal(find('kg-bolt / peer create ops/s at 5000').got, 2);
    assert.equal(find('kg-bolt / peer create ops/s at 5000').met, false);
    assert.equal(find('kg-json / peer create ops/s at 5000').got, 6);
    assert.equal(find('kg-json / peer create ops/s at 5000').met, true);
  });

  it('says a target not measured when the peer did not run at that size', () => {
    const row = find('kg-json / peer create ops/s at 20000');
    assert.equal(row.got, null);
    assert.equal(row.met, null);
  });

  it('compares p50 at the largest size with the smallest', () => {
    assert.equal(find('kg-json create p50 at 20000 / at 1000').got, 2);
    assert.equal(find('kg-json create p50 at 20000 / at 1000').met, false);
    assert.equal(find('kg-bolt create p50 at 20000 / at 1000').met, true);
  });

  it('takes search against the no-write call from the calls in turn when a run has them', () => {
    assert.equal(find('kg-json search p50 / no-write call p50 at 20000, calls in turn'), undefined);
    const alt = { runs: results.runs.map((r) => r.server !== 'kg-json' || r.size !== 20000 ? r
      : { ...r, phases: { ...r.phases, search_alt: { p50_ms: 1.5 * r.rep }, floor_alt: { p50_ms: 1 } } }) };
    const row = evaluate(alt).find((r) => r.what === 'kg-json search p50 / no-write call p50 at 20000, calls in turn');
    assert.equal(row.got, 3); // ×1.5, ×3, ×4.5: the median
    assert.equal(row.met, false);
  });

  it('reads the concurrent phase', () => {
    assert.equal(find('kg-json 16 clients / 1 client write ops/s at 5000').met, true);
    assert.equal(find('kg-bolt 16 clients / 1 client write ops/s at 5000').met, false);
  });
});

describe('chart', () => {
  const results = {
    started: '2026-12-01T00:00:00Z', machine: { nproc: 2, cpu: 'Test CPU' }, config: { reps: 1 },
    runs: [
      run('kg-json', 1000, 1, 2, 500), run('kg-json', 5000, 1, 4, 250),
      run('kg-bolt', 1000, 1, 1.5, 600), run('kg-bolt', 5000, 1, 1.5, 600),
      run('peer', 1000, 1, 8, 120), run('peer', 5000, 1, 20, 50),
      { server: 'fsync', size: 1000, rep: 1, phases: { fsync: { p50_ms: 0.2 } } },
      { server: 'fsync', size: 5000, rep: 1, phases: { fsync: { p50_ms: 0.3 } } },
    ],
  };

  it('draws each server\'s create p50 and the two floors, at each size', () => {
    const byKey = Object.fromEntries(points(results).map((s) => [s.key, s.points]));
    assert.deepEqual(byKey['kg-json'], [[1000, 2], [5000, 4]]);
    assert.deepEqual(byKey.peer, [[1000, 8], [5000, 20]]);
    assert.deepEqual(byKey.floor, [[1000, 1], [5000, 1]]);
    assert.deepEqual(byKey.fsync, [[1000, 0.2], [5000, 0.3]]);
  });

  it('is one SVG document with a point per server and size, and a legend entry per line', () => {
    const svg = chart(results);
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.match(svg, /<\/svg>\n$/);
    assert.equal((svg.match(/<circle /g) ?? []).length, 6);
    for (const label of ['kg json: create p50', 'kg bolt: create p50', 'peer: create p50', 'floor: kg call, no write', 'floor: 1 KiB write+fsync']) {
      assert.ok(svg.includes(label), `legend lacks ${label}`);
    }
  });
});
