// Unit tests of the page's plain-language errors and of the latest changes'
// entries (src/errors.js, src/history.js). Run by e2e/run.sh: node --test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explain, retrying } from '../src/errors.js';
import { entriesOfEvent, entriesOfSync, HistoryFeed, SyncSessions } from '../src/history.js';

const apiError = (status, kind, field, detail) => Object.assign(new Error(detail), { status, kind, field });

test('each error in plain words', () => {
  const conflict = apiError(409, 'conflict', 'expected_version', 'expected_version: node "n" is at version 2, not 1; read it and retry');
  assert.deepEqual(explain(conflict, { id: 'n' }), { kind: 'changed', text: '“n” changed since you opened it — see their version, or overwrite it with yours.' });
  assert.deepEqual(explain(conflict, { id: 'n', creating: true }), { kind: 'exists', text: 'A node “n” already exists — open it, or choose another id.' });
  assert.equal(explain({ offline: true }).text, 'kg is not answering — retrying…');
  assert.equal(explain(apiError(400, 'invalid', 'gist', 'gist: 1001 chars, limit 1000')).text, 'Gist: 1001 chars, limit 1000.');
  assert.equal(explain(apiError(400, 'invalid', 'notes[1]', 'notes[1]: 2001 chars, limit 2000')).text, 'Note 2: 2001 chars, limit 2000.');
  assert.equal(explain(apiError(404, 'not_found', 'id', 'node "n" not found'), { id: 'n' }).kind, 'gone');
  assert.match(explain(apiError(503, 'unavailable', '', 'the user graph could not be saved (disk full); nothing was changed')).text,
    /^kg could not save this, and changed nothing: the user graph could not be saved \(disk full\); nothing was changed\. Try again/);
});

test('retrying tries again while kg does not answer, and gives up when told', async () => {
  let calls = 0; const waits = [];
  const r = await retrying(async () => { if (++calls < 3) throw { offline: true }; return 'ok'; }, { onWait: (n) => waits.push(n), delays: [1] });
  assert.deepEqual([r, calls, waits], ['ok', 3, [1, 2]]);
  await assert.rejects(retrying(async () => { throw apiError(400, 'invalid', 'gist', 'no'); }, { delays: [1] }), /no/, 'other errors at once');
  let stop = false;
  await assert.rejects(retrying(async () => { stop = true; throw { offline: true }; }, { stop: () => stop, delays: [1] }));
});

test('an event or a sync report is one entry per change, named by graph and seq', () => {
  const ev = { type: 'node_updated', level: 'project', project: '/p', seq: 7, source_session: 'S', node: { id: 'n', version: 2, updated_ts: 100 } };
  const [e] = entriesOfEvent(ev);
  assert.deepEqual([e.key, e.kind, e.id, e.session, e.ts], ['project:/p|7|n', 'node', 'n', 'S', 100]);
  const sync = { level: 'project', project: '/p', archived: 2, restored: 0, orphaned: 1, pruned: 0,
    changes: [{ kind: 'node', seq: 7, ts: 100, source_session: 'S', node: { id: 'n', version: 2 } }, { kind: 'deleted_node', seq: 8, ts: 101, source_session: null, id: 'gone' }] };
  const s = entriesOfSync(sync);
  assert.equal(s[0].key, e.key, 'the same change heard twice has one key');
  assert.deepEqual(s.map((x) => x.kind), ['node', 'deleted_node', 'compacted']);
  assert.deepEqual(s[2].counts, { archived: 2, restored: 0, orphaned: 1, deleted: 0 });
  assert.equal(entriesOfSync(sync, { counts: false }).length, 2);
  assert.deepEqual(entriesOfSync({ ...sync, unavailable: 'damaged' }), []);
  const c = entriesOfEvent({ type: 'compacted', level: 'user', project: null, seq: 9, source_session: null, archived: ['a'], restored: [], orphaned: [], deleted: ['z'] });
  assert.deepEqual(c[0].moves, { archived: ['a'], restored: [], orphaned: [], deleted: ['z'] });
  assert.deepEqual(c[0].why, [], 'a frame without moves gives no reasons');
  const moves = Array.from({ length: 60 }, (_, i) => ({ id: `n${i}`, from: 'active', to: 'archived', pass: 'archive', reason: `rank ${i + 1}/60` }));
  const r = entriesOfEvent({ type: 'compacted', level: 'user', project: null, seq: 10, source_session: 'S', archived: moves.map((m) => m.id), restored: [], orphaned: [], deleted: [], moves });
  assert.equal(r[0].why.length, 50, 'the first 50 reasons are kept');
  assert.deepEqual(r[0].why[1], { id: 'n1', from: 'active', to: 'archived', reason: 'rank 2/60' });
});

test('the feed lists each change once, newest first', () => {
  const feed = new HistoryFeed([]);
  const seen = [];
  feed.subscribe((l) => seen.push(l.map((e) => e.key)));
  feed.add([{ key: 'a', ts: 1 }, { key: 'b', ts: 3 }]);
  feed.add([{ key: 'a', ts: 1 }, { key: 'c', ts: 2 }]);
  feed.add([{ key: 'c', ts: 2 }]); // nothing new: nobody is told
  assert.deepEqual(seen, [['b', 'a'], ['b', 'c', 'a']]);
});

test('a compaction run heard live is not listed again as counts by the next sync', async () => {
  const part = { level: 'user', project: null, changes: [], archived: 3, restored: 0, orphaned: 1, pruned: 0 };
  const api = { registerSession: async () => ({ session_id: 'page' }), sync: async () => ({ user: part }) };
  const listed = (sync) => {
    const feed = new HistoryFeed([]);
    sync.start(feed);
    return feed;
  };
  // A new session (the first visit): registered while the socket is open,
  // so the next sync's counts are runs the events already told.
  const fresh = new SyncSessions(api);
  const f1 = listed(fresh);
  await fresh.refresh([{ level: 'user' }]); // registers
  await fresh.refresh([{ level: 'user' }]);
  assert.deepEqual(f1.list.filter((e) => e.kind === 'compacted'), []);
  // A session kept from an earlier visit: what ran while the page was
  // closed comes only from sync, as counts.
  const kept = new SyncSessions(api);
  kept.sessions = { user: 'page' };
  const f2 = listed(kept);
  await kept.refresh([{ level: 'user' }]);
  assert.deepEqual(f2.list.filter((e) => e.kind === 'compacted').map((e) => e.counts), [{ archived: 3, restored: 0, orphaned: 1, deleted: 0 }]);
  // And after a lost connection, the next sync's counts are listed again.
  kept.connected(false);
  part.changes = [{ kind: 'node', seq: 20, ts: 100, source_session: 'S', node: { id: 'n', version: 1 } }];
  await kept.refresh([{ level: 'user' }]);
  assert.equal(f2.list.filter((e) => e.kind === 'compacted').length, 2);
});
