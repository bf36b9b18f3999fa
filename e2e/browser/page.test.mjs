// Browser tests of the page for tending memory (issue 32), on generated
// graphs of 150 and 3,000 nodes: the last day's changes on a fresh browser
// profile, by session, each session named for a person. Each size starts
// its own kg binary (KG_BIN) on a free port and a temporary root.
//
// Run through e2e/run.sh (make e2e); KG_BIN names the binary. One size:
// KG_PAGE_SIZES=150 node --test e2e/browser/page.test.mjs

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { generate, importInto } from './graphs.mjs';
import { LAPTOP, startKG, mcp, rest, launch, shot, tearDown } from './kg.mjs';

const SIZES = (process.env.KG_PAGE_SIZES ?? '150,3000').split(',').map(Number);

for (const n of SIZES) {
  describe(`the page at ${n} nodes`, () => {
    let root; let project; let kg; let b; let page; let agent; let other;

    before(async () => {
      root = mkdtempSync(join(tmpdir(), 'kg-e2e-page-root-'));
      project = mkdtempSync(join(tmpdir(), 'kg-e2e-page-project-'));
      // A budget the generated graph fits, so that no compaction run moves
      // what the tests look at.
      kg = await startKG({ root, maxTokens: 2_000_000 });
      await importInto(kg.url, generate(n, { seed: n, projectPath: project }));
      // Two agents' sessions, before any page is open.
      ({ session_id: agent } = await mcp(kg.url, 'kg_read', { cwd: project }));
      await mcp(kg.url, 'kg_put_node', { session_id: agent, level: 'project', id: 'retry-on-503', gist: 'Retry the billing API three times on 503, then give up' });
      await mcp(kg.url, 'kg_put_node', { session_id: agent, level: 'project', id: 'billing-timeout', gist: 'The billing API answers within 2 s' });
      await mcp(kg.url, 'kg_put_edge', { session_id: agent, level: 'project', from: 'retry-on-503', to: 'billing-timeout', rel: 'depends-on' });
      await mcp(kg.url, 'kg_put_node', { session_id: agent, level: 'user', id: 'say-why', gist: 'Say why in every commit message' });
      ({ body: { session_id: other } } = await rest(kg.url, '/api/sessions/register', { method: 'POST' }));
      await mcp(kg.url, 'kg_put_node', { session_id: other, level: 'user', id: 'tabs-not-spaces', gist: 'This person prefers tabs' });
      b = await launch(LAPTOP); // a fresh profile: nothing kept from an earlier visit
      page = b.page;
    });

    after(() => tearDown({ b, kg, dirs: [root, project] }));

    it(`shows the last day's changes on a fresh profile, by session, each named for a person (${n} nodes)`, async () => {
      await page.goto(`${kg.url}/ui/`);
      const group = page.locator(`.session-group[data-session="${agent}"]`);
      await group.waitFor({ timeout: 20_000 });
      const name = await group.locator('.session-name').textContent();
      assert.match(name, new RegExp(`^Project ${basename(project)} · from \\d\\d:\\d\\d UTC · “Retry the billing API three times…”$`), name);
      assert.doesNotMatch(name, new RegExp(agent.slice(0, 8)), 'no bare id');
      const rows = await group.locator('.change').allTextContents();
      assert.equal(rows.length, 4, rows.join('\n'));
      assert.match(rows.join('\n'), /wrote node retry-on-503 \(v1\)/);
      assert.match(rows.join('\n'), /User graph.*wrote node say-why/);
      assert.match(rows.join('\n'), /linked retry-on-503 depends-on billing-timeout/);
      const otherName = await page.locator(`.session-group[data-session="${other}"] .session-name`).textContent();
      assert.equal(otherName.replace(/\d\d:\d\d/, 'HH:MM'), 'User graph · from HH:MM UTC · “This person prefers tabs”');
      // The generated graph's import: a change without a session.
      const imported = (await page.locator('.session-group[data-session=""]').textContent()).match(/changed (\d+) items at once \(an import\)/);
      assert.ok(imported && Number(imported[1]) > n, `the import's ${n} nodes and their edges: ${imported}`);
      assert.equal(await page.locator('[data-testid="no-changes"]').count(), 0);
      await shot(page, `page-${n}-home-day-1440x900.png`);

      // The session's changes, named the same, and its undo.
      await group.getByRole('button', { name: /^Changes and undo of / }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: `Changes of ${name}` }).waitFor();
      await dialog.locator('[data-testid="session-history"] li').first().waitFor();
      assert.match(await dialog.locator('[data-testid="session-history"]').textContent(), /by Project .* · “Retry the billing API/);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      assert.deepEqual(b.errors, []);
    });
  });
}
