// Browser tests of the page for tending memory (issue 32), on generated
// graphs of 150 and 3,000 nodes: the last day's changes on a fresh browser
// profile, by session, each session named for a person; what needs a person
// (a stale node, possible duplicates, a stored secret) on the home view, in
// the node's details and on its search hit, and a merge from there. Each size starts
// its own kg binary (KG_BIN) on a free port and a temporary root.
//
// Run through e2e/run.sh (make e2e); KG_BIN names the binary. One size:
// KG_PAGE_SIZES=150 node --test e2e/browser/page.test.mjs

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { generate, importInto } from './graphs.mjs';
import { LAPTOP, PHONE, LAYOUT_TIMEOUT, artifacts, startKG, mcp, rest, readGraph, launch, shot, openGraph, snap, frames, tearDown } from './kg.mjs';

const SIZES = (process.env.KG_PAGE_SIZES ?? '150,3000').split(',').map(Number);
// An AWS access key id of the documentation's form, built so that no scanner flags this file.
const AWS_KEY = ['AKIA', 'Z7Q3', 'M2XK', 'P4LT', 'W5RB'].join('');

for (const n of SIZES) {
  describe(`the page at ${n} nodes`, () => {
    let root; let project; let kg; let b; let page; let agent; let other; let hooked;
    const alike = [];

    before(async () => {
      root = mkdtempSync(join(tmpdir(), 'kg-e2e-page-root-'));
      project = mkdtempSync(join(tmpdir(), 'kg-e2e-page-project-'));
      // A budget the generated graph fits, so that no compaction run moves
      // what the tests look at; a maintenance tick each second, which reads
      // the recorded files (staleness); credentials stored as they come, as
      // a server before the scanner did.
      kg = await startKG({ root, maxTokens: 2_000_000, extra: ['--maintenance-interval', '1', '--secrets-mode', 'allow'] });
      await importInto(kg.url, generate(n, { seed: n, projectPath: project }));
      // Two agents' sessions, before any page is open.
      ({ session_id: agent } = await mcp(kg.url, 'kg_read', { cwd: project }));
      await mcp(kg.url, 'kg_put_node', { session_id: agent, level: 'project', id: 'retry-on-503', gist: 'Retry the billing API three times on 503, then give up' });
      await mcp(kg.url, 'kg_put_node', { session_id: agent, level: 'project', id: 'billing-timeout', gist: 'The billing API answers within 2 s' });
      await mcp(kg.url, 'kg_put_edge', { session_id: agent, level: 'project', from: 'retry-on-503', to: 'billing-timeout', rel: 'depends-on' });
      await mcp(kg.url, 'kg_put_node', { session_id: agent, level: 'user', id: 'say-why', gist: 'Say why in every commit message' });
      // A session Codex's hooks started (kg hook --agent codex sends agent=codex).
      ({ body: { session_id: hooked } } = await rest(kg.url,
        `/api/session_bootstrap?project_path=${encodeURIComponent(project)}&claude_session_id=conv-codex&source=startup&agent=codex`));
      await mcp(kg.url, 'kg_put_node', { session_id: hooked, level: 'project', id: 'migrations-twice', gist: 'Codex ran the migrations twice' });
      ({ body: { session_id: other } } = await rest(kg.url, '/api/sessions/register', { method: 'POST' }));
      await mcp(kg.url, 'kg_put_node', { session_id: other, level: 'user', id: 'tabs-not-spaces', gist: 'This person prefers tabs' });
      // What needs a person: a node whose file changed since, two that say one
      // thing, and a credential in a note.
      mkdirSync(join(project, 'src', 'auth'), { recursive: true });
      writeFileSync(join(project, 'src', 'auth', 'refresh.go'), 'package auth // v1\n');
      await mcp(kg.url, 'kg_put_node', { session_id: agent, level: 'project', id: 'refresh-window', gist: 'Tokens refresh in a sliding window', touches: ['src/auth/refresh.go'] });
      await mcp(kg.url, 'kg_put_node', { session_id: agent, level: 'project', id: 'build-proto-step', gist: 'The build breaks when make runs with -j4 on the proto step' });
      await mcp(kg.url, 'kg_put_node', { session_id: agent, level: 'project', id: 'proto-parallel', gist: 'The build breaks when make runs with -j8 on the proto step' });
      await mcp(kg.url, 'kg_put_node', { session_id: agent, level: 'project', id: 'deploy-key', gist: 'Where the deploy key lives', notes: [`key ${AWS_KEY}`] });
      writeFileSync(join(project, 'src', 'auth', 'refresh.go'), 'package auth // v2: the window is gone\n');
      // A project node's edge to a node of the user graph.
      await mcp(kg.url, 'kg_put_edge', { session_id: agent, level: 'project', from: 'refresh-window', to: 'say-why', rel: 'applies' });
      // Two more projects whose paths end alike: only a folder further up tells them apart.
      for (const side of ['left', 'right']) {
        const dir = join(mkdtempSync(join(tmpdir(), `kg-e2e-page-${side}-`)), 'app');
        mkdirSync(dir);
        alike.push(dir);
        const { session_id: sid } = await mcp(kg.url, 'kg_read', { cwd: dir });
        await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'project', id: `${side}-note`, gist: `The ${side} app` });
      }
      b = await launch(LAPTOP); // a fresh profile: nothing kept from an earlier visit
      page = b.page;
    });

    after(() => tearDown({ b, kg, dirs: [root, project, ...alike.map((d) => dirname(d))] }));

    it(`shows the last day's changes on a fresh profile, by session, each named for a person (${n} nodes)`, async () => {
      await page.goto(`${kg.url}/ui/`);
      const group = page.locator(`.session-group[data-session="${agent}"]`);
      await group.waitFor({ timeout: 20_000 });
      // The name is made from every graph's log, read one graph after another.
      const want = new RegExp(`^Project ${basename(project)} · from \\d\\d:\\d\\d UTC · “Retry the billing API three times…”$`);
      await page.waitForFunction(([sel, re]) => new RegExp(re).test(document.querySelector(sel)?.textContent ?? ''),
        [`.session-group[data-session="${agent}"] .session-name`, want.source], { timeout: 20_000 });
      const name = await group.locator('.session-name').textContent();
      assert.match(name, want, name);
      assert.doesNotMatch(name, new RegExp(agent.slice(0, 8)), 'no bare id');
      const rows = await group.locator('.change').allTextContents();
      assert.ok(rows.length >= 4, rows.join('\n'));
      assert.match(rows.join('\n'), /wrote node retry-on-503 \(v1\)/);
      assert.match(rows.join('\n'), /User graph.*wrote node say-why/);
      assert.match(rows.join('\n'), /linked retry-on-503 depends-on billing-timeout/);
      // A session started by an agent's hooks is named by the agent.
      const codex = new RegExp(`^codex · Project ${basename(project)} · from \\d\\d:\\d\\d UTC · “Codex ran the migrations twice”$`);
      await page.waitForFunction(([sel, re]) => new RegExp(re).test(document.querySelector(sel)?.textContent ?? ''),
        [`.session-group[data-session="${hooked}"] .session-name`, codex.source], { timeout: 20_000 });
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

    it(`lists what needs a person on the home view, on the node's details and on its search hit (${n} nodes)`, async () => {
      // The tick marks the node once it has read the changed file.
      await page.waitForFunction(async (p) => {
        const r = await fetch(`/api/attention?level=project&project_path=${encodeURIComponent(p)}`);
        return (await r.json()).stale.length > 0;
      }, project, { timeout: 30_000, polling: 500 });
      await page.goto(`${kg.url}/ui/`);
      const here = page.locator(`.attention-graph[data-graph="project:${project}"]`);
      await here.waitFor({ timeout: LAYOUT_TIMEOUT }); // a busy machine: the page reads every graph's
      await here.locator('[data-kind="secret"]').waitFor({ timeout: LAYOUT_TIMEOUT });
      assert.equal(await here.locator('[data-kind="stale"] li').textContent(), 'refresh-window: src/auth/refresh.go changed');
      // A large graph has more clusters than are listed at first: all of them on asking.
      const showAll = async () => {
        const more = here.locator('[data-kind="duplicate"] button', { hasText: 'show all' });
        if (await more.count()) await more.click();
      };
      await showAll();
      const dup = here.locator('[data-kind="duplicate"] li', { hasText: 'proto-parallel' });
      assert.match(await dup.textContent(), /build-proto-step, proto-parallel — build-proto-step ~ proto-parallel: gists 0\.\d\d alike/);
      const secret = await here.locator('[data-kind="secret"] li').textContent();
      assert.match(secret, /^deploy-key node deploy-key: notes\[0\]: looks like an AWS access key \(chars 5–24\)$/);
      assert.ok(!secret.includes(AWS_KEY), 'the secret itself is never shown');
      await page.locator('.home-attention').screenshot({ path: join(artifacts, `page-${n}-attention-1440x900.png`) });

      // The stale node's details say which file changed.
      await here.getByRole('button', { name: 'refresh-window' }).click();
      const said = page.locator('article.details [data-testid="node-attention"]');
      await said.waitFor({ timeout: LAYOUT_TIMEOUT });
      assert.equal(await said.locator('li').textContent(), 'possibly stale: src/auth/refresh.go changed');
      // A search hit says so too, and the duplicate's.
      await page.locator('#search-input').fill('proto step build breaks');
      await page.locator('#search-input').press('Enter');
      const hit = page.locator(`.hits button[data-id="proto-parallel"][data-graph="project:${project}"]`);
      await hit.waitFor();
      assert.match(await hit.locator('.attention-badge[data-kind="duplicate"]').textContent(), /^may repeat build-proto-step \(gists 0\.\d\d alike\)$/);
      await page.locator('#search-input').fill('deploy key lives');
      await page.locator('#search-input').press('Enter');
      const key = page.locator(`.hits button[data-id="deploy-key"] .attention-badge[data-kind="secret"]`);
      await key.waitFor();
      assert.match(await key.textContent(), /^holds a secret: notes\[0\]: looks like an AWS access key/);

      // Merge… from the home view opens the merge of the cluster, with the server's preview.
      await page.goto(`${kg.url}/ui/`);
      await here.locator('[data-kind="duplicate"]').waitFor();
      await showAll();
      await here.getByRole('button', { name: 'Merge proto-parallel into build-proto-step…' }).click();
      const merge = page.getByRole('dialog');
      await merge.waitFor({ timeout: LAYOUT_TIMEOUT });
      // It keeps the id the button named.
      const keep = merge.getByRole('radio', { name: /^build-proto-step \(proto-parallel is merged into it and deleted\)/ });
      await keep.waitFor();
      assert.equal(await keep.isChecked(), true);
      await shot(page, `page-${n}-merge-from-attention-1440x900.png`);
      await merge.getByRole('button', { name: 'Cancel' }).click();
      assert.deepEqual(b.errors, []);
    });

    it(`acts on several picked nodes at once — export, delete, merge, archive — each in the change log and undone in one step (${n} nodes)`, async () => {
      await openGraph(page, kg.url, project);
      const filter = page.locator('.list-panel input[type="search"]');
      const pick = async (ids) => {
        for (const id of ids) {
          await filter.fill(id);
          await page.getByRole('checkbox', { name: `Pick ${id}`, exact: true }).check();
        }
        await filter.fill('');
      };
      const bar = page.getByRole('region', { name: 'Picked nodes' });
      const ids = async () => Object.keys((await readGraph(kg.url, project)).nodes);

      // Export: the picked nodes and the edge between them, as a document import takes.
      await pick(['retry-on-503', 'billing-timeout']);
      assert.equal(await bar.locator('strong').textContent(), '2 picked');
      const [download] = await Promise.all([page.waitForEvent('download'), bar.getByRole('button', { name: 'Export' }).click()]);
      const doc = JSON.parse(readFileSync(await download.path(), 'utf8'));
      assert.deepEqual(doc.nodes.map((x) => x.id).sort(), ['billing-timeout', 'retry-on-503']);
      assert.deepEqual(doc.edges.map((x) => `${x.from} ${x.rel} ${x.to}`), ['retry-on-503 depends-on billing-timeout']);
      assert.equal(doc.format, 'kg-graph');

      // Delete both, under one session of the page's own, and undo it.
      await bar.getByRole('button', { name: 'Delete…' }).click();
      await page.getByRole('dialog', { name: 'Delete 2 nodes' }).getByRole('button', { name: 'Delete', exact: true }).click();
      const done = page.getByTestId('bulk-done');
      await done.waitFor();
      assert.match(await done.textContent(), /^Deleted retry-on-503, billing-timeout\./);
      assert.ok(!(await ids()).includes('retry-on-503') && !(await ids()).includes('billing-timeout'));
      const log = (await rest(kg.url, `/api/history?level=project&project_path=${encodeURIComponent(project)}&limit=3`)).body.entries;
      assert.deepEqual(log.filter((x) => x.op === 'delete' && x.item === 'node').map((x) => x.id).sort(), ['billing-timeout', 'retry-on-503']);
      assert.equal(new Set(log.map((x) => x.session_id)).size, 1, 'one session: the action');
      assert.ok(log[0].session_id);
      await shot(page, `page-${n}-bulk-deleted-1440x900.png`);
      await done.getByRole('button', { name: 'Undo' }).click();
      await done.getByTestId('bulk-undone').waitFor();
      assert.match(await done.getByTestId('bulk-undone').textContent(), /^Undo put back 3 items\./);
      const back = await readGraph(kg.url, project);
      assert.ok(back.nodes['retry-on-503'] && back.nodes['billing-timeout'], 'both back');
      assert.ok(back.edges.some((x) => x.from === 'retry-on-503' && x.to === 'billing-timeout'), 'and the edge between them');
      await done.getByRole('button', { name: 'Dismiss' }).click();

      // Merge two into one, keeping the first picked, and undo it.
      await pick(['build-proto-step', 'proto-parallel']);
      await bar.getByRole('button', { name: 'Merge…' }).click();
      const merge = page.getByRole('dialog', { name: 'Merge 2 nodes into one' });
      assert.equal(await merge.getByLabel('The node to keep').inputValue(), 'build-proto-step');
      await merge.getByRole('button', { name: 'Merge', exact: true }).click();
      await done.waitFor();
      assert.match(await done.textContent(), /^Merged proto-parallel into build-proto-step\./);
      assert.ok(!(await ids()).includes('proto-parallel'));
      await done.getByRole('button', { name: 'Undo' }).click();
      await done.getByTestId('bulk-undone').waitFor();
      assert.ok((await ids()).includes('proto-parallel'), 'the merged node is back');
      await done.getByRole('button', { name: 'Dismiss' }).click();

      // Archive three as one session's write (POST /api/nodes/archive), and undo it.
      const three = ['retry-on-503', 'billing-timeout', 'deploy-key'];
      const tiers = async () => { const g = await readGraph(kg.url, project); return three.map((id) => g.nodes[id]?.tier); };
      const rowTier = (id) => page.locator(`.list-panel .node-item[data-id="${id}"] .badge:not(.badge-stale)`);
      await pick(three);
      assert.equal(await bar.locator('strong').textContent(), '3 picked');
      await filter.fill('b'); // the list shows some of the picked rows, ticked
      await shot(page, `page-${n}-bulk-picked-1440x900.png`);
      await filter.fill('');
      await bar.getByRole('button', { name: 'Archive', exact: true }).click();
      await done.waitFor();
      assert.match(await done.textContent(), /^Archived retry-on-503, billing-timeout, deploy-key\./);
      assert.deepEqual(await tiers(), ['archived', 'archived', 'archived']);
      const archived = (await rest(kg.url, `/api/history?level=project&project_path=${encodeURIComponent(project)}&limit=3`)).body.entries;
      assert.deepEqual(archived.map((x) => x.op), ['archive', 'archive', 'archive']);
      assert.equal(new Set(archived.map((x) => x.session_id)).size, 1, 'one session: the action');
      for (const id of three) {
        await filter.fill(id);
        await assert.doesNotReject(rowTier(id).filter({ hasText: /^archived$/ }).waitFor({ timeout: LAYOUT_TIMEOUT }), `${id} shown archived`);
      }
      await filter.fill('');
      await shot(page, `page-${n}-bulk-archived-1440x900.png`);
      await done.getByRole('button', { name: 'Undo' }).click();
      await done.getByTestId('bulk-undone').waitFor();
      assert.deepEqual(await tiers(), ['active', 'active', 'active']);
      for (const id of three) {
        await filter.fill(id);
        await assert.doesNotReject(rowTier(id).filter({ hasText: /^active$/ }).waitFor({ timeout: LAYOUT_TIMEOUT }), `${id} shown active again`);
      }
      await filter.fill('');
      await done.getByRole('button', { name: 'Dismiss' }).click();
      assert.deepEqual(b.errors, []);
    });

    it(`runs compaction now after showing its dry run (${n} nodes)`, async () => {
      await page.getByRole('tab', { name: /Compaction plan/ }).click();
      await page.getByRole('button', { name: 'Run compaction now…' }).click();
      const ask = page.getByRole('group', { name: 'Run compaction now' });
      assert.match(await ask.textContent(), /A run now would move nothing\.|A run now makes the \d+ moves? listed below \(this is its dry run\)\./);
      await ask.getByRole('button', { name: 'Run it' }).click();
      await page.locator('.message', { hasText: /^Compaction ran: / }).waitFor();
      assert.deepEqual(b.errors, []);
    });

    it(`opens a project edge's user-graph node, puts the undo above a session's changes, and tells projects apart on a phone (${n} nodes)`, async () => {
      await openGraph(page, kg.url, project, 'refresh-window');
      await page.getByRole('tab', { name: 'Node' }).click();
      const edge = page.locator('article.details li.edge[data-other="say-why"]');
      await edge.getByRole('button', { name: 'say-why (user graph)', exact: true }).click();
      await page.locator('article.details h2', { hasText: 'say-why' }).waitFor({ timeout: LAYOUT_TIMEOUT });
      assert.equal(await page.locator('.app').getAttribute('data-scope'), 'user');

      // The agent's session: its undo comes before its changes.
      await page.goto(`${kg.url}/ui/`);
      await page.locator(`.session-group[data-session="${agent}"]`).getByRole('button', { name: /^Changes and undo of / }).click();
      const dialog = page.getByRole('dialog');
      await dialog.locator('[data-testid="session-history"] li').first().waitFor();
      const undo = await dialog.getByRole('button', { name: "Undo this session's changes…" }).boundingBox();
      const list = await dialog.getByTestId('session-history').boundingBox();
      assert.ok(undo.y < list.y, `the undo (${undo.y}) is above the list (${list.y})`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      // On a phone the selector shows what differs between the projects first.
      await page.setViewportSize(PHONE);
      const options = await page.locator('#graph-select option').allTextContents();
      for (const [dir, side] of [[alike[0], 'left'], [alike[1], 'right']]) {
        const tail = `${basename(dirname(dir))}/app`;
        assert.ok(tail.startsWith(`kg-e2e-page-${side}-`));
        assert.ok(options.includes(`Project ${tail} — ${dir}`), `${tail} first: ${options.join(' | ')}`);
      }
      assert.ok(options.includes(`Project ${basename(project)} — ${project}`), options.join(' | '));
      await shot(page, `page-${n}-phone-selector-390x844.png`);
      await page.setViewportSize(LAPTOP);
      assert.deepEqual(b.errors, []);
    });

    it(`places the labels of the selection's neighbourhood on no marker at default zoom (${n} nodes)`, async () => {
      await openGraph(page, kg.url, project, 'retry-on-503');
      await page.waitForFunction(() => {
        const s = document.querySelector('svg.pic').kgPicture.snapshot();
        return s.settled && s.vertices.some((v) => v.id === 'retry-on-503' && v.selected);
      }, null, { timeout: LAYOUT_TIMEOUT });
      await frames(page);
      const s = await snap(page);
      const labels = await page.locator('svg.pic .labels text').evaluateAll((els) => els.map((e) => {
        const r = e.getBoundingClientRect();
        return { id: e.dataset.id, over: e.dataset.over === '1', x: r.x, y: r.y, w: r.width, h: r.height };
      }));
      assert.ok(labels.some((l) => l.id === 'retry-on-503'), 'the selection is labelled');
      // The selection's neighbourhood is what a person reads; the crowd
      // around it may put its labels on markers (labels.js). A read label
      // goes over a marker only when none of its twelve places is free, and
      // then it says so (data-over); the rest must cover none.
      const read = new Set(s.vertices.filter((v) => v.near || v.selected).map((v) => v.id));
      const neighbourhood = labels.filter((l) => read.has(l.id) && !l.over);
      assert.ok(neighbourhood.length > 1, `the neighbourhood has ${neighbourhood.length} labels`);
      const markers = s.vertices.filter((v) => v.drawn && v.x !== null).map((v) => ({ id: v.id, r: v.kind === 'ref' ? s.screenR * 0.62 : s.screenR, x: v.x, y: v.y }));
      const covered = [];
      for (const l of neighbourhood) {
        for (const m of markers) {
          if (m.id === l.id) continue;
          // One pixel of slack: the text's box is measured, the placement's computed.
          if (l.x + 1 < m.x + m.r && m.x - m.r < l.x + l.w - 1 && l.y + 1 < m.y + m.r && m.y - m.r < l.y + l.h - 1) covered.push(`${l.id} on ${m.id}`);
        }
      }
      assert.deepEqual(covered, [], `${covered.length} of the neighbourhood's ${neighbourhood.length} labels cover a marker`);
      await shot(page, `page-${n}-labels-off-markers-1440x900.png`);
    });

    it(`shows an agent's new nodes inside the view, or says how many landed outside it and brings them in (${n} nodes)`, async () => {
      await openGraph(page, kg.url, project);
      // Zoomed in, most of the graph is outside the view, as a person reading a corner has it.
      for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Zoom in' }).click();
      await frames(page);
      const g = await readGraph(kg.url, project);
      const targets = Object.keys(g.nodes).filter((id) => id.startsWith('db-')).slice(0, 20);
      const fresh = targets.map((t, i) => `agent-new-${i}`);
      for (let i = 0; i < fresh.length; i++) {
        await mcp(kg.url, 'kg_put_node', { session_id: agent, level: 'project', id: fresh[i], gist: `A new finding ${i} about ${targets[i]}` });
        await mcp(kg.url, 'kg_put_edge', { session_id: agent, level: 'project', from: fresh[i], to: targets[i], rel: 'refines' });
      }
      await page.waitForFunction((ids) => ids.every((id) => document.querySelector('svg.pic').kgPicture.isDrawn(id)), fresh, { timeout: LAYOUT_TIMEOUT });
      await frames(page);
      const box = await page.locator('svg.pic').boundingBox();
      const inside = (v) => v && v.x >= box.x && v.x <= box.x + box.width && v.y >= box.y && v.y <= box.y + box.height;
      const outside = async () => (await snap(page)).vertices.filter((v) => fresh.includes(v.id) && !inside(v)).map((v) => v.id);
      const out = await outside();
      if (out.length) {
        const button = page.getByTestId('fresh');
        await button.waitFor();
        assert.equal(await button.textContent(), `${out.length} new — show`);
        await shot(page, `page-${n}-new-nodes-offscreen-1440x900.png`);
        await button.click();
        await frames(page);
      }
      assert.deepEqual(await outside(), [], 'every new node is in view');
      await shot(page, `page-${n}-new-nodes-1440x900.png`);
      assert.deepEqual(b.errors, []);
    });
  });
}
