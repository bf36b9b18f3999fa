// Browser tests of the kg web page at /ui/, in Debian's chromium driven by
// playwright-core. Each suite starts its own kg binary (KG_BIN) on a free
// port and a temporary root, seeds it through MCP, and drives the page as
// a person would. Screenshots go to e2e/artifacts/ (git-ignored).
//
// Run through e2e/run.sh (make e2e); KG_BIN names the binary.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const artifacts = join(here, '..', 'artifacts');
mkdirSync(artifacts, { recursive: true });
const KG = process.env.KG_BIN;
if (!KG) throw new Error('KG_BIN is not set: run the tests through e2e/run.sh (make e2e)');

const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
];
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

// ---- the server ----------------------------------------------------------

/**
 * Starts kg serve on port (0: a free one) and root, and resolves once it
 * listens. extra: more flags.
 */
async function startKG({ root, port = 0, extra = [] }) {
  const args = ['serve', '--port', String(port), '--storage', 'json', '--storage-root', root,
    '--log-format', 'json', '--grace-days', '0', '--max-tokens', '400',
    '--maintenance-interval', '3600', ...extra];
  const env = { ...process.env };
  for (const k of ['KG_AUTH_TOKEN', 'KG_HTTP_HOST', 'KG_HTTP_PORT']) delete env[k];
  const proc = spawn(KG, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const addr = await new Promise((resolve, reject) => {
    const onData = (b) => {
      log += b.toString();
      const m = log.match(/"msg":"listening".*?"addr":"([^"]+)"/);
      if (m) resolve(m[1]);
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`kg exited ${code} before listening:\n${log}`)));
    setTimeout(() => reject(new Error(`kg did not listen within 30 s:\n${log}`)), 30_000).unref();
  });
  const url = `http://${addr}`;
  return {
    url,
    port: Number(addr.split(':').pop()),
    log: () => log,
    async stop() {
      if (proc.exitCode !== null) return proc.exitCode;
      const done = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      return done;
    },
  };
}

let rpcID = 0;
/** One MCP tools/call, as an agent makes it (stateless Streamable HTTP). */
async function mcp(url, name, args, headers = {}) {
  const res = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcID, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = await res.json();
  if (body.error || body.result?.isError) throw new Error(`${name}: ${JSON.stringify(body.error ?? body.result.content)}`);
  return body.result.structuredContent;
}

