// Browser tests of the kg web page at /ui/, in Debian's chromium driven by
// playwright-core. Each suite starts its own kg binary (KG_BIN) on a free
// port and a temporary root, seeds it (through MCP as an agent does, or a
// generated graph through POST /api/import), and drives the page as a
// person would. Screenshots go to e2e/artifacts/ (git-ignored).
//
// The picture is drawn in batches (adapters/http/ui/web/src/picture), not
// one element per node: what it shows is read from its snapshot(), and a
// node in it is clicked at the place the snapshot gives, as a person would.
//
// Run through e2e/run.sh (make e2e); KG_BIN names the binary.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, readdirSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate, importInto } from './graphs.mjs';
import {
  DESKTOP, LAPTOP, PHONE, startKG, mcp, rest, readGraph, userNodes, launch, shot, loaded,
  listItem, details, settled, snap, vertex, frames, openGraph, tearDown,
} from './kg.mjs';

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

/** The boxes of the labels drawn, in page pixels. */
const labelBoxes = (page) => page.locator('svg.pic .labels text').evaluateAll((els) => els.map((e) => {
  const r = e.getBoundingClientRect();
  return { id: e.dataset.id, x: r.x, y: r.y, w: r.width, h: r.height };
}));

/** The pairs of boxes that overlap by more than half a pixel. */
function overlapping(boxes) {
  const out = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]; const b = boxes[j];
      if (a.x + a.w - 0.5 > b.x && b.x + b.w - 0.5 > a.x && a.y + a.h - 0.5 > b.y && b.y + b.h - 0.5 > a.y) out.push([a.id, b.id]);
    }
  }
  return out;
}

/** Selects a node from the list (which brings its local graph into view) and waits for the picture to settle there. */
async function selectFromList(page, id) {
  await page.locator('.list-panel input[type="search"]').fill(id);
  await listItem(page, id).first().click();
  await details(page).locator('h2', { hasText: id }).waitFor();
  await page.waitForFunction((i) => {
    const s = document.querySelector('svg.pic').kgPicture.snapshot();
    return s.settled && s.vertices.some((v) => v.id === i && v.selected);
  }, id);
  await frames(page);
  await page.locator('.list-panel input[type="search"]').fill('');
}

// ---- the tests -----------------------------------------------------------

