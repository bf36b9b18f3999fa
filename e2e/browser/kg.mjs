// What the browser tests share (ui.test.mjs, trust.test.mjs, team.test.mjs): a kg server
// started from the built binary (KG_BIN) on a free port and a temporary
// root, MCP and REST calls as an agent and a script make them, and
// Debian's chromium driven by playwright-core with the page's own waits.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const artifacts = join(here, '..', 'artifacts');
mkdirSync(artifacts, { recursive: true });
const KG = process.env.KG_BIN;
if (!KG) throw new Error('KG_BIN is not set: run the tests through e2e/run.sh (make e2e)');

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
];
export const DESKTOP = { width: 1280, height: 800 };
export const LAPTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };
export const LAYOUT_TIMEOUT = 180_000; // a cold layout of 3,000 nodes on a busy 2-core machine

// ---- the server ----------------------------------------------------------

/**
 * Starts kg serve on port (0: a free one) and root, and resolves once it
 * listens. maxTokens: the budget; extra: more flags.
 */
export async function startKG({ root, port = 0, maxTokens = 400, extra = [] }) {
  const args = ['serve', '--port', String(port), '--storage', 'json', '--storage-root', root,
    '--log-format', 'json', '--grace-days', '0', '--max-tokens', String(maxTokens),
    '--maintenance-interval', '3600', ...extra];
  const env = { ...process.env };
  for (const k of ['KG_AUTH_TOKEN', 'KG_HTTP_HOST', 'KG_HTTP_PORT']) delete env[k];
  return startServer(args, env);
}

/**
 * Starts the kg binary with args (a `kg serve` logging json) in env, and
 * resolves once it listens: {url, port, log(), stop()}.
 */
export async function startServer(args, env) {
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
export async function mcp(url, name, args, headers = {}) {
  const res = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcID, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = await res.json();
  if (body.error || body.result?.isError) throw new Error(`${name}: ${JSON.stringify(body.error ?? body.result.content)}`);
  // A kg result carries its text only (docs/decisions/0091); a kg_read's
  // ends with "Session: <id>".
  const text = body.result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  return { text, session_id: text.match(/\nSession: ([0-9a-f]+)$/)?.[1] };
}

export async function rest(url, path, init = {}) {
  const res = await fetch(`${url}${path}`, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** One graph as the REST API reads it: {nodes: {id: node}, edges: [...], stats, tokens, ...}. */
export async function readGraph(url, project, headers = {}) {
  const { status, body } = await rest(url, `/api/graph/read${project ? `?project_path=${encodeURIComponent(project)}` : ''}`, { headers });
  assert.equal(status, 200, JSON.stringify(body));
  const g = project ? body.project : body.user;
  return { ...g, nodes: Object.fromEntries(g.nodes.map((n) => [n.id, n])) };
}
export const userNodes = async (url, headers = {}) => (await readGraph(url, null, headers)).nodes;

// ---- the browser ---------------------------------------------------------

export async function launch(viewport = DESKTOP) {
  const userDataDir = mkdtempSync(join(tmpdir(), 'kg-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS, viewport, acceptDownloads: true,
  });
  const page = context.pages()[0] ?? await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return {
    context, page, errors,
    async close() { await context.close(); rmSync(userDataDir, { recursive: true, force: true }); },
  };
}

export const shot = (page, name) => page.screenshot({ path: join(artifacts, name), fullPage: false });
export const loaded = (page) => page.locator('.app[data-loaded="true"]').waitFor();
export const listItem = (page, id) => page.locator(`.nodes button[data-id="${id}"]`);
export const details = (page) => page.locator('article.details');
export const settled = (page) => page.locator('svg.pic[data-settled="true"]').waitFor({ timeout: LAYOUT_TIMEOUT });
/** What the picture draws (picture.js snapshot()): each vertex with its tier, state and place on the page. */
export const snap = (page) => page.evaluate(() => document.querySelector('svg.pic').kgPicture.snapshot());
export const vertex = async (page, id) => (await snap(page)).vertices.find((v) => v.id === id);
/** Two frames, so that what the page was told is drawn. */
export const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** Opens the graph view of the user graph (no project) or of project, and waits for the layout. */
export async function openGraph(page, url, project, node) {
  const h = new URLSearchParams({ view: 'graph' });
  if (project) h.set('project', project);
  if (node) h.set('node', node);
  await page.goto(`${url}/ui/#${h}`);
  await loaded(page);
  await settled(page);
  await frames(page);
}

// ---- tearing down ------------------------------------------------------

/**
 * Closes the browser, stops kg (which must exit 0: a clean stop), and
 * removes the test's folders.
 */
export async function tearDown({ b, kg, dirs }) {
  await b?.close();
  const code = await kg?.stop();
  for (const d of dirs) if (d) rmSync(d, { recursive: true, force: true });
  assert.equal(code, 0, `kg exited ${code}:\n${kg?.log()}`);
}
