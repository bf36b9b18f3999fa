// Reads GET /api/compaction/plan into the shape the page shows: the moves a
// run would make now, each with its reason, and the ranking of every node
// (percentiles, score, grace left) that explains them.
import { pick } from './format.js';

/** Grace left in seconds, whatever unit the server sent. */
function graceSeconds(r) {
  const s = pick(r, 'grace_left_s', 'grace_left_seconds');
  if (typeof s === 'number') return s;
  const us = pick(r, 'grace_left_us', 'grace_left');
  return typeof us === 'number' ? us / 1e6 : 0;
}

function rankOf(r) {
  if (!r) return null;
  return {
    id: pick(r, 'id', 'ID'),
    tier: pick(r, 'tier'),
    score: pick(r, 'score', 'Score'),
    scoring: pick(r, 'scoring'),
    pUse: pick(r, 'p_use', 'PUse'),
    use: pick(r, 'use', 'Use'),
    useDay: pick(r, 'use_day', 'UseDay'),
    pRecency: pick(r, 'p_recency', 'recency_percentile', 'PRecency'),
    pConnectedness: pick(r, 'p_connectedness', 'connectedness_percentile', 'PConnectedness'),
    recency: pick(r, 'recency', 'recency_ts', 'Recency'),
    connectedness: pick(r, 'connectedness', 'Connectedness'),
    eligible: pick(r, 'eligible', 'Eligible') ?? true,
    graceLeft: graceSeconds(r),
    inGrace: pick(r, 'in_grace') ?? graceSeconds(r) > 0,
    position: pick(r, 'position', 'rank'),
  };
}

export function normalizePlan(p) {
  if (!p) return null;
  const moves = (pick(p, 'moves', 'steps') ?? []).map((m) => ({
    id: pick(m, 'id', 'ID'),
    from: pick(m, 'from', 'From'),
    to: pick(m, 'to', 'To'),
    pruned: !!pick(m, 'pruned', 'Pruned') || pick(m, 'to') === 'deleted',
    pass: pick(m, 'pass', 'Pass'),
    reason: pick(m, 'reason', 'Reason') ?? '',
    rank: rankOf(pick(m, 'rank', 'Rank')),
  }));
  const ranking = (pick(p, 'ranking') ?? []).map(rankOf);
  // Rank order, lowest (first to be archived) first: score, recency, id.
  const ordered = ranking.filter((r) => r.eligible && typeof r.score === 'number')
    .sort((a, b) => a.score - b.score || (a.recency ?? 0) - (b.recency ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const positions = new Map(ordered.map((r, i) => [r.id, i + 1]));
  // The formula the scores were computed with, as the server gives it: the
  // page writes no weights of its own.
  const weights = pick(p, 'weights') ?? null;
  // The score the ranking is by: "use" (p_use) or "seed" (the weights);
  // a server that does not say is one from before the use count.
  const scoring = pick(p, 'scoring') ?? 'seed';
  return {
    moves,
    scoring,
    ranking: new Map(ranking.map((r) => [r.id, { ...r, scoring: r.scoring ?? scoring, position: r.position ?? positions.get(r.id), of: ordered.length, weights }])),
    estimateBefore: pick(p, 'estimate_before', 'estimate', 'EstimateBefore'),
    estimateAfter: pick(p, 'estimate_after', 'EstimateAfter'),
    max: pick(p, 'max_tokens', 'max', 'budget'),
    target: pick(p, 'target', 'target_tokens'),
    overBudget: !!pick(p, 'over_budget', 'OverBudget'),
  };
}

const tieBreak = {
  archive: 'least recently used first, then by id, a before z',
  'archive-for-swap': 'least recently used first, then by id, a before z',
  resurrect: 'most recently used first, then by id, a before z',
};

/**
 * Why tied moves come in the order they do: for each move that shares its
 * pass and score with others, a note stating the tie-break — the rank
 * order of domain/score.go (score, then recency, then id).
 * @returns {Map<string, string>} id → note
 */
export function tieNotes(moves) {
  const groups = new Map();
  for (const m of moves) {
    const score = m.rank?.score;
    if (typeof score !== 'number' || !tieBreak[m.pass]) continue;
    const k = `${m.pass}|${score}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(m);
  }
  const out = new Map();
  for (const [k, l] of groups) {
    if (l.length < 2) continue;
    const pass = k.slice(0, k.indexOf('|'));
    for (const m of l) {
      out.set(m.id, `tied with ${l.length - 1} other${l.length === 2 ? '' : 's'} at score ${m.rank.score.toFixed(4)}: ties go ${tieBreak[pass]}`);
    }
  }
  return out;
}
