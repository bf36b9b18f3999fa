// Browser tests of the kg web page in team mode: two `kg serve --storage
// postgres` (KG_BIN) on one throwaway PostgreSQL (pg.mjs), people with
// tokens made by `kg token create`, agents writing through MCP on one
// server and a person reading on the other in Debian's chromium driven by
// playwright-core (docs/decisions/0024-browser-tests.md). Without
// PostgreSQL binaries the suite is skipped with one line, except under
// CI=true, where it fails: CI installs them (.ci/run).
//
// Run through e2e/run.sh (make e2e); KG_BIN names the binary.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresBin, startPostgres } from './pg.mjs';
import { artifacts, mcp as mcpCall, startServer, launch, details, listItem } from './kg.mjs';

const KG = process.env.KG_BIN;
const PG = postgresBin();
if (!PG && process.env.CI === 'true') throw new Error('no PostgreSQL server binaries (initdb, postgres); CI installs postgresql-15');
const skip = PG ? false : 'skipped: no PostgreSQL server binaries (initdb, postgres); install postgresql-15';

/** The environment of a kg command on the team database: no KG_ setting of the caller's, a home of its own. */
function teamEnv(dbURL, home) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('KG_')));
  return { ...env, HOME: home, KG_DATABASE_URL: dbURL };
}

/** kg token create --name name: the token it prints once. */
function createToken(env, name) {
  const r = spawnSync(KG, ['token', 'create', '--name', name], { env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

/** Starts kg serve --storage postgres on a free port and resolves once it listens. */
const startTeamServer = (env) => startServer(['serve', '--storage', 'postgres', '--port', '0', '--log-format', 'json'], env);

/** One MCP tools/call with a person's token, as an agent makes it (stateless Streamable HTTP). */
const mcp = (url, token, name, args) => mcpCall(url, name, args, { Authorization: `Bearer ${token}` });

const KEY = 'github.com/acme/web'; // the project's key: the same project for everyone

describe('kg web page on a team server', { skip }, () => {
  let pg; let home; let a; let b; let browser; let page;
  let alice; let bob; let aliceSession; let bobSession;

  before(async () => {
    pg = await startPostgres(PG);
    home = mkdtempSync(join(tmpdir(), 'kg-e2e-team-home-'));
    const env = teamEnv(pg.url, home);
    alice = createToken(env, 'alice');
    bob = createToken(env, 'bob');
    a = await startTeamServer(env);
    b = await startTeamServer(env);
    ({ session_id: aliceSession } = await mcp(a.url, alice, 'kg_read', { cwd: KEY }));
    ({ session_id: bobSession } = await mcp(b.url, bob, 'kg_read', { cwd: KEY }));
    await mcp(a.url, alice, 'kg_put_node', { session_id: aliceSession, level: 'project', id: 'checkout-flow', gist: 'checkout calls the payment service' });
    await mcp(b.url, bob, 'kg_put_node', { session_id: bobSession, level: 'project', id: 'refund-rule', gist: 'refunds go back to the card used' });
    await mcp(b.url, bob, 'kg_put_node', { session_id: bobSession, level: 'user', id: 'bob-habit', gist: 'bob reads the logs first' });
    browser = await launch();
    ({ page } = browser);
  });

  after(async () => {
    await browser?.close();
    const codes = [await a?.stop(), await b?.stop()];
    await pg?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
    assert.deepEqual(codes, [0, 0], `kg exited ${codes}:\n${a?.log()}\n${b?.log()}`);
  });

  it("shows who wrote each node, whichever server they wrote on, and a write on the other server live", async () => {
    // Alice opens the project on b, logging in with her token.
    await page.goto(`${b.url}/ui/#${new URLSearchParams({ project: KEY, node: 'checkout-flow' })}`);
    await page.getByLabel('Access token').fill(alice);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('.app[data-loaded="true"]').waitFor();
    await page.goto(`${b.url}/ui/#${new URLSearchParams({ project: KEY, node: 'checkout-flow' })}`);
    await page.locator('.app[data-loaded="true"]').waitFor();
    await details(page).locator('h2', { hasText: 'checkout-flow' }).waitFor();
    assert.equal(await details(page).getByTestId('written-by').textContent(), 'alice', 'her node, written on a');

    await listItem(page, 'refund-rule').click();
    await details(page).locator('h2', { hasText: 'refund-rule' }).waitFor();
    assert.equal(await details(page).getByTestId('written-by').textContent(), 'bob', "bob's node, written on b");
    await page.locator('.conn[data-state="connected"]').waitFor();

    // Bob's agent writes on a while alice's page is open on b: it appears
    // without a reload, naming bob.
    await mcp(a.url, bob, 'kg_put_node', { session_id: bobSession, level: 'project', id: 'retry-rule', gist: 'payments retry three times' });
    await listItem(page, 'retry-rule').waitFor({ timeout: 10_000 });
    await listItem(page, 'retry-rule').click();
    await details(page).locator('h2', { hasText: 'retry-rule' }).waitFor();
    assert.equal(await details(page).getByTestId('written-by').textContent(), 'bob', "bob's live write, made on a");
    await page.screenshot({ path: join(artifacts, 'ui-team-written-by-1280x800.png') });

    // Bob's user graph is his: alice's page never lists it.
    await page.goto(`${b.url}/ui/#${new URLSearchParams({ view: 'graph' })}`);
    await page.locator('.app[data-loaded="true"]').waitFor();
    assert.equal(await listItem(page, 'bob-habit').count(), 0, "alice's page lists bob's user graph");
    assert.deepEqual(browser.errors, []);
  });
});
