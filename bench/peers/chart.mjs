// chart.mjs draws the chart of one bench/peers run as SVG, with nothing but
// Node: the write (create) p50 against graph size for kg-json, kg-bolt and
// the peer, with the two floors as lines — a kg call that writes nothing,
// through the same client, and a 1 KiB write + fsync on the same disk.
// Both axes are logarithmic; every point is the median over the run's
// repetitions.
//
// Usage: node chart.mjs results.json out.svg

import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

import { median } from './stats.mjs';

const W = 720;
const H = 440;
const M = { left: 70, right: 190, top: 48, bottom: 56 };

// series are what the chart draws, in the legend's order.
const series = [
  { key: 'kg-json', label: 'kg json: create p50', color: '#1f77b4', phase: 'create', servers: ['kg-json'] },
  { key: 'kg-bolt', label: 'kg bolt: create p50', color: '#2ca02c', phase: 'create', servers: ['kg-bolt'] },
  { key: 'peer', label: 'peer: create p50', color: '#d62728', phase: 'create', servers: ['peer'] },
  { key: 'floor', label: 'floor: kg call, no write', color: '#555', dash: '6 4', phase: 'floor', servers: ['kg-json', 'kg-bolt'] },
  { key: 'fsync', label: 'floor: 1 KiB write+fsync', color: '#999', dash: '2 3', phase: 'fsync', servers: ['fsync'] },
];

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmtMs = (v) => (v >= 10 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toPrecision(1)) + ' ms';
const fmtN = (n) => (n >= 1000 ? `${n / 1000}k` : String(n));

// points returns, per series, [size, p50 ms] for every size the run has a
// figure at (the median over repetitions, and over both backends for the
// kg floor).
export function points(results) {
  const sizes = [...new Set(results.runs.map((r) => r.size))].sort((a, b) => a - b);
  return series.map((s) => ({
    ...s,
    points: sizes
      .map((n) => [n, median(results.runs
        .filter((r) => s.servers.includes(r.server) && r.size === n && r.phases?.[s.phase])
        .map((r) => r.phases[s.phase].p50_ms))])
      .filter(([, v]) => v != null && v > 0),
  })).filter((s) => s.points.length > 0);
}

// repsText says how many rounds the medians are of: "3", or "3 (20k: 1)"
// when a run was cut short.
function repsText(results) {
  const per = new Map();
  for (const r of results.runs) {
    if (r.server === 'fsync') continue;
    per.set(r.size, Math.max(per.get(r.size) ?? 0, r.rep));
  }
  const most = Math.max(0, ...per.values());
  const fewer = [...per].filter(([, n]) => n < most).map(([size, n]) => `${fmtN(size)}: ${n}`);
  return fewer.length ? `${most} (${fewer.join(', ')})` : String(most);
}

// chart returns the SVG document of one run's results.
export function chart(results) {
  const ss = points(results);
  const xs = ss.flatMap((s) => s.points.map(([x]) => x));
  const ys = ss.flatMap((s) => s.points.map(([, y]) => y));
  if (xs.length === 0) throw new Error('the results hold no figure to draw');
  let [x0, x1] = [Math.log10(Math.min(...xs)), Math.log10(Math.max(...xs))];
  if (x1 - x0 < 0.1) [x0, x1] = [x0 - 0.5, x1 + 0.5];
  const pad = 0.15 * (x1 - x0);
  [x0, x1] = [x0 - pad, x1 + pad];
  const y0 = Math.floor(Math.log10(Math.min(...ys)));
  const y1 = Math.ceil(Math.log10(Math.max(...ys)));
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const X = (x) => M.left + ((Math.log10(x) - x0) / (x1 - x0)) * pw;
  const Y = (y) => M.top + ph - ((Math.log10(y) - y0) / Math.max(y1 - y0, 1)) * ph;

  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  const m = results.machine ?? {};
  out.push(`<text x="${M.left}" y="22" font-size="15" font-weight="bold">Write p50 against graph size, through the MCP TypeScript client</text>`);
  out.push(`<text x="${M.left}" y="38" fill="#555">${esc(`${m.nproc ?? '?'} × ${m.cpu ?? '?'}, ${(results.started ?? '').slice(0, 10)}; medians of ${repsText(results)} interleaved runs; log–log`)}</text>`);
  // grid and axes
  for (let e = y0; e <= Math.max(y1, y0 + 1); e++) {
    for (const k of [1, 2, 5]) {
      const v = k * 10 ** e;
      if (Math.log10(v) > Math.max(y1, y0 + 1) + 1e-9) continue;
      const y = Y(v);
      out.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="${k === 1 ? '#ddd' : '#f0f0f0'}"/>`);
      out.push(`<text x="${M.left - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end" fill="#333">${fmtMs(v)}</text>`);
    }
  }
  for (const x of [...new Set(xs)]) {
    out.push(`<line x1="${X(x).toFixed(1)}" x2="${X(x).toFixed(1)}" y1="${M.top}" y2="${M.top + ph}" stroke="#eee"/>`);
    out.push(`<text x="${X(x).toFixed(1)}" y="${M.top + ph + 18}" text-anchor="middle" fill="#333">${fmtN(x)}</text>`);
  }
  out.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  out.push(`<text x="${M.left + pw / 2}" y="${H - 14}" text-anchor="middle">graph size (nodes)</text>`);
  out.push(`<text transform="translate(16 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">p50 latency</text>`);
  // series
  for (const s of ss) {
    const d = s.points.map(([x, y], i) => `${i ? 'L' : 'M'}${X(x).toFixed(1)} ${Y(y).toFixed(1)}`).join(' ');
    out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
    if (!s.dash) {
      for (const [x, y] of s.points) {
        out.push(`<circle cx="${X(x).toFixed(1)}" cy="${Y(y).toFixed(1)}" r="3.5" fill="${s.color}"><title>${esc(`${s.label} at ${x}: ${y.toFixed(2)} ms`)}</title></circle>`);
      }
    }
  }
  // legend
  ss.forEach((s, i) => {
    const y = M.top + 10 + i * 22;
    const x = M.left + pw + 14;
    out.push(`<line x1="${x}" x2="${x + 26}" y1="${y}" y2="${y}" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
    out.push(`<text x="${x + 32}" y="${y + 4}">${esc(s.label)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    process.stderr.write('Usage: node chart.mjs results.json out.svg\n');
    process.exit(2);
  }
  writeFileSync(output, chart(JSON.parse(readFileSync(input, 'utf8'))));
}
