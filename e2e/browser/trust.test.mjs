// Browser tests of what the page does to make memory trustworthy
// (docs/design/trust.md): a secret refused at the field it is in, or
// redacted and said so; possible duplicates named after a save, with a link
// and a merge; merging two nodes with its preview; and a node's history
// with the undo of a session's changes and of one change. One browser and
// small graphs, so that the suite stays quick; a second server runs in
// redact mode.
//
// Run through e2e/run.sh (make e2e); KG_BIN names the binary.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKG, mcp, rest, userNodes, readGraph, launch, shot, details, listItem, openGraph, tearDown } from './kg.mjs';

// Never a live credential: an AWS key id's shape, assembled here so that no
// scanner of the repository finds it in this file.
const KEY = `${'AK'}${'IA'}QWERTYUIOPASDFGH`;

/** The user graph's edges as "from rel to" lines, sorted. */
const edgeLines = async (url) => (await readGraph(url, null)).edges.map((e) => `${e.from} ${e.rel} ${e.to}`).sort();

async function newNode(page, id, gist, notes = []) {
  await page.getByRole('button', { name: 'New node' }).click();
  const dialog = page.getByRole('dialog', { name: 'New node' });
  await dialog.getByLabel('Id').fill(id);
  await dialog.getByLabel('Gist').fill(gist);
  for (const [i, n] of notes.entries()) {
    await dialog.getByRole('button', { name: 'Add a note' }).click();
    await dialog.getByLabel(`Note ${i + 1}`, { exact: true }).fill(n);
  }
  await dialog.getByRole('button', { name: 'Create' }).click();
  return dialog;
}