describe('kg web page', () => {
  let root; let project; let kg; let b; let page;
  const planReads = [];

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'kg-e2e-ui-root-'));
    project = mkdtempSync(join(tmpdir(), 'kg-e2e-ui-project-'));
    kg = await startKG({ root });
    await seed(kg.url, project);
    b = await launch();
    page = b.page;
    page.on('request', (r) => { if (r.url().includes('/api/compaction/plan')) planReads.push(r.url()); });
  });

  after(() => tearDown({ b, kg, dirs: [root, project] }));

  it('opens on the home view: per graph, counts per tier and the token meter, as /api/graph/read gives them', async () => {
    await page.goto(`${kg.url}/ui/`);
    await page.locator('.home[data-loading="false"]').waitFor();
    for (const p of [null, project]) {
      const g = await readGraph(kg.url, p);
      const card = page.locator(`.card[data-graph="${p ? `project:${p}` : 'user'}"]`);
      for (const t of ['active', 'archived', 'orphaned', 'edges']) {
        assert.equal(await card.locator(`[data-testid="count-${t}"]`).textContent(), String(g.stats[t]), `${p ?? 'user'} ${t}`);
      }
      const meter = card.getByRole('meter', { name: 'Token estimate' });
      assert.equal(await meter.getAttribute('aria-valuenow'), String(g.tokens));
      assert.equal(await meter.getAttribute('aria-valuemax'), String(g.max_tokens));
      assert.match(await card.locator('[data-testid="tokens"]').textContent(), new RegExp(`${g.tokens.toLocaleString('en')} of ${g.max_tokens.toLocaleString('en')} tokens, target ${g.target_tokens.toLocaleString('en')}`));
    }
    await page.locator('.conn[data-state="connected"]').waitFor();
    await shot(page, 'ui-home-1280x800.png');
    assert.deepEqual(b.errors, []);
  });

  it('shows the user graph with the tiers drawn apart, and reads the compaction plan only when it is shown', async () => {
    await page.locator('.card[data-graph="user"]').getByRole('button', { name: 'Open' }).click();
    await loaded(page);
    await settled(page);
    const g = await readGraph(kg.url);
    const tiers = Object.values(g.nodes).map((n) => n.tier);
    const s = await snap(page);
    for (const t of ['active', 'archived', 'orphaned']) {
      assert.ok(tiers.includes(t), `the seed leaves a node ${t}: ${JSON.stringify(tiers)}`);
      assert.equal(s.vertices.filter((v) => v.kind === 'node' && v.tier === t && v.drawn).length, tiers.filter((x) => x === t).length, `every ${t} node is drawn`);
    }
    assert.equal(s.edges, g.edges.length, 'every edge is drawn');
    assert.equal(await page.locator('.nodes button').count(), Object.keys(g.nodes).length);
    // Apart by shape and line, not only colour.
    const style = (look) => page.locator(`svg.pic path.v.v-${look}`).first().evaluate((el) => ({ dash: getComputedStyle(el).strokeDasharray, d: el.getAttribute('d') }));
    assert.notEqual((await style('archived')).dash, 'none', 'archived nodes have a dashed ring');
    assert.notEqual((await style('orphaned')).dash, 'none', 'orphaned nodes have a dotted line');
    assert.match((await style('orphaned')).d, /^M[-\d.]+ [-\d.]+L/, 'orphaned nodes are diamonds');
    assert.match((await style('active')).d, /a/, 'active nodes are circles');
    await shot(page, 'ui-graph-1280x800.png');
    // No node selected, the details tab open: nothing needs the plan.
    await page.waitForTimeout(500);
    assert.equal(planReads.length, 0, `the plan was read without being shown: ${planReads}`);
    await page.getByRole('tab', { name: /Compaction plan/ }).click();
    await page.locator('#panel-plan .plan').waitFor();
    assert.equal(planReads.length, 1);
    await page.getByRole('tab', { name: 'Node' }).click();
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

  it('searches every graph from one box, and shows the hits on the picture and with their graph', async () => {
    await page.keyboard.press('/');
    await page.keyboard.type('benchmarks');
    await page.keyboard.press('Enter');
    const results = page.getByRole('list', { name: 'Search results' });
    await results.waitFor();
    const ids = await results.locator('button').evaluateAll((els) => els.map((e) => e.dataset.id));
    assert.deepEqual([...ids].sort(), ['lesson-09-benchmarks', 'lesson-19-benchmarks', 'lesson-29-benchmarks', 'lesson-39-benchmarks']);
    assert.match(await results.locator('button').first().textContent(), /User graph.*matched: benchmarks/s);
    await frames(page);
    const hits = (await snap(page)).vertices.filter((v) => v.hit).map((v) => v.id).sort();
    assert.deepEqual(hits, [...ids].sort(), 'the hits of this graph are marked on the picture');
    await shot(page, 'ui-search-1280x800.png');

    // A misspelt word is corrected by the server, and the page says so.
    await page.getByLabel('Search every graph').fill('benchmrks');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="corrections"]').waitFor();
    assert.match(await page.locator('[data-testid="corrections"]').textContent(), /Searched for .+ \(you typed “benchmrks”\)/);
    assert.equal(await results.locator('button').count(), 4);
    assert.match(await results.locator('button').first().textContent(), /matched: benchmarks/, 'a corrected term shows as the word used');

    // No hits: the nearest spelling is offered, and searching it finds the node.
    await page.getByLabel('Search every graph').fill('mke');
    await page.keyboard.press('Enter');
    const nearest = page.locator('[data-testid="nearest"]');
    await nearest.waitFor();
    assert.equal(await results.locator('button').count(), 0);
    await nearest.getByRole('button', { name: 'make' }).click();
    await results.locator(`button[data-id="build-cmd"]`).waitFor();
    assert.equal(await page.getByLabel('Search every graph').inputValue(), 'make');

    // A hit in another graph opens that graph, with the hit selected.
    await page.getByLabel('Search every graph').fill('make');
    await page.keyboard.press('Enter');
    const hit = results.locator(`button[data-id="build-cmd"]`);
    await hit.waitFor();
    assert.match(await hit.textContent(), /Project kg-e2e-ui-project-/);
    await hit.click();
    await page.locator(`.app[data-scope="project:${project}"][data-loaded="true"]`).waitFor();
    await details(page).locator('h2', { hasText: 'build-cmd' }).waitFor();
    await page.getByRole('button', { name: 'Clear search' }).click();
    await page.getByRole('list', { name: 'Nodes of this graph' }).waitFor();
    await page.getByLabel('Graph', { exact: true }).selectOption('user');
    await listItem(page, 'lesson-00-errors').waitFor();
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
    const g = await readGraph(kg.url);
    const withEdge = ranked.find((r) => g.edges.some((e) => e.from === r.id || e.to === r.id)) ?? ranked[0];
    const active = nodes[withEdge.id];
    await listItem(page, active.id).click();
    await d.locator('h2', { hasText: active.id }).waitFor();
    assert.equal(await d.locator('[data-testid="gist"]').textContent(), active.gist);
    assert.match(await d.textContent(), /why \d+: learned the hard way/);
    assert.match(await d.textContent(), /docs\/\w+\.md/);
    const edges = g.edges.filter((e) => e.from === active.id || e.to === active.id);
    assert.equal(await d.locator('li.edge').count(), edges.length);
    if (edges.length) assert.match(await d.locator('li.edge').first().textContent(), /narrows/);
    await d.locator('[data-testid="score"]').waitFor();
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

  it('creates, edits, deletes and re-creates a node, and says in plain words why a write failed', async () => {
    const newNode = async (id, gist) => {
      await page.getByRole('button', { name: 'New node' }).click();
      const dialog = page.getByRole('dialog', { name: 'New node' });
      await dialog.getByLabel('Id').fill(id);
      await dialog.getByLabel('Gist').fill(gist);
      return dialog;
    };
    let dialog = await newNode('ui-made-node', 'made in the browser');
    await dialog.getByRole('button', { name: 'Add a note' }).click();
    await dialog.getByLabel('Note 1', { exact: true }).fill('because a person can tend the memory too');
    await dialog.getByLabel(/Touches/).fill('adapters/http/ui/web/src/App.jsx');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await details(page).locator('h2', { hasText: 'ui-made-node' }).waitFor();
    let n = (await userNodes(kg.url))['ui-made-node'];
    assert.equal(n.gist, 'made in the browser');
    assert.deepEqual(n.notes, ['because a person can tend the memory too']);
    assert.deepEqual(n.touches, ['adapters/http/ui/web/src/App.jsx']);

    // A bad edit is refused with the field and the limit, and changes nothing.
    await details(page).getByRole('button', { name: 'Edit' }).click();
    let edit = page.getByRole('dialog', { name: 'Edit node ui-made-node' });
    await edit.getByLabel('Gist').evaluate((el) => el.removeAttribute('maxlength'));
    await edit.getByLabel('Gist').fill('x'.repeat(1001));
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.getByRole('alert').waitFor();
    assert.equal(await edit.getByRole('alert').textContent(), 'Gist: 1001 chars, limit 1000.');
    assert.equal(await edit.getByLabel('Gist').getAttribute('aria-invalid'), 'true');
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

    // An id that exists: the page says so and offers to open it.
    dialog = await newNode('lesson-00-errors', 'would overwrite a lesson');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByRole('alert').waitFor();
    assert.equal(await dialog.getByRole('alert').locator('p').textContent(), 'A node “lesson-00-errors” already exists — open it, or choose another id.');
    await dialog.getByRole('button', { name: 'Open lesson-00-errors' }).click();
    await details(page).locator('h2', { hasText: 'lesson-00-errors' }).waitFor();
    assert.notEqual((await userNodes(kg.url))['lesson-00-errors'].gist, 'would overwrite a lesson');

    // Delete, then create it again from the page: a deleted node is at version 0.
    await listItem(page, 'ui-made-node').click();
    await details(page).getByRole('button', { name: 'Delete' }).last().click();
    await page.getByRole('dialog', { name: 'Delete node ui-made-node?' }).getByRole('button', { name: 'Delete node' }).click();
    await listItem(page, 'ui-made-node').waitFor({ state: 'detached' });
    assert.equal((await userNodes(kg.url))['ui-made-node'], undefined);
    await page.locator('.message', { hasText: 'Deleted node ui-made-node' }).waitFor();
    dialog = await newNode('ui-made-node', 'made again after its deletion');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await details(page).locator('[data-testid="gist"]', { hasText: 'made again after its deletion' }).waitFor();
    n = (await userNodes(kg.url))['ui-made-node'];
    assert.equal(n.gist, 'made again after its deletion');
    assert.equal(n.version, 3, 'the new node continues the version its tombstone kept');
    assert.equal(await details(page).locator('[data-testid="version"]').textContent(), '3');
  });

  it('says an agent changed a node being edited, and shows their version or overwrites it', async () => {
    const { session_id: agent } = await mcp(kg.url, 'kg_read', { cwd: project });
    const editWhileAgentWrites = async (theirs) => {
      await details(page).getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit node ui-made-node' });
      await edit.getByLabel('Gist').fill('mine');
      await mcp(kg.url, 'kg_put_node', { session_id: agent, level: 'user', id: 'ui-made-node', gist: theirs });
      await details(page).locator('[data-testid="gist"]', { hasText: theirs }).waitFor(); // the event reached the page
      await edit.getByRole('button', { name: 'Save' }).click();
      await edit.getByRole('alert').waitFor();
      assert.equal(await edit.getByRole('alert').locator('p').textContent(),
        '“ui-made-node” changed since you opened it — see their version, or overwrite it with yours.');
      return edit;
    };
    let edit = await editWhileAgentWrites('changed by an agent');
    assert.equal((await userNodes(kg.url))['ui-made-node'].gist, 'changed by an agent', 'nothing was overwritten');
    await shot(page, 'ui-conflict-1280x800.png');
    await edit.getByRole('button', { name: 'See their version' }).click();
    assert.equal(await edit.getByLabel('Gist').inputValue(), 'changed by an agent');
    await edit.getByLabel('Gist').fill('mine, after reading theirs');
    await edit.getByRole('button', { name: 'Save' }).click();
    await details(page).locator('[data-testid="gist"]', { hasText: 'mine, after reading theirs' }).waitFor();
    assert.equal((await userNodes(kg.url))['ui-made-node'].gist, 'mine, after reading theirs');

    edit = await editWhileAgentWrites('changed by the agent again');
    await edit.getByRole('button', { name: 'Overwrite with mine' }).click();
    await details(page).locator('[data-testid="gist"]', { hasText: /^mine$/ }).waitFor();
    assert.equal((await userNodes(kg.url))['ui-made-node'].gist, 'mine');
  });

  it('creates an edge, asks about an end that names no node, and keeps notes with blank lines whole', async () => {
    const edgesOf = async () => (await readGraph(kg.url)).edges;
    const edgeOf = async (to, rel) => (await edgesOf()).find((e) => e.from === 'lesson-02-naming' && e.to === to && e.rel === rel);
    await listItem(page, 'lesson-02-naming').click();
    const newEdge = async (rel, to) => {
      await details(page).getByRole('button', { name: 'Add edge from here' }).click();
      const dialog = page.getByRole('dialog', { name: 'New edge' });
      assert.equal(await dialog.getByLabel('From').inputValue(), 'lesson-02-naming');
      await dialog.getByLabel('Relation').fill(rel);
      await dialog.getByLabel('To', { exact: true }).fill(to);
      return dialog;
    };
    // A file path is plainly a reference: no question.
    let dialog = await newEdge('documented-in', 'docs/style.md');
    await dialog.getByRole('button', { name: 'Add a note' }).click();
    await dialog.getByLabel('Note 1', { exact: true }).fill('the naming rules live there');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const row = details(page).locator('li.edge[data-rel="documented-in"]');
    await row.waitFor();
    assert.match(await row.textContent(), /docs\/style\.md.*the naming rules live there/s);
    assert.deepEqual((await edgeOf('docs/style.md', 'documented-in')).notes, ['the naming rules live there']);

    // A note with blank lines is one note, and stays one through edits.
    await row.getByRole('button', { name: /Edit notes/ }).click();
    let edit = page.getByRole('dialog', { name: /Edit edge/ });
    await edit.getByRole('button', { name: 'Add a note' }).click();
    await edit.getByLabel('Note 2', { exact: true }).fill('and the examples.\n\nWith a blank line between.');
    await edit.getByRole('button', { name: 'Save' }).click();
    await row.locator('.notes li', { hasText: 'With a blank line between.' }).waitFor();
    const notes = ['the naming rules live there', 'and the examples.\n\nWith a blank line between.'];
    assert.deepEqual((await edgeOf('docs/style.md', 'documented-in')).notes, notes);
    await row.getByRole('button', { name: /Edit notes/ }).click();
    edit = page.getByRole('dialog', { name: /Edit edge/ });
    assert.equal(await edit.getByLabel('Note 2', { exact: true }).inputValue(), notes[1]);
    await edit.getByRole('button', { name: 'Save' }).click(); // unchanged
    await edit.waitFor({ state: 'detached' });
    assert.deepEqual((await edgeOf('docs/style.md', 'documented-in')).notes, notes, 'saving unchanged keeps every note whole');

    // A mistyped id: the page asks, and offers the node it looks like.
    dialog = await newEdge('refines', 'lesson-01-testin');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const ask = dialog.locator('[data-kind="ask"]');
    await ask.waitFor();
    assert.match(await ask.textContent(), /“lesson-01-testin” names no node of this graph\. Did you mean “lesson-01-testing”\?/);
    assert.equal(await edgeOf('lesson-01-testin', 'refines'), undefined, 'nothing is written before the answer');
    await shot(page, 'ui-edge-question-1280x800.png');
    await dialog.getByRole('button', { name: 'Use lesson-01-testing' }).click();
    await details(page).locator('li.edge[data-rel="refines"][data-other="lesson-01-testing"]').waitFor();
    assert.ok(await edgeOf('lesson-01-testing', 'refines'));
    assert.equal(await edgeOf('lesson-01-testin', 'refines'), undefined);
    // An id not created yet, on purpose: kept as a reference.
    dialog = await newEdge('inspired', 'an-idea-for-later');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.locator('[data-kind="ask"]').waitFor();
    await dialog.getByRole('button', { name: 'Keep “an-idea-for-later” as a reference' }).click();
    await details(page).locator('li.edge[data-other="an-idea-for-later"]').waitFor();
    assert.ok(await edgeOf('an-idea-for-later', 'inspired'));

    await row.getByRole('button', { name: /Delete edge/ }).click();
    await page.getByRole('dialog', { name: 'Delete this edge?' }).getByRole('button', { name: 'Delete edge' }).click();
    await row.waitFor({ state: 'detached' });
    assert.equal(await edgeOf('docs/style.md', 'documented-in'), undefined);
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
    await page.getByRole('tab', { name: /Compaction plan/ }).click();
    const first = page.locator(`.moves li[data-id="${moves[0].id}"]`);
    await first.waitFor(); // the recalls' events made the page read the plan again
    assert.match(await first.textContent(), /archive/);
    assert.ok((await first.locator('.move-why').textContent()).length > 10, 'the move says why');
    await shot(page, 'ui-plan-1280x800.png');
    // The node's own panel says the same.
    await first.getByRole('button', { name: moves[0].id }).click();
    await details(page).locator('[data-testid="planned-move"]').waitFor();
  });

  it('shows a node written through MCP at once, without a reload, and lists the change on the home view', async () => {
    await page.evaluate(() => { window.kgNoReload = true; });
    await page.locator('.conn[data-state="connected"]').waitFor();
    const { session_id: sid } = await mcp(kg.url, 'kg_read', { cwd: project });
    await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'user', id: 'from-an-agent', gist: 'written through MCP' });
    await listItem(page, 'from-an-agent').waitFor({ timeout: 10_000 });
    await page.waitForFunction(() => document.querySelector('svg.pic').kgPicture.isDrawn('from-an-agent'));
    assert.equal(await page.evaluate(() => window.kgNoReload), true, 'the page was not reloaded');

    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Home' }).click();
    const change = page.locator('.change[data-kind="node"]', { hasText: 'from-an-agent' }).first();
    await change.waitFor();
    assert.match(await change.textContent(), /User graph.*wrote node from-an-agent \(v1\)/s);
    // Under its session, named for a person: the project, the start and the first node's words.
    const group = page.locator(`.session-group[data-session="${sid}"]`);
    assert.match(await group.locator('.session-name').textContent(), /^Project kg-e2e-ui-project-\S+ · from \d\d:\d\d UTC · “written through MCP”$/);
    assert.equal(await group.locator('.change', { hasText: 'from-an-agent' }).count(), 1);
    // The graph was over its budget (the recalls above), so a run moved
    // nodes — the write's own, or this one — and the home view says why.
    const run = await rest(kg.url, '/api/compaction/run?level=user', { method: 'POST' });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const why = page.locator('.change[data-kind="compacted"] .why li[data-id]').first();
    await why.waitFor();
    assert.match(await why.textContent(), /\S+ (active|archived) → (archived|orphaned|active|deleted): .*(score|edges to active|grace)/);
    await shot(page, 'ui-home-changes-1280x800.png');
    await change.getByRole('button', { name: 'from-an-agent' }).click();
    await details(page).locator('h2', { hasText: 'from-an-agent' }).waitFor();
    assert.equal(await page.evaluate(() => window.kgNoReload), true);
  });

  it('lists on the home view what changed while the page was closed, from the change log', async () => {
    await page.goto('about:blank');
    const { session_id: sid } = await mcp(kg.url, 'kg_read', { cwd: project });
    await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'user', id: 'while-away', gist: 'written while no page was open' });
    await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'project', id: 'away-in-project', gist: 'and one in the project' });
    await page.goto(`${kg.url}/ui/`);
    for (const [id, graph] of [['while-away', 'User graph'], ['away-in-project', 'Project kg-e2e-ui-project-']]) {
      const change = page.locator('.change[data-kind="node"]', { hasText: id }).first();
      await change.waitFor();
      assert.match(await change.textContent(), new RegExp(`${graph}.*wrote node ${id}`, 's'));
      assert.equal(await page.locator(`.session-group[data-session="${sid}"] .change`, { hasText: id }).count(), 1);
    }
    await page.goto(`${kg.url}/ui/#view=graph`);
    await loaded(page);
    await settled(page);
  });

  it('can be used by keyboard alone', async () => {
    await page.keyboard.press('Escape');
    await page.locator('body').focus();
    // Tab from the top reaches the node list; Enter selects.
    let reached = false;
    for (let i = 0; i < 60 && !reached; i++) {
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

  it('follows a dark system setting', async () => {
    const bg = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const light = await bg();
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await bg();
    assert.notEqual(dark, light);
    const [r, g, bl] = dark.match(/\d+/g).map(Number);
    assert.ok(r + g + bl < 120, `a dark background: ${dark}`);
    await shot(page, 'ui-dark-1280x800.png');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('on a phone, puts the list first and draws the selection as a local graph with touch-sized targets', async () => {
    await page.setViewportSize(PHONE);
    await openGraph(page, kg.url, null, 'lesson-01-testing');
    await details(page).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no sideways scrolling: ${overflow}px too wide`);
    const list = await page.locator('.list-panel').boundingBox();
    const pic = await page.locator('.graph-panel').boundingBox();
    assert.ok(list.y < pic.y, `the list comes first: list at ${list.y}, picture at ${pic.y}`);
    for (const name of ['New node', 'Search']) {
      const box = await page.getByRole('button', { name, exact: true }).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width, `${name} is on screen: ${JSON.stringify(box)}`);
    }
    await page.locator('.graph-panel').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await frames(page);
    const s = await snap(page);
    const drawn = s.vertices.filter((v) => v.drawn);
    assert.ok(drawn.length >= 2 && drawn.every((v) => v.near), `only the local graph is drawn: ${JSON.stringify(drawn.map((v) => v.id))}`);
    assert.ok(s.screenR >= 11, `markers are large enough to touch: radius ${s.screenR}`);
    const box = await page.locator('svg.pic').boundingBox();
    assert.ok(drawn.every((v) => v.x > box.x && v.x < box.x + box.width && v.y > box.y && v.y < box.y + box.height), `the local graph is in view: ${JSON.stringify({ box, drawn })}`);
    // A tap 16 px beside a neighbour still hits it.
    const other = drawn.find((v) => !v.selected && v.kind === 'node');
    await page.mouse.click(other.x + 16, other.y);
    await details(page).locator('h2', { hasText: other.id }).waitFor();
    await frames(page);
    await shot(page, 'ui-390x844-local.png');
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, 'ui-390x844.png');
    await page.setViewportSize(DESKTOP);
  });

  it('exports a graph and imports it into another from the home view', async () => {
    await page.goto(`${kg.url}/ui/`);
    await page.locator('.home[data-loading="false"]').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('.card[data-graph="user"]').getByRole('link', { name: 'Export' }).click(),
    ]);
    const file = join(root, '..', `kg-e2e-export-${process.pid}.json`);
    await download.saveAs(file);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(doc.format, 'kg-graph');
    assert.ok(doc.nodes.some((n) => n.id === 'lesson-00-errors'));

    await page.locator(`.card[data-graph="project:${project}"]`).getByRole('button', { name: 'Import…' }).click();
    const dialog = page.getByRole('dialog', { name: /Import into Project/ });
    await dialog.getByLabel(/A document exported from kg/).setInputFiles(file);
    await dialog.getByRole('button', { name: 'Import' }).click();
    await page.locator('.message', { hasText: /Imported into Project .*: \d+ nodes and \d+ edges written/ }).waitFor();
    rmSync(file, { force: true });
    const p = await readGraph(kg.url, project);
    assert.ok(p.nodes['lesson-00-errors'] && p.nodes['build-cmd'], 'merged: the document\'s nodes and the graph\'s own');
    await page.locator(`.card[data-graph="project:${project}"] [data-testid="count-active"]`, { hasText: String(p.stats.active) }).waitFor();
  });

  it('shows the lost connection when the server stops (1001), retries a save, and reconnects when it restarts', async () => {
    await openGraph(page, kg.url);
    await page.locator('.conn[data-state="connected"]').waitFor();
    const { port } = kg;
    assert.equal(await kg.stop(), 0);
    await page.locator('.conn[data-state="disconnected"]').waitFor({ timeout: 20_000 });
    assert.equal(await page.locator('.conn').getAttribute('data-close-code'), '1001', 'the server said it was stopping');
    assert.match(await page.locator('.conn').textContent(), /Disconnected \(kg stopped\)/);
    await shot(page, 'ui-disconnected-1280x800.png');

    // A save while kg is away waits for it.
    await page.getByRole('button', { name: 'New node' }).click();
    const dialog = page.getByRole('dialog', { name: 'New node' });
    await dialog.getByLabel('Id').fill('saved-while-away');
    await dialog.getByLabel('Gist').fill('written once kg came back');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'kg is not answering — retrying…' }).waitFor();

    kg = await startKG({ root, port });
    await dialog.waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal((await userNodes(kg.url))['saved-while-away']?.gist, 'written once kg came back');
    // Written while the page was away: the re-read after the reconnect, or
    // the live event, shows it.
    const { session_id: sid } = await mcp(kg.url, 'kg_read', { cwd: project });
    await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'user', id: 'after-restart', gist: 'written while the page reconnected' });
    await page.locator('.conn[data-state="connected"]').waitFor({ timeout: 20_000 });
    await listItem(page, 'after-restart').waitFor({ timeout: 10_000 });
    assert.deepEqual(b.errors, []);
  });
});

/**
 * The picture at real sizes, on generated graphs (graphs.mjs): n nodes in
 * one project, beside a user graph and two more projects for the search and
 * the home view.
 */
for (const n of [150, 3000]) {
  describe(`kg web page at ${n.toLocaleString('en')} nodes`, () => {
    let root; let big; let small; let kg; let b; let page;
    const dirs = [];

    before(async () => {
      root = mkdtempSync(join(tmpdir(), `kg-e2e-ui-${n}-`));
      big = mkdtempSync(join(tmpdir(), 'kg-e2e-ui-big-'));
      small = [mkdtempSync(join(tmpdir(), 'kg-e2e-ui-p2-')), mkdtempSync(join(tmpdir(), 'kg-e2e-ui-p3-'))];
      dirs.push(root, big, ...small);
      kg = await startKG({ root, maxTokens: 10_000_000 });
      await importInto(kg.url, generate(n, { seed: 11, projectPath: big }));
      await importInto(kg.url, generate(30, { seed: 12, level: 'user', prefix: 'u-' }));
      await importInto(kg.url, generate(40, { seed: 13, projectPath: small[0], prefix: 'p2-' }));
      await importInto(kg.url, generate(40, { seed: 14, projectPath: small[1], prefix: 'p3-' }));
      b = await launch(LAPTOP);
      page = b.page;
      await openGraph(page, kg.url, big);
    });

    after(() => tearDown({ b, kg, dirs }));

    /** A node with a few neighbours, all nodes, to look at. */
    async function someNode() {
      const g = await readGraph(kg.url, big);
      const deg = new Map();
      for (const e of g.edges) for (const end of [e.from, e.to]) deg.set(end, (deg.get(end) ?? 0) + 1);
      const ok = (id) => g.nodes[id]?.tier === 'active';
      return Object.keys(g.nodes).sort().find((id) => {
        const d = deg.get(id) ?? 0;
        const ends = g.edges.filter((e) => e.from === id || e.to === id).map((e) => (e.from === id ? e.to : e.from));
        return ok(id) && d >= 3 && d <= 6 && ends.every((x) => g.nodes[x]);
      });
    }

    it('labels the selected node\'s neighbourhood, none overlapping, and more labels as one zooms in', async () => {
      let boxes = await labelBoxes(page);
      assert.deepEqual(overlapping(boxes), [], 'no labels overlap at the default zoom');
      const fitted = boxes.length;
      assert.ok(fitted >= Math.min(40, n / 4), `a readable number of labels at the default zoom: ${fitted}`);
      await shot(page, `ui-${n}-graph-1440x900.png`);

      const id = await someNode();
      assert.ok(id, 'a node with a few neighbours');
      await selectFromList(page, id);
      const s = await snap(page);
      const near = s.vertices.filter((v) => v.near).map((v) => v.id);
      assert.ok(near.length >= 4, `its local graph: ${near}`);
      boxes = await labelBoxes(page);
      const labelled = new Set(boxes.map((x) => x.id));
      assert.deepEqual(near.filter((v) => !labelled.has(v)), [], 'every node of the local graph is labelled');
      assert.deepEqual(overlapping(boxes), [], 'no labels overlap');
      const dimmed = s.vertices.filter((v) => v.drawn && !v.near);
      assert.ok(dimmed.length > 0 && dimmed.every((v) => v.dimmed), 'the rest is dimmed');
      await shot(page, `ui-${n}-local-1440x900.png`);

      // Zoom in at the cursor: the point under it stays, and the part of
      // the picture still in view gets more labels.
      await page.getByRole('button', { name: 'Fit' }).click();
      await frames(page);
      const before = new Set((await labelBoxes(page)).map((l) => l.id));
      const s0 = await snap(page);
      const target = s0.vertices.find((v) => v.id === id);
      const cursor = { x: Math.round(target.x), y: Math.round(target.y) };
      await page.mouse.move(cursor.x, cursor.y);
      for (let i = 0; i < 6; i++) { await page.mouse.wheel(0, -240); await frames(page); }
      const s1 = await snap(page);
      const after = s1.vertices.find((v) => v.id === id);
      const g = s1.k / s0.k;
      assert.ok(g > 3, `zoomed in: ×${g}`);
      // What was d from the cursor is g·d from it now: the cursor's point stayed put.
      assert.ok(Math.abs(after.x - cursor.x - (target.x - cursor.x) * g) < 1 && Math.abs(after.y - cursor.y - (target.y - cursor.y) * g) < 1,
        `zoom keeps the point under the cursor: ${JSON.stringify({ cursor, target, after, g })}`);
      const box = await page.locator('svg.pic').boundingBox();
      const inView = (await snap(page)).vertices.filter((v) => v.drawn && v.x > box.x && v.x < box.x + box.width && v.y > box.y && v.y < box.y + box.height);
      const zoomed = await labelBoxes(page);
      const now = new Set(zoomed.map((l) => l.id));
      const was = inView.filter((v) => before.has(v.id)).length;
      const is = inView.filter((v) => now.has(v.id)).length;
      assert.ok(is > was, `zooming in labels more of what is in view: ${was} → ${is} of ${inView.length}`);
      assert.deepEqual(overlapping(zoomed), [], 'and none overlap');
      await shot(page, `ui-${n}-zoomed-1440x900.png`);
    });

    it('widens the local graph to two steps, and hides tiers and references with the toggles', async () => {
      const one = (await snap(page)).vertices.filter((v) => v.near).length;
      await page.getByLabel('Depth of the local graph').selectOption('2');
      await frames(page);
      const two = (await snap(page)).vertices.filter((v) => v.near).length;
      assert.ok(two > one, `two steps reach more: ${one} → ${two}`);
      await page.getByLabel('Depth of the local graph').selectOption('1');
      await page.getByRole('button', { name: 'Fit' }).click();

      const all = await snap(page);
      for (const [label, tier] of [['Archived', 'archived'], ['Orphaned', 'orphaned'], ['Files and references', 'ref']]) {
        const count = all.vertices.filter((v) => v.tier === tier).length;
        assert.ok(count > 0, `the graph has ${tier} vertices`);
        await page.getByLabel(label, { exact: true }).uncheck();
        await frames(page);
        const s = await snap(page);
        assert.equal(s.vertices.filter((v) => v.tier === tier && v.drawn).length, 0, `${tier} hidden`);
        assert.ok(s.vertices.filter((v) => v.tier !== tier && v.drawn).length > 0, 'the rest still drawn');
        assert.ok(s.edges < all.edges, `edges to ${tier} vertices hidden: ${s.edges} of ${all.edges}`);
        const labels = await labelBoxes(page);
        assert.ok(labels.every((l) => all.vertices.find((v) => v.id === l.id).tier !== tier), `no label of a hidden ${tier}`);
        await page.getByLabel(label, { exact: true }).check();
        await frames(page);
      }
      assert.equal((await snap(page)).edges, all.edges);
    });

    it('pins a node where it is dragged, and frees it on a double click', async () => {
      const id = (await snap(page)).vertices.find((v) => v.selected).id;
      await page.getByRole('button', { name: 'Centre' }).click();
      await frames(page);
      const v = await vertex(page, id);
      await page.mouse.move(v.x, v.y);
      await page.mouse.down();
      await page.mouse.move(v.x + 30, v.y + 20, { steps: 4 });
      await page.mouse.move(v.x + 60, v.y + 40, { steps: 4 });
      await page.mouse.up();
      await frames(page);
      const pinned = await vertex(page, id);
      assert.ok(pinned.pinned && Math.abs(pinned.x - (v.x + 60)) < 3 && Math.abs(pinned.y - (v.y + 40)) < 3, JSON.stringify({ v, pinned }));
      await page.getByRole('button', { name: 'Unpin 1' }).waitFor();
      await page.mouse.dblclick(pinned.x, pinned.y);
      await frames(page);
      assert.equal((await vertex(page, id)).pinned, false);
    });

    it('searches every graph, showing the hits on the picture and each with its graph', async () => {
      // A word in one node of each graph.
      const { session_id: sid } = await mcp(kg.url, 'kg_read', { cwd: big });
      await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'user', id: 'zebrafish-user', gist: 'the zebrafish protocol, for every project' });
      for (const [i, p] of [big, ...small].entries()) {
        const { session_id: s } = await mcp(kg.url, 'kg_read', { cwd: p });
        await mcp(kg.url, 'kg_put_node', { session_id: s, level: 'project', id: `zebrafish-${i}`, gist: `the zebrafish protocol of project ${i}` });
      }
      await page.waitForFunction(() => document.querySelector('svg.pic').kgPicture.snapshot().vertices.some((v) => v.id === 'zebrafish-0'));
      await page.getByLabel('Search every graph').fill('zebrafish');
      await page.keyboard.press('Enter');
      const results = page.getByRole('list', { name: 'Search results' });
      await results.locator('button').first().waitFor();
      const graphs = await results.locator('button').evaluateAll((els) => [...new Set(els.map((e) => e.dataset.graph))]);
      assert.equal(graphs.length, 4, `a hit in each graph: ${graphs}`);
      const here = await results.locator(`button[data-graph="project:${big}"]`).evaluateAll((els) => els.map((e) => e.dataset.id));
      await frames(page);
      const hits = (await snap(page)).vertices.filter((v) => v.hit).map((v) => v.id).sort();
      assert.deepEqual(hits, [...here].sort(), 'this graph\'s hits are marked on the picture');
      assert.ok((await labelBoxes(page)).some((l) => here.includes(l.id)), 'and labelled');
      assert.match(await results.locator('button').first().textContent(), /matched: /);
      await shot(page, `ui-${n}-search-1440x900.png`);
      await page.getByRole('button', { name: 'Clear search' }).click();
    });

    it('counts every graph on the home view as /api/graph/read does', async () => {
      await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Home' }).click();
      await page.locator('.home[data-loading="false"]').waitFor();
      for (const p of [null, big, ...small]) {
        const g = await readGraph(kg.url, p);
        const card = page.locator(`.card[data-graph="${p ? `project:${p}` : 'user'}"]`);
        for (const t of ['active', 'archived', 'orphaned', 'edges']) {
          assert.equal(await card.locator(`[data-testid="count-${t}"]`).textContent(), g.stats[t].toLocaleString('en'), `${p ?? 'user'} ${t}`);
        }
        assert.equal(await card.getByRole('meter').getAttribute('aria-valuenow'), String(g.tokens));
      }
      await shot(page, `ui-${n}-home-1440x900.png`);
      await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Graph' }).click();
      await settled(page);
    });

    it('takes in an import of 300 nodes (item by item, or read again after a graph_replaced), keeping the connection', async () => {
      await page.locator('.conn[data-state="connected"]').waitFor();
      const doc = generate(300, { seed: 21, projectPath: big, prefix: 'imported-' });
      const first = doc.nodes.map((x) => x.id).sort()[0];
      await importInto(kg.url, doc, { mode: 'merge' });
      await page.waitForFunction((id) => document.querySelector('svg.pic').kgPicture.isDrawn(id), first, { timeout: 30_000 });
      await page.locator('.list-panel input[type="search"]').fill(first);
      await listItem(page, first).waitFor();
      await page.locator('.list-panel input[type="search"]').fill('');
      assert.equal(await page.locator('.conn').getAttribute('data-state'), 'connected');
      assert.equal(await page.locator('.conn').getAttribute('data-close-code'), '', 'the socket was never closed');
      // The first node drawn is not the last: the import's events may still
      // be arriving, so wait for the list to hold every node the server has.
      const g = await readGraph(kg.url, big);
      const want = String(Object.keys(g.nodes).length);
      await page.waitForFunction((n) => document.querySelector('[data-testid="list-count"]')?.textContent === n, want, { timeout: 30_000 })
        .catch(() => {});
      assert.equal(await page.locator('[data-testid="list-count"]').textContent(), want);
      await settled(page);
    });

    it('applies an agent\'s write in place', async () => {
      const before = await snap(page);
      const { session_id: sid } = await mcp(kg.url, 'kg_read', { cwd: big });
      const anchor = before.vertices.find((v) => v.kind === 'node' && v.tier === 'active').id;
      await page.evaluate(() => { window.kgNoReload = true; });
      await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'project', id: 'agent-write', gist: 'written by an agent while the page is open' });
      await mcp(kg.url, 'kg_put_edge', { session_id: sid, level: 'project', from: 'agent-write', to: anchor, rel: 'refines' });
      // Events go out after the write is acknowledged, so the edge's frame
      // may come after the test hears kg_put_edge answer: wait for it too.
      await page.waitForFunction((edges) => {
        const s = document.querySelector('svg.pic').kgPicture.snapshot();
        return s.settled && s.vertices.some((v) => v.id === 'agent-write' && v.drawn) && s.edges >= edges;
      }, before.edges + 1);
      await listItem(page, 'agent-write').waitFor();
      const after = await snap(page);
      assert.equal(after.edges, before.edges + 1);
      // Only the newcomer moved: the rest of the picture stays where it was.
      const was = new Map(before.vertices.map((v) => [v.id, v]));
      const moved = after.vertices.filter((v) => was.has(v.id) && (Math.abs(v.x - was.get(v.id).x) > 1 || Math.abs(v.y - was.get(v.id).y) > 1));
      assert.deepEqual(moved.map((v) => v.id), [], 'the layout stayed warm');
      assert.equal(await page.evaluate(() => window.kgNoReload), true, 'no reload');
      assert.deepEqual(b.errors, []);
    });
  });
}

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
    await page.locator('.home[data-loading="false"]').waitFor();
    assert.match(await page.locator('.card[data-graph="user"]').getByRole('alert').textContent(), /Could not read it: .*user\.json is damaged/);
    await page.goto(`${kg.url}/ui/#view=graph`);
    await loaded(page);
    const alert = page.locator('.banner[role="alert"]');
    await alert.waitFor();
    assert.match(await alert.textContent(), /Could not read user graph: .*user\.json is damaged/);
    assert.equal(await page.locator('.nodes button').count(), 0);
    await shot(page, 'ui-damaged-user-graph-1280x800.png');

    const select = page.getByLabel('Graph', { exact: true });
    const value = await select.locator('option', { hasText: project }).getAttribute('value');
    await select.selectOption(value);
    await listItem(page, 'build-cmd').waitFor();
    assert.equal(await page.locator('.banner[role="alert"]').count(), 0, 'the project graph loads without the alert');
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

describe('kg web page with possibly stale nodes', () => {
  let root; let project; let kg; let b;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'kg-e2e-ui-stale-'));
    project = mkdtempSync(join(tmpdir(), 'kg-e2e-ui-stale-project-'));
    writeFileSync(join(project, 'refresh.py'), 'def refresh(): pass\n');
    kg = await startKG({ root, extra: ['--maintenance-interval', '1'] });
    const { session_id: sid } = await mcp(kg.url, 'kg_read', { cwd: project });
    await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'project', id: 'token-refresh', gist: 'refresh slides', touches: ['refresh.py'] });
    await mcp(kg.url, 'kg_put_node', { session_id: sid, level: 'project', id: 'build-cmd', gist: 'make build' });
    writeFileSync(join(project, 'refresh.py'), 'def refresh(): rotate()\n');
    // The maintenance tick (every second here) finds the change.
    for (let i = 0; i < 100; i++) {
      if ((await readGraph(kg.url, project)).nodes['token-refresh'].stale) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    b = await launch();
  });

  after(() => tearDown({ b, kg, dirs: [root, project] }));

  it('badges a possibly stale node and lists only those on request', async () => {
    const { page } = b;
    await page.goto(`${kg.url}/ui/#${new URLSearchParams({ view: 'graph', project })}`);
    await loaded(page);
    const badge = listItem(page, 'token-refresh').locator('.badge-stale');
    await badge.waitFor();
    assert.match(await badge.getAttribute('title'), /refresh\.py changed/);
    assert.equal(await listItem(page, 'build-cmd').locator('.badge-stale').count(), 0);
    await page.getByLabel(/Only the 1 possibly stale/).check();
    assert.equal(await page.locator('.nodes button').count(), 1);
    assert.equal(await page.getByTestId('list-count').textContent(), '1 of 2');
    await shot(page, 'ui-stale-1280x800.png');
    assert.deepEqual(b.errors, []);
  });
});
