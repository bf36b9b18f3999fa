// Unit tests of what the page says about trust (src/notices.js, src/merge.js,
// src/changelog.js and the secret refusals of src/errors.js). Run by
// e2e/run.sh: node --test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explain } from '../src/errors.js';
import { likeness, noticesOf, redactedText } from '../src/notices.js';
import { describeEdge, eventsOfMerge, mergeCandidates, mergeSummary } from '../src/merge.js';
import { changeRange, diffRows, entriesOf, entryAction, historyUnavailable, itemName, undoStep, undoSummary } from '../src/changelog.js';

const apiError = (status, kind, field, detail) => Object.assign(new Error(detail), { status, kind, field });

test('a secret refusal in plain words, naming the field as the form does and never more than the server said', () => {
  const e = apiError(400, 'invalid', 'notes[1]', "notes[1]: looks like an AWS access key (chars 12–31); store a reference to where it lives instead (an environment variable's name, a vault path)");
  assert.deepEqual(explain(e), { kind: 'secret', text: "Not saved: note 2 looks like an AWS access key (chars 12–31); store a reference to where it lives instead (an environment variable's name, a vault path)." });
  const two = apiError(400, 'invalid', 'gist', 'gist: looks like a GitHub token (chars 1–40); touches[0]: looks like a JWT (chars 3–90); store a reference to where it lives instead');
  assert.equal(explain(two).text, 'Not saved: gist looks like a GitHub token (chars 1–40); touch 1 looks like a JWT (chars 3–90); store a reference to where it lives instead.');
  assert.equal(explain(apiError(400, 'invalid', 'gist', 'gist: 1001 chars, limit 1000')).kind, 'invalid', 'other refusals are not secrets');
});

test('a save result gives a notice per thing kg noticed, and none when it noticed nothing', () => {
  const r = {
    node: { id: 'n' },
    redacted: [{ field: 'notes[1]', kind: 'aws-access-key', start: 12, end: 31, stored_as: '[REDACTED:aws-access-key]' }],
    possible_duplicates: [{ id: 'auth-token-refresh', by: 'gist', score: 0.8612 }, { id: 'Auth_Token', by: 'id', score: 1 }],
  };
  const ns = noticesOf({ kind: 'node', id: 'n' }, r);
  assert.deepEqual(ns.map((n) => n.type), ['redacted', 'duplicates']);
  assert.equal(redactedText(ns[0].items), 'stored with a secret redacted: notes[1] aws-access-key');
  assert.equal(redactedText([...ns[0].items, { field: 'gist', kind: 'jwt' }]), 'stored with 2 secrets redacted: notes[1] aws-access-key, gist jwt');
  assert.deepEqual(ns[1].items.map(likeness), ['0.86', 'same id']);
  assert.deepEqual(noticesOf({ kind: 'node', id: 'n' }, { node: {} }), []);
});

test('the merge finds the other node by words of its id or gist, never itself', () => {
  const nodes = [
    { id: 'auth-token-refresh', gist: 'JWT refresh uses a sliding window' },
    { id: 'jwt-refresh', gist: 'refresh the JWT before it expires' },
    { id: 'refresh-rate', gist: 'the UI polls every 5 s' },
    { id: 'db-pool', gist: 'pool size 10' },
  ];
  assert.deepEqual(mergeCandidates(nodes, 'jwt-refresh', 'refresh').map((n) => n.id), ['refresh-rate', 'auth-token-refresh'],
    'an id that starts with the query first, itself left out');
  assert.deepEqual(mergeCandidates(nodes, 'x', 'JWT window').map((n) => n.id), ['auth-token-refresh'], 'every word, in id or gist, any case');
  assert.deepEqual(mergeCandidates(nodes, 'x', '  '), []);
});

