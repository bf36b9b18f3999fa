// Unit tests of what the page says needs a person (src/attention.js). Run
// by e2e/run.sh: node --test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attentionCount, attentionFor, attentionOf, secretText } from '../src/attention.js';

const answer = {
  level: 'project', project_path: '/p',
  stale: [{ id: 'refresh', files: [{ path: 'src/a.go', change: 'changed' }, { path: 'src/b.go', change: 'vanished' }] }],
  duplicates: [{ ids: ['a', 'b', 'c'], pairs: [{ a: 'a', b: 'b', by: 'gist', score: 0.8612 }, { a: 'b', b: 'c', by: 'id', score: 1 }] }],
  secrets: [{ node: 'k', field: 'notes[0]', kind: 'aws-access-key', start: 5, end: 24, message: 'notes[0]: looks like an AWS access key (chars 5–24)' },
    { edge: { from: 'k', to: 'x', rel: 'uses' }, field: 'notes[0]', kind: 'jwt', start: 1, end: 90, message: 'notes[0]: looks like a JWT (chars 1–90)' }],
  edge: { moves: [{ id: 'old', from: 'active', to: 'archived', reason: 'rank 1/9, score 0.1' }], over_budget: true },
};

test('each node is told what needs a person about it, and only that', () => {
  const a = attentionOf(answer);
  assert.equal(attentionCount(a), 5);
  assert.deepEqual(attentionFor(a, 'refresh'), [{ kind: 'stale', text: 'possibly stale: src/a.go changed, src/b.go vanished' }]);
  assert.deepEqual(attentionFor(a, 'b').map((x) => [x.kind, x.text, x.other]), [
    ['duplicate', 'may repeat a (gists 0.86 alike)', 'a'],
    ['duplicate', 'may repeat c (the same id)', 'c'],
  ]);
  assert.deepEqual(attentionFor(a, 'k'), [{ kind: 'secret', text: 'holds a secret: notes[0]: looks like an AWS access key (chars 5–24)' }]);
  assert.deepEqual(attentionFor(a, 'old'), [{ kind: 'edge', text: "at the budget's edge: the next run moves it to archived (rank 1/9, score 0.1)" }]);
  assert.deepEqual(attentionFor(a, 'fine'), []);
  assert.equal(secretText(a.secrets[1]), 'edge k uses x: notes[0]: looks like a JWT (chars 1–90)');
  assert.equal(attentionOf(null), null);
  assert.equal(attentionCount(attentionOf({})), 0, 'an answer without lists needs nothing');
});
