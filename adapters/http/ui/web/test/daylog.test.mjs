// Unit tests of the home view's day from the change log (src/daylog.js) and
// of sessions named for a person (src/sessions.js). Run by e2e/run.sh:
// node --test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChangeLogSource, entriesOfLog, lastDay } from '../src/daylog.js';
import { firstWords, sessionName, sessionsOf, withStats } from '../src/sessions.js';

const P = { level: 'project', projectPath: '/home/dev/app' };
const T1 = '2026-12-07T14:02:03.5Z';
const T2 = '2026-12-07T14:05:00Z';
const node = (seq, id, gist, time = T1, session = 's1', before = null) => ({
  seq, time, session_id: session, principal: '', op: 'put', item: 'node', id, before, after: { id, gist, version: before ? 2 : 1 }, diff: [],
});

test('a graph\'s log becomes the feed\'s entries, keyed as the live events of the same changes', () => {
  const log = [
    node(1, 'retry-policy', 'retry three times on 503 from the billing API'),
    { seq: 2, time: T1, session_id: 's1', op: 'put', item: 'edge', edge: { from: 'retry-policy', to: 'src/http.go', rel: 'touches' } },
    { seq: 3, time: T2, session_id: 's1', op: 'move', item: 'node', id: 'a', tier: { from: 'active', to: 'archived' } },
    { seq: 4, time: T2, session_id: 's1', op: 'move', item: 'node', id: 'b', tier: { from: 'archived', to: 'orphaned' } },
    { seq: 5, time: T2, session_id: 's2', op: 'delete', item: 'edge', edge: { from: 'c', to: 'd', rel: 'uses' } },
    { seq: 6, time: T2, session_id: 's2', op: 'delete', item: 'node', id: 'c' },
    { seq: 7, time: T2, session_id: '', op: 'import_replace', item: 'graph', items: [{}, {}, {}] },
  ].reverse(); // the API gives them newest first
  const es = entriesOfLog(log, P);
  assert.deepEqual(es.map((e) => [e.key, e.kind]), [
    ['project:/home/dev/app|1|n', 'node'],
    ['project:/home/dev/app|2|n', 'edge'],
    ['project:/home/dev/app|4|c', 'compacted'], // a compaction run: the live event's seq is its last move's
    ['project:/home/dev/app|6|n', 'deleted_node'],
    ['project:/home/dev/app|7|n', 'replaced'],
  ]);
  assert.deepEqual(es[2].moves, { archived: ['a'], restored: [], orphaned: ['b'], deleted: [] });
  assert.equal(es[3].edges, 1, 'the edge deleted with its node is counted there, not listed');
  assert.equal(es[4].count, 3);
  assert.equal(es[4].session, null);
  assert.equal(es[0].ts, Date.parse(T1) / 1000);
  assert.deepEqual([es[0].level, es[0].project, es[0].gist], ['project', '/home/dev/app', 'retry three times on 503 from the billing API']);
});

test('a person\'s archive is one entry of its own, keyed as its live event, apart from compaction\'s moves', () => {
  const log = [
    { seq: 3, time: T2, session_id: 'p', op: 'archive', item: 'node', id: 'a', tier: { from: 'active', to: 'archived' } },
    { seq: 4, time: T2, session_id: 'p', op: 'archive', item: 'node', id: 'b', tier: { from: 'active', to: 'archived' } },
    { seq: 5, time: T2, session_id: 'p', op: 'move', item: 'node', id: 'c', tier: { from: 'active', to: 'archived' } },
  ];
  const es = entriesOfLog(log, P);
  assert.deepEqual(es.map((e) => [e.key, e.kind]), [
    ['project:/home/dev/app|4|c', 'archived'],
    ['project:/home/dev/app|5|c', 'compacted'],
  ]);
  assert.deepEqual(es[0].ids, ['a', 'b']);
  assert.equal(es[0].session, 'p');
});

test('a session is named by its agent, project, start and the words of the first node it wrote', () => {
  const es = [
    ...entriesOfLog([node(1, 'user-pref', 'prefers tabs', T1, 's1')], { level: 'user' }),
    ...entriesOfLog([node(3, 'retry-policy', 'retry three times on 503 from the billing API', T2, 's1')], P),
    ...entriesOfLog([{ ...node(2, 'x', 'y', T2, 's2'), principal: 'alice' }], P),
  ];
  const ss = sessionsOf(es);
  assert.equal(sessionName(ss.get('s1'), 's1'), 'Project app · from 14:02 UTC · “prefers tabs”');
  assert.equal(sessionName(ss.get('s2'), 's2'), 'alice · Project app · from 14:05 UTC · “y”');
  assert.equal(sessionName(undefined, '3fa29c0d1e7b4a55'), 'session 3fa29c0d', 'unknown: its id, short');
  assert.equal(firstWords('one two three four five six seven'), 'one two three four five six…');
  // A session that wrote only the user graph is named by the project kg says it is bound to.
  const u = sessionsOf(entriesOfLog([node(1, 'user-pref', 'prefers tabs', T2, 's3')], { level: 'user' })).get('s3');
  assert.equal(sessionName(withStats(u, { project_path: '/home/dev/api', started_at: Date.parse(T1) / 1000 }), 's3'), 'Project api · from 14:02 UTC · “prefers tabs”');
  // The agent whose hooks started the session, outside team mode and in it (after the person).
  assert.equal(sessionName(withStats(ss.get('s1'), { agent: 'codex' }), 's1'), 'codex · Project app · from 14:02 UTC · “prefers tabs”');
  assert.equal(sessionName(withStats(ss.get('s2'), { agent: 'gemini' }), 's2'), 'alice with gemini · Project app · from 14:05 UTC · “y”');
  assert.equal(sessionName(withStats(ss.get('s1'), { agent: null }), 's1'), 'Project app · from 14:02 UTC · “prefers tabs”');
});

test('the day is read once with since=24h, then only what each graph gained; a server without a log hands over', async () => {
  const asked = [];
  const added = [];
  const feed = { add: (l) => added.push(...l) };
  const api = { async history(scope, q) { asked.push(q); return { entries: asked.length === 1 ? [node(9, 'n', 'g')] : [] }; } };
  const src = new ChangeLogSource(api, []);
  src.start(feed);
  await src.refresh([P]);
  await src.refresh([P]);
  assert.deepEqual(asked, [{ since: '24h', limit: 500 }, { sinceSeq: 9, limit: 500 }]);
  assert.equal(added.length, 1);

  const fallback = { started: null, refreshed: 0, start(f) { this.started = f; }, refresh() { this.refreshed++; } };
  const none = new ChangeLogSource({ history: async () => { throw Object.assign(new Error('no such route'), { status: 404, field: '' }); } }, [fallback]);
  none.start(feed);
  await none.refresh([P]);
  await none.refresh([P]);
  assert.equal(fallback.started, feed);
  assert.equal(fallback.refreshed, 2);
});

test('the last day leaves out what is older than 24 hours', () => {
  const now = 1_000_000;
  assert.deepEqual(lastDay([{ ts: now - 10 }, { ts: now - 86_401 }], now), [{ ts: now - 10 }]);
});