describe('kg web page: secrets, duplicates, merging and history', () => {
  let root; let root2; let project; let kg; let redacting; let b; let page; let sid;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'kg-e2e-trust-root-'));
    root2 = mkdtempSync(join(tmpdir(), 'kg-e2e-trust-redact-'));
    project = mkdtempSync(join(tmpdir(), 'kg-e2e-trust-project-'));
    [kg, redacting] = await Promise.all([
      startKG({ root, maxTokens: 100_000 }),
      startKG({ root: root2, maxTokens: 100_000, extra: ['--secrets-mode', 'redact'] }),
    ]);
    ({ session_id: sid } = await mcp(kg.url, 'kg_read', { cwd: project }));
    const put = (id, gist, notes = []) => mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'user', id, gist, notes });
    const edge = (from, rel, to, notes = []) => mcp(kg.url, 'kg_put_edge', { session_id: sid, level: 'user', from, to, rel, notes });
    await put('auth-token-refresh', 'JWT refresh uses a sliding window of five minutes', ['silent failure if the session expired']);
    await put('login-flow', 'The login flow calls the token refresh on a 401');
    await put('cache-ttl', 'Tokens are cached for as long as they are valid', ['per user']);
    await put('token-cache', 'The token cache keeps each token until it expires', ['per user', 'in memory']);
    await edge('login-flow', 'calls', 'auth-token-refresh', ['on 401']);
    await edge('auth-token-refresh', 'lives-in', 'src/auth/refresh.py');
    await edge('token-cache', 'feeds', 'login-flow');
    await edge('cache-ttl', 'same-as', 'token-cache');
    b = await launch();
    page = b.page;
  });

  after(async () => {
    await tearDown({ b, kg, dirs: [root, project] });
    await tearDown({ kg: redacting, dirs: [root2] });
  });

  it('refuses a secret at the note it is in, in plain words, and stores nothing', async () => {
    await openGraph(page, kg.url);
    const dialog = await newNode(page, 'deploy-notes', 'How the deploy job reaches the bucket', ['uses the CI role', `the key is ${KEY}`]);
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    assert.equal(await alert.locator('p').textContent(),
      "Not saved: note 2 looks like an AWS access key (chars 12–31); store a reference to where it lives instead (an environment variable's name, a vault path).");
    assert.ok(!(await alert.textContent()).includes(KEY.slice(4)), 'the refusal never shows the secret');
    // At the field: under note 2, which alone is marked.
    assert.equal(await dialog.locator('.note-row').nth(1).getByRole('alert').count(), 1);
    assert.equal(await dialog.getByLabel('Note 2', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal(await dialog.getByLabel('Note 1', { exact: true }).getAttribute('aria-invalid'), null);
    await shot(page, 'ui-secret-refused-1280x800.png');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await userNodes(kg.url))['deploy-notes'], undefined);
  });

  it('names possible duplicates after a save, links to them, and merges from the notice', async () => {
    await newNode(page, 'jwt-refresh', 'JWT refresh uses a sliding window of 5 minutes', ['window is 5 min']);
    const notice = page.locator('.notices .notice[data-type="duplicates"]');
    await notice.waitFor();
    assert.match(await notice.locator('p').textContent(), /^Saved node jwt-refresh\. Possible duplicates: auth-token-refresh \(0\.\d\d\)/);
    // An agent adds edges to the new node meanwhile: the merge rewires them too.
    await mcp(kg.url, 'kg_put_edge', { session_id: sid, level: 'user', from: 'jwt-refresh', to: 'src/auth/jwt.py', rel: 'lives-in' });
    await mcp(kg.url, 'kg_put_edge', { session_id: sid, level: 'user', from: 'login-flow', to: 'jwt-refresh', rel: 'calls', notes: ['on expiry'] });
    await mcp(kg.url, 'kg_put_edge', { session_id: sid, level: 'user', from: 'jwt-refresh', to: 'auth-token-refresh', rel: 'duplicates' });

    await notice.getByRole('button', { name: 'auth-token-refresh', exact: true }).click();
    await details(page).locator('h2', { hasText: 'auth-token-refresh' }).waitFor();
    await notice.getByRole('button', { name: 'Merge jwt-refresh and auth-token-refresh…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Merge jwt-refresh with another node' });
    // The older id is kept by default; the new node's gist is chosen.
    assert.equal(await dialog.getByRole('radio', { name: /^auth-token-refresh \(jwt-refresh is merged into it/ }).isChecked(), true);
    await dialog.getByRole('radio', { name: /^jwt-refresh's:/ }).check();
    const preview = dialog.getByTestId('merge-preview');
    await preview.getByTestId('merge-gist').filter({ hasText: 'JWT refresh uses a sliding window of 5 minutes' }).waitFor();
    assert.deepEqual(await preview.getByTestId('merge-notes').locator('li').allTextContents(),
      ['silent failure if the session expired', 'window is 5 min']);
    const edges = await preview.getByTestId('merge-edges').locator('li').evaluateAll((ls) => ls.map((l) => [l.dataset.action, l.querySelector('code').textContent]));
    assert.deepEqual(edges.sort(), [
      ['dropped', 'jwt-refresh duplicates auth-token-refresh'],
      ['rewired', 'jwt-refresh lives-in src/auth/jwt.py'],
      ['united', 'login-flow calls jwt-refresh'],
    ]);
    await shot(page, 'ui-merge-preview-1280x800.png');
    await dialog.getByRole('button', { name: 'Merge', exact: true }).click();
    await page.locator('.message', { hasText: 'Merged jwt-refresh into auth-token-refresh: 2 edges rewired, 1 dropped.' }).waitFor();
    await listItem(page, 'jwt-refresh').waitFor({ state: 'detached' });
    await details(page).locator('[data-testid="gist"]', { hasText: 'JWT refresh uses a sliding window of 5 minutes' }).waitFor();
    assert.equal(await page.locator('.notices .notice[data-id="jwt-refresh"]').count(), 0, 'the notice about the merged node is gone');

    const nodes = await userNodes(kg.url);
    assert.equal(nodes['jwt-refresh'], undefined);
    assert.deepEqual(nodes['auth-token-refresh'].notes, ['silent failure if the session expired', 'window is 5 min']);
    assert.deepEqual(await edgeLines(kg.url), [
      'auth-token-refresh lives-in src/auth/jwt.py', 'auth-token-refresh lives-in src/auth/refresh.py',
      'cache-ttl same-as token-cache', 'login-flow calls auth-token-refresh', 'token-cache feeds login-flow',
    ]);
    const calls = (await readGraph(kg.url, null)).edges.find((e) => e.from === 'login-flow' && e.rel === 'calls');
    assert.deepEqual(calls.notes, ['on 401', 'on expiry'], 'the edges that became one hold both notes');

    // The merge is in the change log: its notice undoes it, both nodes and every edge.
    const merged = page.locator('.notices .notice[data-type="merged"]');
    await merged.getByRole('button', { name: 'Undo the merge…' }).click();
    const undo = page.getByRole('dialog', { name: /^Undo changes \d+–\d+$/ });
    await undo.getByTestId('session-history').locator('.history-entry').first().waitFor();
    await undo.getByRole('button', { name: 'Undo these changes…' }).click();
    await undo.getByTestId('undo-plan').waitFor();
    assert.equal((await userNodes(kg.url))['jwt-refresh'], undefined, 'a plan changes nothing');
    await undo.getByRole('button', { name: 'Undo', exact: true }).click();
    await undo.getByTestId('undo-done').waitFor();
    await undo.getByRole('button', { name: 'Close' }).click();
    await merged.waitFor({ state: 'detached' });
    await listItem(page, 'jwt-refresh').waitFor();
    const back = await userNodes(kg.url);
    assert.deepEqual([back['jwt-refresh']?.gist, back['auth-token-refresh'].gist, back['auth-token-refresh'].notes],
      ['JWT refresh uses a sliding window of 5 minutes', 'JWT refresh uses a sliding window of five minutes', ['silent failure if the session expired']]);
    assert.deepEqual(await edgeLines(kg.url), [
      'auth-token-refresh lives-in src/auth/refresh.py', 'cache-ttl same-as token-cache', 'jwt-refresh duplicates auth-token-refresh',
      'jwt-refresh lives-in src/auth/jwt.py', 'login-flow calls auth-token-refresh', 'login-flow calls jwt-refresh', 'token-cache feeds login-flow',
    ]);
  });

  it('merges a node picked by search, and previews again when an agent changed one since', async () => {
    await page.locator('.list-panel input[type="search"]').fill('token-cache');
    await listItem(page, 'token-cache').first().click();
    await details(page).locator('h2', { hasText: 'token-cache' }).waitFor();
    await details(page).getByRole('button', { name: 'Merge…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Merge token-cache with another node' });
    await dialog.getByLabel('Other node').fill('cached valid');
    await dialog.getByRole('list', { name: 'Matching nodes' }).getByRole('button', { name: 'cache-ttl' }).click();
    const preview = dialog.getByTestId('merge-preview');
    await preview.waitFor();
    assert.deepEqual(await preview.getByTestId('merge-notes').locator('li').allTextContents(), ['per user', 'in memory']);

    // An agent writes cache-ttl after the preview: the merge is refused, the preview made again.
    await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'user', id: 'cache-ttl', gist: 'Tokens are cached while valid', notes: ['per user', 'max 1 h'] });
    await dialog.getByRole('button', { name: 'Merge', exact: true }).click();
    await dialog.getByRole('alert').filter({ hasText: 'cache-ttl changed since the preview' }).waitFor();
    await preview.getByTestId('merge-notes').locator('li', { hasText: 'max 1 h' }).waitFor();
    assert.ok((await userNodes(kg.url))['cache-ttl'], 'nothing was merged');
    await dialog.getByRole('button', { name: 'Merge', exact: true }).click();
    await page.locator('.message', { hasText: 'Merged cache-ttl into token-cache: 1 dropped.' }).waitFor();
    const nodes = await userNodes(kg.url);
    assert.equal(nodes['cache-ttl'], undefined);
    assert.deepEqual(nodes['token-cache'].notes, ['per user', 'in memory', 'max 1 h']);
    assert.ok(!(await edgeLines(kg.url)).some((l) => l.includes('cache-ttl') || l === 'token-cache same-as token-cache'),
      'the edge between them is dropped, not made a loop');
    await page.locator('.list-panel input[type="search"]').fill('');
  });

  it('shows a node\'s history, and undoes a session\'s changes, a change of the page\'s own and a delete', async () => {
    // An agent writes a node; another session rewrites it badly.
    const { session_id: bad } = await mcp(kg.url, 'kg_read', { cwd: project });
    await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'user', id: 'release-steps', gist: 'Tag, build, then publish', notes: ['from the runbook'] });
    await mcp(kg.url, 'kg_put_node', { session_id: bad, level: 'user', id: 'release-steps', gist: 'Publish first, then tag', notes: ['guessed'] });
    await page.locator('.app[data-history="true"]').waitFor();
    await page.locator('.list-panel input[type="search"]').fill('release-steps');
    await listItem(page, 'release-steps').first().click();
    await details(page).locator('h2', { hasText: 'release-steps' }).waitFor();
    const history = details(page).getByTestId('node-history');
    await history.locator('.history-entry').nth(1).waitFor();
    const newest = history.locator('.history-entry').first();
    // The session is named for a person: its project, start and first words, never a bare id.
    assert.match(await newest.locator('.history-line').textContent(), /changed by Project kg-\S+ · from \d\d:\d\d UTC · “Publish first, then tag”/);
    assert.deepEqual(await newest.locator('tr[data-field="gist"] td').allTextContents(), ['Tag, build, then publish', 'Publish first, then tag']);
    assert.match(await history.locator('.history-entry').nth(1).locator('.history-line').textContent(), /created by (User graph|Project \S+) · from /);
    await history.scrollIntoViewIfNeeded();
    await shot(page, 'ui-history-1280x800.png');

    // The bad session's changes, undone after a preview.
    await newest.getByRole('button', { name: `Changes of session ${bad}` }).click();
    const dialog = page.getByRole('dialog', { name: /^Changes of Project kg-\S+ · from \d\d:\d\d UTC · “Publish first, then tag”$/ });
    await dialog.getByTestId('session-history').locator('.history-entry').first().waitFor();
    await dialog.getByRole('button', { name: "Undo this session's changes…" }).click();
    const plan = dialog.getByTestId('undo-plan');
    await plan.waitFor();
    assert.equal(await plan.locator('p').first().textContent(), 'Undo would put back 1 item.');
    assert.deepEqual(await plan.getByTestId('undo-applied').locator('li').allTextContents(), ['node release-steps: put back as it was']);
    assert.equal((await userNodes(kg.url))['release-steps'].gist, 'Publish first, then tag', 'a plan changes nothing');
    await dialog.getByRole('button', { name: 'Undo', exact: true }).click();
    await dialog.getByTestId('undo-done').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await details(page).locator('[data-testid="gist"]', { hasText: 'Tag, build, then publish' }).waitFor();
    let n = (await userNodes(kg.url))['release-steps'];
    assert.deepEqual([n.gist, n.notes], ['Tag, build, then publish', ['from the runbook']]);
    await history.locator('.history-entry[data-op="undo"]').first().waitFor();

    // A change made on the page (no session) is undone by its own entry.
    await details(page).getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit node release-steps' });
    await edit.getByLabel('Gist').fill('Tag and publish');
    await edit.getByRole('button', { name: 'Save' }).click();
    await details(page).locator('[data-testid="gist"]', { hasText: 'Tag and publish' }).waitFor();
    // The entry of that edit (the undo's, before it, is without a session too).
    const mine = history.locator('.history-entry', { has: page.locator('td.after', { hasText: 'Tag and publish' }) });
    await mine.waitFor();
    assert.match(await mine.locator('.history-line').textContent(), /changed without a session/);
    const seq = await mine.getAttribute('data-seq');
    await mine.getByRole('button', { name: `Undo change ${seq}…` }).click();
    const one = page.getByRole('dialog', { name: `Undo change ${seq}` });
    await one.getByRole('button', { name: 'Undo this change…' }).click();
    await one.getByTestId('undo-plan').waitFor();
    await one.getByRole('button', { name: 'Undo', exact: true }).click();
    await one.getByTestId('undo-done').waitFor();
    await one.getByRole('button', { name: 'Close' }).click();
    await details(page).locator('[data-testid="gist"]', { hasText: 'Tag, build, then publish' }).waitFor();
    n = (await userNodes(kg.url))['release-steps'];
    assert.equal(n.gist, 'Tag, build, then publish');

    // Deleted on the page, with its edge: its history stays, and undoes the whole delete.
    await mcp(kg.url, 'kg_put_edge', { session_id: sid, level: 'user', from: 'release-steps', to: 'docs/release.md', rel: 'written-in' });
    await details(page).getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog', { name: 'Delete node release-steps?' }).getByRole('button', { name: 'Delete node' }).click();
    await page.locator('#panel-details', { hasText: 'Node release-steps is not in this graph (any more).' }).waitFor();
    const gone = page.locator('#panel-details').getByTestId('node-history').locator('.history-entry').first();
    await gone.locator('.history-line', { hasText: 'deleted' }).waitFor();
    const del = await gone.getAttribute('data-seq');
    await gone.getByRole('button', { name: `Undo change ${del}…` }).click();
    const again = page.getByRole('dialog', { name: `Undo change ${del}` });
    assert.match(await again.getByTestId('undo-write').textContent(), /^The same write changed 2 items/);
    await again.getByRole('button', { name: 'Undo this change…' }).click();
    await again.getByTestId('undo-plan').waitFor();
    await again.getByRole('button', { name: 'Undo', exact: true }).click();
    await again.getByTestId('undo-done').waitFor();
    await again.getByRole('button', { name: 'Close' }).click();
    await details(page).locator('h2', { hasText: 'release-steps' }).waitFor();
    assert.equal((await userNodes(kg.url))['release-steps'].gist, 'Tag, build, then publish');
    assert.ok((await edgeLines(kg.url)).includes('release-steps written-in docs/release.md'), 'its edge is back too');
    await page.locator('.list-panel input[type="search"]').fill('');
  });

  it('says a secret was redacted after a save in redact mode', async () => {
    await openGraph(page, redacting.url);
    await newNode(page, 'deploy-notes', 'How the deploy job reaches the bucket', ['uses the CI role', `the key is ${KEY}`]);
    const notice = page.locator('.notices .notice[data-type="redacted"]');
    await notice.waitFor();
    assert.equal(await notice.locator('p').textContent(),
      'Saved node deploy-notes — stored with a secret redacted: notes[1] aws-access-key. The secret is not in memory; rotate it if it was real.');
    const n = (await userNodes(redacting.url))['deploy-notes'];
    assert.deepEqual(n.notes, ['uses the CI role', 'the key is [REDACTED:aws-access-key]']);
    await details(page).locator('.notes li', { hasText: '[REDACTED:aws-access-key]' }).waitFor();
    await shot(page, 'ui-secret-redacted-1280x800.png');
    await notice.getByRole('button', { name: 'Dismiss the notice about node deploy-notes' }).click();
    await notice.waitFor({ state: 'detached' });
  });
});
