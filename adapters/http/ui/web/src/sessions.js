// Sessions named for a person (docs/design/http.md#sessions-named-for-a-person): where a
// bare session id was shown, the page says whose work it was — the agent
// where kg knows it (a team server's person, the agent whose hooks started
// the session), the project, when it started
// and the words of the first node it wrote — from the changes it lists.

import { scopeLabel } from './format.js';
import { scopeOf } from './api.js';

const WORDS = 6;

/** The first words of a gist, for a name: at most WORDS, with "…" when cut. */
export function firstWords(text, n = WORDS) {
  const words = String(text ?? '').trim().split(/\s+/).filter(Boolean);
  return words.length > n ? `${words.slice(0, n).join(' ')}…` : words.join(' ');
}

/**
 * What the feed's entries tell of each session: {id, start (seconds, its
 * first change listed), last, project (a project path, or null when it
 * wrote only the user graph), agent, first ({id, gist}: the first node it
 * wrote), count}. list: feed entries, any order.
 */
export function sessionsOf(list) {
  const out = new Map();
  const oldestFirst = [...list].sort((a, b) => a.ts - b.ts || (a.seq ?? 0) - (b.seq ?? 0));
  for (const e of oldestFirst) {
    if (!e.session) continue;
    let s = out.get(e.session);
    if (!s) {
      s = { id: e.session, start: e.ts, last: e.ts, project: null, agent: '', first: null, count: 0 };
      out.set(e.session, s);
    }
    s.last = e.ts;
    s.count++;
    if (e.project && !s.project) s.project = e.project;
    if (e.principal && !s.agent) s.agent = e.principal;
    if (!s.first && e.kind === 'node') s.first = { id: e.id, gist: e.gist ?? '' };
  }
  return out;
}

const clock = (ts) => new Date(ts * 1000).toISOString().slice(11, 16);

/** A session's name for a person: "alice · Project app · 14:02 UTC · “retry three times on 503”". */
export function sessionName(info, id) {
  if (!info) return id ? `session ${id.slice(0, 8)}` : 'no session';
  const parts = [];
  if (info.agent) parts.push(info.agent);
  parts.push(info.project ? scopeLabel(scopeOf('project', info.project)) : 'User graph');
  parts.push(`from ${clock(info.start)} UTC`);
  const words = info.first ? firstWords(info.first.gist) || info.first.id : '';
  if (words) parts.push(`“${words}”`);
  return parts.join(' · ');
}

/**
 * info with what kg said of the session (GET /api/sessions/{id}/stats):
 * the agent its hooks said it runs in (claude-code, codex, gemini; after the
 * person on a team server), the project it is bound to, and its start, when
 * the changes listed do not tell them (a session that wrote only the user
 * graph).
 */
export function withStats(info, stats) {
  if (!info || !stats) return info;
  const start = typeof stats.started_at === 'number' && stats.started_at > 0 ? Math.min(info.start, stats.started_at) : info.start;
  const agent = [info.agent, stats.agent].filter(Boolean).join(' with ');
  return { ...info, agent, project: info.project ?? stats.project_path ?? null, start };
}
