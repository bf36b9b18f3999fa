// Small formatting helpers shared by the panels.

export const TIERS = ['active', 'archived', 'orphaned'];

/** The first defined value among keys of obj. */
export function pick(obj, ...keys) {
  for (const k of keys) if (obj && obj[k] !== undefined && obj[k] !== null) return obj[k];
  return undefined;
}

/** A stored time (seconds as a float, or microseconds as an integer) as a Date. */
export function toDate(v) {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return null;
  return new Date(v > 1e14 ? v / 1000 : v * 1000);
}

export function formatTime(v) {
  const d = toDate(v);
  return d ? d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : '—';
}

export function percent(p) {
  return typeof p === 'number' ? `${ordinal(Math.round(p * 100))} percentile` : '—';
}

/** A use count (65,536 per session) in sessions, two decimals, truncated. */
export function sessions(use) {
  return typeof use === 'number' ? (Math.floor((use * 100) / 65536) / 100).toFixed(2) : '—';
}

/** A day number (Unix time / 86,400 s) as 2006-01-02. */
export function formatDay(day) {
  return typeof day === 'number' && day > 0 ? new Date(day * 86400000).toISOString().slice(0, 10) : 'never';
}

/** A duration in seconds for a person: "3 d 4 h", "12 min", "none". */
export function duration(seconds) {
  if (typeof seconds !== 'number' || seconds <= 0) return 'none (past grace)';
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${m} min`;
  return `${Math.max(1, m)} min`;
}

export function ordinal(n) {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

/** Short label of a graph scope. */
export function scopeLabel(scope) {
  if (scope.level === 'user') return 'User graph';
  const parts = scope.projectPath.split('/').filter(Boolean);
  return `Project ${parts[parts.length - 1] ?? scope.projectPath}`;
}

/**
 * For each path, its shortest tail of folders that no other path ends
 * with: /home/a/app and /home/b/app give a/app and b/app. What tells
 * projects apart, put first where a narrow selector cuts the rest.
 * @returns {Map<string, string>}
 */
export function distinctTails(paths) {
  const parts = new Map(paths.map((p) => [p, p.split('/').filter(Boolean)]));
  const out = new Map();
  for (const [p, ps] of parts) {
    let n = 1;
    const tail = (l, k) => l.slice(-k).join('/');
    while (n < ps.length && [...parts].some(([q, qs]) => q !== p && tail(qs, n) === tail(ps, n))) n++;
    out.set(p, tail(ps, n) || p);
  }
  return out;
}

/** A project's entry in the graph selector: its distinct tail first, then the full path. */
export function projectOption(path, tail) {
  return tail && tail !== path.replace(/^\/+/, '') ? `Project ${tail} — ${path}` : `Project ${path}`;
}