test('a merge answer stands for the events /ws sends, and says what it did', () => {
  const r = {
    dry_run: false, into: 'a', from: 'b', node: { id: 'a', version: 2 }, deleted: 'b', edges_deleted: 3,
    written: [{ from: 'a', to: 'c', rel: 'uses', notes: [] }],
    edges: [
      { was: { from: 'b', to: 'c', rel: 'uses' }, now: { from: 'a', to: 'c', rel: 'uses' }, action: 'rewired', notes: [] },
      { was: { from: 'd', to: 'b', rel: 'r' }, now: { from: 'd', to: 'a', rel: 'r' }, action: 'united', notes: ['x'] },
      { was: { from: 'a', to: 'b', rel: 'same-as' }, now: null, action: 'dropped', notes: [] },
    ],
  };
  assert.deepEqual(eventsOfMerge(r).map((e) => e.type), ['node_updated', 'edge_updated', 'node_deleted']);
  assert.deepEqual(eventsOfMerge(r)[2], { type: 'node_deleted', node_id: 'b', edges_deleted: 3 });
  assert.deepEqual(eventsOfMerge({ ...r, dry_run: true }), [], 'a dry run changed nothing');
  assert.equal(mergeSummary(r), 'Merged b into a: 2 edges rewired, 1 dropped.');
  assert.deepEqual(describeEdge(r.edges[0]), { was: 'b uses c', now: 'a uses c', say: 'rewired' });
  assert.equal(describeEdge(r.edges[2]).now, null);
});

test('the change log in words: entries newest first, diffs, undo plans, and a server without it', () => {
  const answer = {
    entries: [
      { seq: 3, op: 'put', item: 'node', id: 'n', before: { id: 'n' }, after: { id: 'n' }, diff: [{ field: 'gist', before: 'old', after: 'new' }, { field: 'notes', before: [], after: ['a', 'b'] }] },
      { seq: 9, op: 'move', item: 'node', id: 'n', tier: { from: 'active', to: 'archived' } },
      { seq: 1, op: 'put', item: 'node', id: 'n', before: null, after: { id: 'n' } },
    ],
  };
  const es = entriesOf(answer);
  assert.deepEqual(es.map((e) => e.seq), [9, 3, 1]);
  assert.deepEqual(es.map(entryAction), ['moved active → archived', 'changed', 'created']);
  assert.deepEqual(diffRows(es[1]), [{ field: 'gist', before: 'old', after: 'new' }, { field: 'notes', before: '—', after: 'a\nb' }]);
  assert.equal(itemName({ item: 'edge', edge: { from: 'a', to: 'b', rel: 'uses' } }), 'edge a uses b');
  assert.equal(undoStep({ item: 'node', id: 'n', action: 'restore' }), 'node n: put back as it was');
  assert.equal(undoSummary({ dry_run: true, applied: [{}, {}], skipped: [{}] }), 'Undo would put back 2 items; 1 item skipped, changed since by someone else.');
  assert.equal(undoSummary({ dry_run: false, applied: [{}], skipped: [] }), 'Undo put back 1 item.');
  assert.equal(historyUnavailable(apiError(404, 'not_found', '', 'no such route: "/api/history"')), true);
  assert.equal(historyUnavailable(apiError(404, 'not_found', 'session_id', 'unknown session "s"')), false, 'an unknown session is an answer of the log');
  assert.equal(historyUnavailable(apiError(503, 'unavailable', '', 'this storage backend keeps no change log')), true);
  assert.equal(historyUnavailable(apiError(503, 'unavailable', '', 'the user graph could not be loaded')), false);
  assert.deepEqual(entriesOf(null), []);
});

test('the write an entry belongs to: consecutive seqs of one time and session', () => {
  const t1 = '2026-12-02T06:00:00.000001Z'; const t2 = '2026-12-02T06:00:00.000002Z';
  const es = [
    { seq: 10, time: t1, session_id: 's' }, // another write of the same session, earlier
    { seq: 11, time: t2, session_id: '' }, // a node's delete: its two edges, then the node
    { seq: 12, time: t2, session_id: '' },
    { seq: 13, time: t2, session_id: '' },
    { seq: 14, time: t2, session_id: 'other' }, // the same instant, another session
    { seq: 16, time: t2, session_id: '' }, // after a seq the read does not hold
  ];
  assert.deepEqual(changeRange(es, 13), { from: 11, to: 13 });
  assert.deepEqual(changeRange(es, 11), { from: 11, to: 13 });
  assert.deepEqual(changeRange(es, 10), { from: 10, to: 10 });
  assert.deepEqual(changeRange(es, 16), { from: 16, to: 16 });
  assert.equal(changeRange(es, 99), null);
});
