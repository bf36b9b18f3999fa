// Figures of one phase: throughput over wall time and nearest-rank
// percentiles of the per-call latency, as cmd/kgbench computes them.

// percentile returns the p-th percentile (0..100) of sorted numbers,
// nearest rank; 0 for none.
export function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  const i = Math.ceil((p / 100) * sorted.length - 1e-9) - 1;
  return sorted[Math.min(Math.max(i, 0), sorted.length - 1)];
}

// median of numbers (the mean of the middle two for an even count); null
// for none.
export function median(xs) {
  const v = xs.filter((x) => x !== null && x !== undefined && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// summarize turns the latencies (ms) of one phase and its wall time (ms)
// into its figures.
export function summarize(latencies, elapsedMs, errors, firstError) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    ops: sorted.length,
    errors,
    first_error: firstError ?? null,
    elapsed_ms: round(elapsedMs),
    ops_per_s: elapsedMs > 0 ? round((sorted.length / elapsedMs) * 1000) : 0,
    p50_ms: round(percentile(sorted, 50)),
    p99_ms: round(percentile(sorted, 99)),
  };
}

// round keeps three decimals: microseconds of a millisecond figure.
export function round(x) {
  return Math.round(x * 1000) / 1000;
}

// timed runs op(worker, i) for i in [0, n) on `workers` concurrent loops,
// each taking the next i, and times every call. An op that throws counts
// as an error; the phase goes on.
export async function timed(workers, n, op) {
  const lat = [];
  let next = 0;
  let errors = 0;
  let firstError;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (;;) {
        const i = next++;
        if (i >= n) return;
        const t = performance.now();
        try {
          await op(w, i);
        } catch (err) {
          errors++;
          firstError ??= String(err?.message ?? err);
        }
        lat.push(performance.now() - t);
      }
    }),
  );
  return summarize(lat, performance.now() - start, errors, firstError);
}

// alternating times two kinds of call in turn, a then b, n of each, one at
// a time, and returns the figures of each: both see the same moments of
// the machine, so that on a busy one their ratio is the calls', not the
// load's from one phase to the next. ops/s is each kind's calls over the
// time spent in them.
export async function alternating(n, opA, opB) {
  const lat = [[], []];
  const errors = [0, 0];
  const first = [undefined, undefined];
  const ops = [opA, opB];
  for (let i = 0; i < n; i++) {
    for (const k of [0, 1]) {
      const t = performance.now();
      try {
        await ops[k](i);
      } catch (err) {
        errors[k]++;
        first[k] ??= String(err?.message ?? err);
      }
      lat[k].push(performance.now() - t);
    }
  }
  const [a, b] = [0, 1].map((k) => summarize(lat[k], lat[k].reduce((x, y) => x + y, 0), errors[k], first[k]));
  return { a, b };
}
