// Unit tests of the bulk actions (src/bulk.js) and of the plan's ties
// (src/plan.js tieNotes). Run by e2e/run.sh: node --test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pickedDocument, pickedFileName, runArchive, runBulk } from '../src/bulk.js';
import { tieNotes } from '../src/plan.js';

test('an export of picked nodes holds them and the edges among them, nothing else', () => {
  const doc = { format: 'kg-graph', version: 1, level: 'user', nodes: [{ id: 'a' }, { id: 'b' }, { id: 'c' }],
    edges: [{ from: 'a', to: 'b', rel: 'r' }, { from: 'a', to: 'c', rel: 'r' }, { from: 'b', to: 'src/x.go', rel: 'touches' }], progress: { t: {} } };
  const out = pickedDocument(doc, ['a', 'b']);
  assert.deepEqual(out.nodes.map((n) => n.id), ['a', 'b']);
  assert.deepEqual(out.edges, [{ from: 'a', to: 'b', rel: 'r' }]);
  assert.deepEqual([out.format, out.version, out.level, out.progress], ['kg-graph', 1, 'user', {}]);
  assert.equal(pickedFileName({ level: 'project', projectPath: '/home/dev/app' }, 3), 'app-3-nodes.kg.json');
  assert.equal(pickedFileName({ level: 'user' }, 1), 'user-graph-1-node.kg.json');
});

test('a bulk action runs under one new session and stops at the first failure', async () => {
  const calls = [];
  const api = { registerSession: async (p) => { calls.push(['register', p]); return { session_id: 's9' }; } };
  const r = await runBulk(api, { level: 'project', projectPath: '/p' }, ['a', 'b', 'c'], async (id, sid) => {
    calls.push([id, sid]);
    if (id === 'b') throw new Error('conflict');
  });
  assert.deepEqual(calls, [['register', '/p'], ['a', 's9'], ['b', 's9']]);
  assert.deepEqual([r.sessionID, r.done, r.failed.id], ['s9', ['a'], 'b']);
});

test('an archive is one call under one new session, what was left listed', async () => {
  const calls = [];
  const api = {
    registerSession: async (p) => { calls.push(['register', p]); return { session_id: 's7' }; },
    archiveNodes: async (scope, ids, sid) => { calls.push(['archive', scope.level, ids, sid]); return { archived: ['a', 'c'], unmoved: ['b'] }; },
  };
  const r = await runArchive(api, { level: 'user' }, ['a', 'b', 'c']);
  assert.deepEqual(calls, [['register', undefined], ['archive', 'user', ['a', 'b', 'c'], 's7']]);
  assert.deepEqual([r.sessionID, r.done, r.unmoved, r.failed], ['s7', ['a', 'c'], ['b'], null]);
});

test('tied moves state the tie-break, and only tied ones', () => {
  const mv = (id, pass, score) => ({ id, pass, rank: { score } });
  const notes = tieNotes([mv('a', 'archive', 1 / 3), mv('b', 'archive', 1 / 3), mv('c', 'archive', 1 / 3), mv('d', 'archive', 0.5), mv('e', 'resurrect', 0.9), mv('f', 'resurrect', 0.9)]);
  assert.equal(notes.get('a'), 'tied with 2 others at score 0.3333: ties go least recently used first, then by id, a before z');
  assert.equal(notes.has('d'), false);
  assert.equal(notes.get('f'), 'tied with 1 other at score 0.9000: ties go most recently used first, then by id, a before z');
});

test('projects are told apart by the shortest tail of folders no other path ends with', async () => {
  const { distinctTails, projectOption } = await import('../src/format.js');
  const t = distinctTails(['/home/a/app', '/home/b/app', '/srv/api']);
  assert.deepEqual([...t.values()], ['a/app', 'b/app', 'api']);
  assert.equal(projectOption('/home/a/app', 'a/app'), 'Project a/app — /home/a/app');
  assert.equal(projectOption('/app', 'app'), 'Project /app', 'nothing to put first');
});
