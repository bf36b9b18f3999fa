// Edge ends as a person types them: is it plainly a reference (a path, an
// address), or does it look like a mistyped node id, and which one?

/** Edit distance of a and b, or Infinity once it passes limit. */
export function distance(a, b, limit = Infinity) {
  if (Math.abs(a.length - b.length) > limit) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, cur[j]);
    }
    if (best > limit) return Infinity;
    prev = cur;
  }
  return prev[b.length];
}

/** Whether an end is plainly meant as a reference: a path or an address. */
export const looksLikeReference = (s) => /[/\\]|:\/\/|^[a-z]+:/.test(s);

/** The node id closest to s, if one is close enough to be a typo of it. */
export function closest(s, ids) {
  const limit = Math.max(1, Math.min(3, Math.floor(s.length / 4)));
  let best = null; let bestD = Infinity;
  const low = s.toLowerCase();
  for (const id of ids) {
    const d = distance(low, id.toLowerCase(), Math.min(limit, bestD));
    if (d < bestD) { best = id; bestD = d; }
  }
  return bestD <= limit ? best : null;
}
