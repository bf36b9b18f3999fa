// The MCP Inspector CLI against running kg servers: runs the commands that
// docs/clients.md shows, word for word but for the server's URL, and checks
// what they print. run.sh passes the servers in KG_E2E_SERVERS as
// "json=http://127.0.0.1:p1/,bolt=http://127.0.0.1:p2/".
//
// The commands run in e2e/node22, where node22/install.sh has installed the
// pinned Inspector: npx finds it there and runs it on the Node 22 of
// node22/node_modules/.bin (the Inspector needs Node >= 22.19). So "$PWD" in
// the kg_read command is e2e/node22, the project the session is bound to.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const node22 = join(here, 'node22');
const clientsDoc = join(here, '..', 'docs', 'clients.md');
const docURL = 'http://127.0.0.1:8765/';

// The tools of the server kg replaces; kg must keep offering each of them.
const TOOLS = [
  'kg_delete_edge', 'kg_delete_node', 'kg_progress', 'kg_put_edge',
  'kg_put_node', 'kg_read', 'kg_search', 'kg_sync',
];

function servers() {
  const spec = process.env.KG_E2E_SERVERS ?? '';
  const list = spec.split(',').filter(Boolean).map((kv) => {
    const i = kv.indexOf('=');
    return { backend: kv.slice(0, i), url: kv.slice(i + 1) };
  });
  if (list.length === 0) {
    throw new Error('KG_E2E_SERVERS is empty: run the tests through e2e/run.sh (make e2e)');
  }
  return list;
}

// docCommands returns the commands of the sh block in the Inspector section
// of docs/clients.md, continuation lines joined.
function docCommands() {
  const doc = readFileSync(clientsDoc, 'utf8');
  const section = doc.slice(doc.indexOf('## The MCP Inspector'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'docs/clients.md: no sh block in "The MCP Inspector"');
  return block[1].replace(/\\\n\s*/g, '').split('\n').map((l) => l.trim()).filter(Boolean);
}

// inspector runs one documented command against url with bash, in
// e2e/node22. HOME is a temporary folder, so the Inspector's state and npm's
// logs stay out of the user's; offline, so npx uses the pinned Inspector or
// fails rather than fetch another.
function inspector(command, url, env) {
  const line = command.replaceAll(docURL, url);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', line], {
      cwd: node22,
      env: { ...process.env, ...env, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = ''; let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ line, code, stdout, stderr }));
  });
}

// json parses what the Inspector printed, saying what it was when it is not
// JSON.
function json(res) {
  assert.equal(res.code, 0, `exit ${res.code}: ${res.line}\n${res.stdout}\n${res.stderr}`);
  try {
    return JSON.parse(res.stdout);
  } catch (err) {
    assert.fail(`not JSON (${err.message}): ${res.line}\n${res.stdout}\n${res.stderr}`);
  }
}

// rpc makes one stateless JSON-RPC tools/call, as any MCP client may.
async function rpc(url, name, args) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.error, undefined, JSON.stringify(body.error));
  return body.result;
}

const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

describe('the MCP Inspector commands of docs/clients.md', () => {
  it('are three: tools/list --strict, kg_read with cwd, kg_put_node', () => {
    const cmds = docCommands();
    assert.equal(cmds.length, 3, cmds.join('\n'));
    for (const c of cmds) {
      assert.ok(c.startsWith(`npx @modelcontextprotocol/inspector --cli ${docURL} --transport http `), c);
    }
    assert.match(cmds[0], /--method tools\/list --strict$/);
    assert.match(cmds[1], /--tool-name kg_read --tool-arg cwd="\$PWD"$/);
    assert.match(cmds[2], /--tool-name kg_put_node .*session_id=.*\$SESSION_ID/);
  });

  it('name the Inspector version make e2e installs', () => {
    const pkg = JSON.parse(readFileSync(join(node22, 'node_modules/@modelcontextprotocol/inspector/package.json'), 'utf8'));
    assert.ok(readFileSync(clientsDoc, 'utf8').includes(`@modelcontextprotocol/inspector@${pkg.version}`),
      `docs/clients.md does not say it was tested with @modelcontextprotocol/inspector@${pkg.version}`);
  });
});

// The Inspector sees only the MCP layer, which is the same over either
// backend (mcp.test.mjs runs on both): one server is enough, and each
// Inspector run takes seconds.
{
  const [{ backend, url }] = servers();
  describe(`the MCP Inspector CLI (${backend} storage)`, () => {
    const [list, read, put] = docCommands();
    let home;

    before(() => {
      assert.ok(existsSync(join(node22, 'node_modules/.bin/node')), 'no Node 22: run e2e/node22/install.sh (make e2e-deps)');
      home = mkdtempSync(join(tmpdir(), `kg-e2e-inspector-${backend}-`));
    });

    after(() => {
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('lists the tools with --strict and no portability warning', async () => {
      const res = await inspector(list, url, { HOME: home });
      const { tools } = json(res);
      assert.equal(res.stderr, '', `--strict reported problems:\n${res.stderr}`);
      const names = tools.map((t) => t.name);
      for (const name of TOOLS) assert.ok(names.includes(name), `tools/list lacks ${name}`);
    });

    it('starts a session with kg_read and cwd, then saves a node with kg_put_node', async () => {
      const started = json(await inspector(read, url, { HOME: home }));
      assert.notEqual(started.isError, true, text(started));
      const sid = started.structuredContent.session_id;
      assert.match(sid, /^[0-9a-f]{16}$/);
      assert.equal(started.structuredContent.new_session, true);
      assert.equal(realpathSync(started.structuredContent.project.project), realpathSync(node22),
        'the session is bound to the directory the command ran in ($PWD)');
      assert.match(text(started), /=== PROJECT GRAPH \(node22\)/);
      assert.match(text(started), new RegExp(`Session: ${sid}`));

      const saved = json(await inspector(put, url, { HOME: home, SESSION_ID: sid }));
      assert.notEqual(saved.isError, true, text(saved));
      assert.match(text(saved), /^Node "inspector-hello" saved to project graph \(v1\)/);

      // The node is there for any other client of that session.
      const got = await rpc(url, 'kg_read', { session_id: sid, id: 'inspector-hello' });
      assert.notEqual(got.isError, true, text(got));
      const [node] = got.structuredContent.nodes;
      assert.equal(node.id, 'inspector-hello');
      assert.equal(node.level, 'project');
      assert.equal(node.gist, 'Saved through the MCP Inspector');
    });
  });
}
