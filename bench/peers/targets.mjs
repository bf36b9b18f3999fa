// The targets of docs/design/benchmarks.md, evaluated on the results of one
// bench/peers run: every figure is the median over the run's repetitions,
// and every ratio is between figures of the same run.

import { median } from './stats.mjs';

// fig returns the median over repetitions of phase[field] for one server
// at one size, or null when not measured.
export function fig(results, server, size, phase, field) {
  const xs = results.runs
    .filter((r) => r.server === server && r.size === size && r.phases?.[phase])
    .map((r) => r.phases[phase][field]);
  return median(xs);
}

// ratio returns the median over repetitions of the per-repetition ratio
// a/b of one field, so that both figures of a ratio come from the same
// round of interleaved runs.
export function ratio(results, [sa, pa], [sb, pb], size, field) {
  const xs = [];
  for (const rep of new Set(results.runs.map((r) => r.rep))) {
    const a = results.runs.find((r) => r.server === sa && r.size === size && r.rep === rep)?.phases?.[pa]?.[field];
    const b = results.runs.find((r) => r.server === sb && r.size === size && r.rep === rep)?.phases?.[pb]?.[field];
    if (a != null && b) xs.push(a / b);
  }
  return median(xs);
}

// concurrencyRatio is the median over repetitions of ops/s with 16 clients
// over ops/s with one, for a backend at a size.
function concurrencyRatio(results, server, size) {
  return median(results.runs
    .filter((r) => r.server === server && r.size === size && r.concurrent)
    .map((r) => r.concurrent.many.ops_per_s / r.concurrent.one.ops_per_s));
}

// evaluate returns one row per target and backend:
// {target, what, want, got, met} with met null when not measured.
export function evaluate(results) {
  const sizes = [...new Set(results.runs.map((r) => r.size))].sort((a, b) => a - b);
  const lo = sizes[0];
  const hi = sizes.at(-1);
  const mid = sizes.includes(5000) ? 5000 : null;
  const has20k = sizes.includes(20000);
  const rows = [];
  const row = (target, what, want, got, cmp) =>
    rows.push({ target, what, want, got, met: got == null ? null : cmp(got) });
  const atMost = (x) => (g) => g <= x;
  const atLeast = (x) => (g) => g >= x;

  for (const b of ['json', 'bolt']) {
    const s = `kg-${b}`;
    for (const ph of ['create', 'edge']) {
      const a = fig(results, s, hi, ph, 'p50_ms');
      const z = fig(results, s, lo, ph, 'p50_ms');
      row('flat in graph size', `${s} ${ph} p50 at ${hi} / at ${lo}`, '≤ 1.5×',
        a != null && z && hi !== lo ? a / z : null, atMost(1.5));
    }
    for (const size of sizes) {
      row('near the floor (client)', `${s} create p50 / no-write call p50 at ${size}`, '≤ 2×',
        ratio(results, [s, 'create'], [s, 'floor'], size, 'p50_ms'), atMost(2));
    }
    for (const [size, want] of [[mid, 5], [has20k ? 20000 : null, 15]]) {
      if (size == null) continue;
      for (const ph of ['create', 'edge']) {
        row('against the peer', `${s} / peer ${ph} ops/s at ${size}`, `≥ ${want}×`,
          ratio(results, [s, ph], ['peer', ph], size, 'ops_per_s'), atLeast(want));
      }
    }
    if (mid != null) {
      row('against the peer', `${s} / peer search ops/s at ${mid}`, '≥ 8×',
        ratio(results, [s, 'search'], ['peer', 'search'], mid, 'ops_per_s'), atLeast(8));
      row('against the peer', `${s} / peer full read ops/s at ${mid}`, '≥ 20×',
        ratio(results, [s, 'full_read'], ['peer', 'full_read'], mid, 'ops_per_s'), atLeast(20));
    }
    row('search is an index', `${s} search p50 / no-write call p50 at ${hi}`, '≤ 2×',
      ratio(results, [s, 'search'], [s, 'floor'], hi, 'p50_ms'), atMost(2));
    // The same, from the calls made in turn (search_alt, floor_alt), when
    // the run has them: the ratio with no change of load between the two.
    if (results.runs.some((r) => r.server === s && r.size === hi && r.phases?.search_alt)) {
      row('search is an index', `${s} search p50 / no-write call p50 at ${hi}, calls in turn`, '≤ 2×',
        ratio(results, [s, 'search_alt'], [s, 'floor_alt'], hi, 'p50_ms'), atMost(2));
    }
    for (const size of sizes) {
      row('concurrency', `${s} 16 clients / 1 client write ops/s at ${size}`, '≥ 4×',
        concurrencyRatio(results, s, size), atLeast(4));
    }
  }
  return rows;
}

// verdict is the word for a row's outcome.
export function verdict(met) {
  return met == null ? 'not measured' : met ? 'met' : 'NOT MET';
}