async function rest(url, path, init = {}) {
  const res = await fetch(`${url}${path}`, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** The user graph as the REST API reads it: {id: node}. */
async function userNodes(url, headers = {}) {
  const { status, body } = await rest(url, '/api/graph/read', { headers });
  assert.equal(status, 200, JSON.stringify(body));
  const nodes = Array.isArray(body.user.nodes) ? body.user.nodes : Object.values(body.user.nodes);
  return Object.fromEntries(nodes.map((n) => [n.id, n]));
}

const TOPICS = ['errors', 'testing', 'naming', 'logging', 'commits', 'reviews', 'layout', 'deps', 'docs', 'benchmarks'];

/**
 * Seeds the user graph with 40 nodes (about 36 tokens each) and 13 edges,
 * so that with a 400-token budget and no grace compaction archives most
 * and, past the archived budget of 120 tokens (24 ids), orphans some; and
 * one project graph with two nodes.
 */
async function seed(url, project, headers = {}) {
  const { session_id: sid } = await mcp(url, 'kg_read', { cwd: project }, headers);
  for (let i = 0; i < 40; i++) {
    const topic = TOPICS[i % TOPICS.length];
    await mcp(url, 'kg_put_node', {
      session_id: sid, level: 'user', id: `lesson-${String(i).padStart(2, '0')}-${topic}`,
      gist: `Lesson ${i} about ${topic}: keep it small and say why in the notes`,
      notes: [`why ${i}: learned the hard way`], touches: [`docs/${topic}.md`],
    }, headers);
  }
  for (let i = 1; i < 40; i += 3) {
    const from = `lesson-${String(i).padStart(2, '0')}-${TOPICS[i % TOPICS.length]}`;
    const to = `lesson-${String(i - 1).padStart(2, '0')}-${TOPICS[(i - 1) % TOPICS.length]}`;
    await mcp(url, 'kg_put_edge', { session_id: sid, level: 'user', from, to, rel: 'refines', notes: [`${from} narrows ${to}`] }, headers);
  }
  await mcp(url, 'kg_put_node', { session_id: sid, level: 'project', id: 'build-cmd', gist: 'make build makes bin/kg' }, headers);
  await mcp(url, 'kg_put_node', { session_id: sid, level: 'project', id: 'test-cmd', gist: 'make test runs vet and the race detector' }, headers);
  return sid;
}

// ---- the browser ---------------------------------------------------------

async function launch() {
  const userDataDir = mkdtempSync(join(tmpdir(), 'kg-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS, viewport: DESKTOP,
  });
  const page = context.pages()[0] ?? await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return {
    context, page, errors,
    async close() { await context.close(); rmSync(userDataDir, { recursive: true, force: true }); },
  };
}

const shot = (page, name) => page.screenshot({ path: join(artifacts, name), fullPage: false });
const loaded = (page) => page.locator('.app[data-loaded="true"]').waitFor();
const listItem = (page, id) => page.locator(`.nodes button[data-id="${id}"]`);
const details = (page) => page.locator('article.details');

// ---- the tests -----------------------------------------------------------

/**
 * Closes the browser, stops kg (which must exit 0: a clean stop), and
 * removes the test's folders.
 */
async function tearDown({ b, kg, dirs }) {
  await b?.close();
  const code = await kg?.stop();
  for (const d of dirs) if (d) rmSync(d, { recursive: true, force: true });
  assert.equal(code, 0, `kg exited ${code}:\n${kg?.log()}`);
}

describe('kg web page', () => {
  let root; let project; let kg; let b; let page;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'kg-e2e-ui-root-'));
    project = mkdtempSync(join(tmpdir(), 'kg-e2e-ui-project-'));
    kg = await startKG({ root });
    await seed(kg.url, project);
    b = await launch();
    page = b.page;
  });

  after(() => tearDown({ b, kg, dirs: [root, project] }));

  it('opens on the user graph, with the tiers drawn apart, live', async () => {
    await page.goto(`${kg.url}/ui/`);
    await loaded(page);
    const nodes = await userNodes(kg.url);
    const tiers = Object.values(nodes).map((n) => n.tier);
    for (const t of ['active', 'archived', 'orphaned']) {
      assert.ok(tiers.includes(t), `the seed leaves a node ${t}: ${JSON.stringify(tiers)}`);
      assert.ok(await page.locator(`svg .vertex[data-tier="${t}"]`).count() > 0, `a ${t} node is drawn`);
    }
    assert.equal(await page.locator('.nodes button').count(), Object.keys(nodes).length);
    const { body: g } = await rest(kg.url, '/api/graph/read');
    assert.equal(await page.locator('svg g.edges line').count(), g.user.edges.length, 'every edge is drawn');
    // Apart by shape, not only colour: circles, dashed circles, diamonds.
    assert.equal(await page.locator('svg .vertex[data-tier="orphaned"] path.v-orphaned').count(),
      tiers.filter((t) => t === 'orphaned').length);
    const dash = await page.locator('svg .vertex[data-tier="archived"] circle').first()
      .evaluate((el) => getComputedStyle(el).strokeDasharray);
    assert.notEqual(dash, 'none', 'archived nodes have a dashed ring');
    await page.locator('.conn[data-state="connected"]').waitFor();
    await shot(page, 'ui-1280x800.png');
    assert.deepEqual(b.errors, []);
  });

  it('switches to a project graph and back', async () => {
    const select = page.getByLabel('Graph', { exact: true });
    const value = await select.locator('option', { hasText: project }).getAttribute('value');
    await select.selectOption(value);
    await listItem(page, 'build-cmd').waitFor();
    assert.equal(await page.locator('.nodes button').count(), 2);
    await select.selectOption('user');
    await listItem(page, 'lesson-00-errors').waitFor();
  });

  it('searches the graph', async () => {
    await page.keyboard.press('/');
    await page.keyboard.type('benchmarks');
    await page.keyboard.press('Enter');
    const results = page.getByRole('list', { name: 'Search results' });
    await results.waitFor();
    const ids = await results.locator('button').evaluateAll((els) => els.map((e) => e.dataset.id));
    assert.deepEqual([...ids].sort(), ['lesson-09-benchmarks', 'lesson-19-benchmarks', 'lesson-29-benchmarks', 'lesson-39-benchmarks']);
    await page.getByRole('button', { name: 'Clear search' }).click();
    await page.getByRole('list', { name: 'Nodes of this graph' }).waitFor();
  });

  it('shows a node, its edges with notes, and why it ranks where it does, without recalling it', async () => {
    const nodes = await userNodes(kg.url);
    const archived = Object.values(nodes).find((n) => n.tier === 'archived');
    await listItem(page, archived.id).click();
    const d = details(page);
    await d.locator('[data-testid="tier"]', { hasText: 'archived' }).waitFor();
    assert.equal(await d.locator('[data-testid="gist"]').textContent(), archived.gist);
    // Selecting read nothing by id: the node is still archived, its version unchanged.
    const after = (await userNodes(kg.url))[archived.id];
    assert.equal(after.tier, 'archived');
    assert.equal(after.version, archived.version);

    // An archived node is outside the ranking of active nodes, and says so.
    await d.locator('[data-testid="unranked"]', { hasText: 'Archived nodes are not in the ranking' }).waitFor();

    // An active node: its edges with their notes, and its ranking.
    const { body: plan } = await rest(kg.url, '/api/compaction/plan?level=user');
    const ranked = plan.ranking.filter((r) => r.rank !== null);
    assert.ok(ranked.length > 0, JSON.stringify(plan.ranking));
    const { body: g } = await rest(kg.url, '/api/graph/read');
    const withEdge = ranked.find((r) => g.user.edges.some((e) => e.from === r.id || e.to === r.id)) ?? ranked[0];
    const active = nodes[withEdge.id];
    await listItem(page, active.id).click();
    await d.locator('h2', { hasText: active.id }).waitFor();
    assert.equal(await d.locator('[data-testid="gist"]').textContent(), active.gist);
    assert.match(await d.textContent(), /why \d+: learned the hard way/);
    assert.match(await d.textContent(), /docs\/\w+\.md/);
    const edges = g.user.edges.filter((e) => e.from === active.id || e.to === active.id);
    assert.equal(await d.locator('li.edge').count(), edges.length);
    if (edges.length) assert.match(await d.locator('li.edge').first().textContent(), /narrows/);
    assert.equal(await d.locator('[data-testid="score"]').textContent(), withEdge.score.toFixed(4));
    const suffix = (n) => (Math.floor(n / 10) % 10 === 1 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
    assert.equal(await d.locator('[data-testid="place"]').textContent(), `${withEdge.rank}${suffix(withEdge.rank)} of ${ranked.length}, lowest first`);
    assert.equal(await d.locator('[data-testid="grace"]').textContent(), 'none (past grace)');
    // The formula shown is the one the plan says the scores were computed
    // with: the use count's percentile by default (KG_SCORING=use).
    assert.equal(plan.scoring, 'use');
    const sessions = (Math.floor((withEdge.use * 100) / 65536) / 100).toFixed(2);
    assert.match(await d.locator('[data-testid="use"]').textContent(), new RegExp(`^\\d+\\w\\w percentile, ${sessions} sessions lately, last counted (\\d{4}-\\d\\d-\\d\\d|never)$`));
    assert.match(await d.locator('[data-testid="formula"]').textContent(), /^Score = use percentile, among the active nodes past grace/);
    const w = plan.weights;
    assert.match(await d.locator('.ranking').textContent(), new RegExp(`\\(${w.in} × edges in \\+ ${w.out} × edges out`));
    await shot(page, 'ui-details-1280x800.png');
    await d.locator('.rank-section').scrollIntoViewIfNeeded();
    await shot(page, 'ui-ranking-1280x800.png');
  });

  it('creates, edits and deletes a node', async () => {
    await page.getByRole('button', { name: 'New node' }).click();
    const dialog = page.getByRole('dialog', { name: 'New node' });
    await dialog.getByLabel('Id').fill('ui-made-node');
    await dialog.getByLabel('Gist').fill('made in the browser');
    await dialog.getByRole('button', { name: 'Add a note' }).click();
    await dialog.getByLabel('Note 1', { exact: true }).fill('because a person can tend the memory too');
    await dialog.getByLabel(/Touches/).fill('adapters/http/ui/web/src/App.jsx');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await details(page).locator('h2', { hasText: 'ui-made-node' }).waitFor();
    let n = (await userNodes(kg.url))['ui-made-node'];
    assert.equal(n.gist, 'made in the browser');
    assert.deepEqual(n.notes, ['because a person can tend the memory too']);
    assert.deepEqual(n.touches, ['adapters/http/ui/web/src/App.jsx']);

    // A bad edit is refused with the server's message, and changes nothing.
    await details(page).getByRole('button', { name: 'Edit' }).click();
    let edit = page.getByRole('dialog', { name: 'Edit node ui-made-node' });
    await edit.getByLabel('Gist').evaluate((el) => el.removeAttribute('maxlength'));
    await edit.getByLabel('Gist').fill('x'.repeat(1001));
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.getByRole('alert').waitFor();
    assert.match(await edit.getByRole('alert').textContent(), /gist.*1001.*1000/);
    await edit.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await userNodes(kg.url))['ui-made-node'].gist, 'made in the browser');

    await details(page).getByRole('button', { name: 'Edit' }).click();
    edit = page.getByRole('dialog', { name: 'Edit node ui-made-node' });
    await edit.getByLabel('Gist').fill('edited in the browser');
    await edit.getByRole('button', { name: 'Save' }).click();
    await details(page).locator('[data-testid="gist"]', { hasText: 'edited in the browser' }).waitFor();
    n = (await userNodes(kg.url))['ui-made-node'];
    assert.equal(n.gist, 'edited in the browser');
    assert.equal(n.version, 2);
    assert.equal(await details(page).locator('[data-testid="version"]').textContent(), '2');

    await details(page).getByRole('button', { name: 'Delete' }).last().click();
    await page.getByRole('dialog', { name: 'Delete node ui-made-node?' }).getByRole('button', { name: 'Delete node' }).click();
    await listItem(page, 'ui-made-node').waitFor({ state: 'detached' });
    assert.equal((await userNodes(kg.url))['ui-made-node'], undefined);
    await page.locator('.message', { hasText: 'Deleted node ui-made-node' }).waitFor();
  });

  it('creates, edits and deletes an edge', async () => {
    const edgeOf = async () => {
      const { body } = await rest(kg.url, '/api/graph/read');
      const edges = Array.isArray(body.user.edges) ? body.user.edges : Object.values(body.user.edges);
      return edges.find((e) => e.from === 'lesson-02-naming' && e.to === 'docs/style.md' && e.rel === 'documented-in');
    };
    await listItem(page, 'lesson-02-naming').click();
    await details(page).getByRole('button', { name: 'Add edge from here' }).click();
    const dialog = page.getByRole('dialog', { name: 'New edge' });
    assert.equal(await dialog.getByLabel('From').inputValue(), 'lesson-02-naming');
    await dialog.getByLabel('Relation').fill('documented-in');
    await dialog.getByLabel('To', { exact: true }).fill('docs/style.md');
    await dialog.getByLabel(/Notes/).fill('the naming rules live there');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const row = details(page).locator('li.edge[data-rel="documented-in"]');
    await row.waitFor();
    assert.match(await row.textContent(), /docs\/style\.md.*the naming rules live there/s);
    assert.deepEqual((await edgeOf()).notes, ['the naming rules live there']);

    await row.getByRole('button', { name: /Edit notes/ }).click();
    const edit = page.getByRole('dialog', { name: /Edit edge/ });
    await edit.getByLabel(/Notes/).fill('the naming rules\n\nand the examples');
    await edit.getByRole('button', { name: 'Save' }).click();
    await row.locator('.notes li', { hasText: 'and the examples' }).waitFor();
    assert.deepEqual((await edgeOf()).notes, ['the naming rules', 'and the examples']);

    await row.getByRole('button', { name: /Delete edge/ }).click();
    await page.getByRole('dialog', { name: 'Delete this edge?' }).getByRole('button', { name: 'Delete edge' }).click();
    await row.waitFor({ state: 'detached' });
    assert.equal(await edgeOf(), undefined);
  });

  it('recalls an archived node, and shows the compaction plan with its reasons', async () => {
    const archived = Object.values(await userNodes(kg.url)).filter((n) => n.tier === 'archived').map((n) => n.id).sort();
    assert.ok(archived.length >= 3, `archived: ${archived}`);
    await listItem(page, archived[0]).click();
    await details(page).getByRole('button', { name: 'Recall' }).click();
    await details(page).locator('[data-testid="tier"]', { hasText: 'active' }).waitFor();
    await page.locator('.message', { hasText: `Recalled ${archived[0]}` }).waitFor();
    assert.equal((await userNodes(kg.url))[archived[0]].tier, 'active');

    // Recall does not compact; recalling enough puts the graph over its
    // budget, and the plan says what a run would archive, and why.
    let plan;
    for (const id of archived.slice(1)) {
      await rest(kg.url, `/api/nodes/user/${id}`);
      plan = (await rest(kg.url, '/api/compaction/plan?level=user')).body;
      if ((plan.moves ?? plan.steps ?? []).length) break;
    }
    const moves = plan.moves ?? plan.steps;
    assert.ok(moves.length > 0, `a plan with moves: ${JSON.stringify(plan)}`);
    await page.reload();
    await loaded(page);
    await page.getByRole('tab', { name: /Compaction plan/ }).click();
    const first = page.locator(`.moves li[data-id="${moves[0].id}"]`);
    await first.waitFor();
    assert.match(await first.textContent(), /archive/);
    assert.ok((await first.locator('.move-why').textContent()).length > 10, 'the move says why');
    await shot(page, 'ui-plan-1280x800.png');
    // The node's own panel says the same.
    await first.getByRole('button', { name: moves[0].id }).click();
    await details(page).locator('[data-testid="planned-move"]').waitFor();
  });

  it('shows a node written through MCP while the page is open, without a reload', async () => {
    await page.evaluate(() => { window.kgNoReload = true; });
    await page.locator('.conn[data-state="connected"]').waitFor();
    const { session_id: sid } = await mcp(kg.url, 'kg_read', { cwd: project });
    await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'user', id: 'from-an-agent', gist: 'written through MCP' });
    await listItem(page, 'from-an-agent').waitFor({ timeout: 10_000 });
    assert.equal(await page.evaluate(() => window.kgNoReload), true, 'the page was not reloaded');
  });

  it('can be used by keyboard alone', async () => {
    await page.keyboard.press('Escape');
    await page.locator('body').focus();
    // Tab from the top reaches the node list; Enter selects.
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.matches('.nodes button') ?? false);
    }
    assert.ok(reached, 'Tab reaches the node list');
    const id = await page.evaluate(() => document.activeElement.dataset.id);
    await page.keyboard.press('Enter');
    await details(page).locator('h2', { hasText: id }).waitFor();
    // The focus ring is visible.
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.notEqual(outline, 'none');
    // A node made with the keyboard only.
    await page.getByRole('button', { name: 'New node' }).focus();
    await page.keyboard.press('Enter');
    // The dialog moves the focus to its first field once it has rendered;
    // keys typed before that would land on the page behind it.
    await page.waitForFunction(() => document.activeElement?.id === 'f-id');
    await page.keyboard.type('keyboard-made');
    await page.keyboard.press('Tab');
    await page.keyboard.type('made without a mouse');
    await page.keyboard.press('Enter');
    await details(page).locator('h2', { hasText: 'keyboard-made' }).waitFor();
  });

  it('is readable on a phone (390×844)', async () => {
    await page.setViewportSize(PHONE);
    await page.reload();
    await loaded(page);
    await listItem(page, 'lesson-00-errors').click();
    await details(page).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no sideways scrolling: ${overflow}px too wide`);
    for (const name of ['New node', 'Search']) {
      const box = await page.getByRole('button', { name, exact: true }).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width, `${name} is on screen: ${JSON.stringify(box)}`);
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, 'ui-390x844.png');
    await page.setViewportSize(DESKTOP);
  });

  it('shows the lost connection when the server stops, and reconnects when it restarts', async () => {
    await page.locator('.conn[data-state="connected"]').waitFor();
    const { port } = kg;
    assert.equal(await kg.stop(), 0);
    await page.locator('.conn[data-state="disconnected"]').waitFor({ timeout: 20_000 });
    assert.match(await page.locator('.conn').textContent(), /Disconnected/);
    await shot(page, 'ui-disconnected-1280x800.png');

    kg = await startKG({ root, port });
    // Written while the page was away: the re-read after the reconnect, or
    // the live event, shows it.
    const { session_id: sid } = await mcp(kg.url, 'kg_read', { cwd: project });
    await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'user', id: 'after-restart', gist: 'written while the page reconnected' });
    await page.locator('.conn[data-state="connected"]').waitFor({ timeout: 20_000 });
    await listItem(page, 'after-restart').waitFor({ timeout: 10_000 });
    assert.deepEqual(b.errors, []);
  });
});

describe('kg web page with a damaged user graph', () => {
  let root; let project; let kg; let b;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'kg-e2e-ui-damaged-'));
    project = mkdtempSync(join(tmpdir(), 'kg-e2e-ui-project-'));
    kg = await startKG({ root });
    const { session_id: sid } = await mcp(kg.url, 'kg_read', { cwd: project });
    await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'user', id: 'lesson', gist: 'a user lesson' });
    await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'project', id: 'build-cmd', gist: 'make build' });
    assert.equal(await kg.stop(), 0);
    // Neither the file nor a .prev nor a journal to fall back on: the user
    // graph cannot be loaded, the project graph can.
    for (const f of readdirSync(root)) if (f.startsWith('user.')) rmSync(join(root, f));
    writeFileSync(join(root, 'user.json'), '{"nodes": [');
    kg = await startKG({ root });
    b = await launch();
  });

  after(() => tearDown({ b, kg, dirs: [root, project] }));

  it('says why the user graph is not shown, and still serves the project', async () => {
    const { page } = b;
    await page.goto(`${kg.url}/ui/`);
    await loaded(page);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.textContent(), /Could not read user graph: .*user\.json is damaged/);
    assert.equal(await page.locator('.nodes button').count(), 0);
    await shot(page, 'ui-damaged-user-graph-1280x800.png');

    const select = page.getByLabel('Graph', { exact: true });
    const value = await select.locator('option', { hasText: project }).getAttribute('value');
    await select.selectOption(value);
    await listItem(page, 'build-cmd').waitFor();
    assert.equal(await page.getByRole('alert').count(), 0, 'the project graph loads without the alert');
    assert.deepEqual(b.errors, []);
  });
});

describe('kg web page with a token', () => {
  const TOKEN = 'e2e-token-4f1c9a';
  let root; let project; let kg; let b;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'kg-e2e-ui-auth-'));
    project = mkdtempSync(join(tmpdir(), 'kg-e2e-ui-project-'));
    kg = await startKG({ root, extra: ['--auth-token', TOKEN] });
    await mcp(kg.url, 'kg_read', { cwd: project }, { Authorization: `Bearer ${TOKEN}` });
    b = await launch();
  });

  after(() => tearDown({ b, kg, dirs: [root, project] }));

  it('asks for the token once, then serves the page, the API and the live connection', async () => {
    const { page } = b;
    assert.equal((await rest(kg.url, '/api/graph/read')).status, 401, 'the API needs the token');

    const first = await page.goto(`${kg.url}/ui/`);
    assert.equal(first.status(), 401);
    await page.getByLabel('Access token').waitFor();
    await shot(page, 'ui-login-1280x800.png');

    await page.getByLabel('Access token').fill('not-the-token');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').textContent(), /not the server's/);

    await page.getByLabel('Access token').fill(TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await loaded(page);
    await page.locator('.conn[data-state="connected"]').waitFor();
    const cookies = await b.context.cookies();
    const login = cookies.find((c) => c.name === 'kg_login');
    assert.ok(login?.httpOnly && login.sameSite === 'Strict', JSON.stringify(cookies));
    assert.ok(!login.value.includes(TOKEN), 'the cookie is not the token');
    assert.equal(await page.evaluate(() => document.cookie), '', 'the page script cannot read the login');

    // A write from the page goes through with the cookie alone.
    await page.getByRole('button', { name: 'New node' }).click();
    const dialog = page.getByRole('dialog', { name: 'New node' });
    await dialog.getByLabel('Id').fill('behind-a-token');
    await dialog.getByLabel('Gist').fill('written by a logged-in page');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await listItem(page, 'behind-a-token').waitFor();

    // Live: an agent's write (with the bearer token) shows up.
    const { session_id: sid } = await mcp(kg.url, 'kg_read', { cwd: project }, { Authorization: `Bearer ${TOKEN}` });
    await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'user', id: 'agent-behind-token', gist: 'live behind a token' },
      { Authorization: `Bearer ${TOKEN}` });
    await listItem(page, 'agent-behind-token').waitFor({ timeout: 10_000 });

    // Logging out forgets the cookie: the page asks again.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByLabel('Access token').waitFor();
    assert.equal((await b.context.cookies()).find((c) => c.name === 'kg_login'), undefined);
    assert.deepEqual(b.errors, []);
  });
});
