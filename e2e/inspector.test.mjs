// The MCP Inspector CLI against running kg servers: runs the commands that
// docs/clients.md shows, word for word but for the server's URL, and checks
// what they print. run.sh passes the servers in KG_E2E_SERVERS as
// "json=http://127.0.0.1:p1/,bolt=http://127.0.0.1:p2/", and the binary in
// KG_E2E_KG for the stdio command (`kg mcp`), which gets a server of its own.
//
// The commands run in e2e/node22, where node22/install.sh has installed the
// pinned Inspector: npx finds it there and runs it on the Node 22 of
// node22/node_modules/.bin (the Inspector needs Node >= 22.19). So "$PWD" in
// the kg_read command is e2e/node22, the project the session is bound to.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { TOOLS, listTools, servers, sessionOf, text } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const node22 = join(here, 'node22');
const clientsDoc = join(here, '..', 'docs', 'clients.md');
const docURL = 'http://127.0.0.1:8765/';

// docBlocks returns the sh blocks of the Inspector section of
// docs/clients.md, each as its commands, continuation lines joined: the
// first for the server over HTTP, the second for `kg mcp` over stdio.
function docBlocks() {
  const doc = readFileSync(clientsDoc, 'utf8');
  let section = doc.slice(doc.indexOf('## The MCP Inspector'));
  const end = section.indexOf('\n## ');
  if (end >= 0) section = section.slice(0, end);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1].replace(/\\\n\s*/g, '').split('\n').map((l) => l.trim()).filter(Boolean));
  assert.ok(blocks.length > 0, 'docs/clients.md: no sh block in "The MCP Inspector"');
  return blocks;
}

const docCommands = () => docBlocks()[0];
const stdioDocCommands = () => docBlocks()[1] ?? [];

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

describe('the MCP Inspector commands of docs/clients.md', () => {
  it('are three over HTTP: tools/list --strict, kg_read with cwd, kg_put_node', () => {
    const cmds = docCommands();
    assert.equal(cmds.length, 3, cmds.join('\n'));
    for (const c of cmds) {
      assert.ok(c.startsWith(`npx @modelcontextprotocol/inspector --cli ${docURL} --transport http `), c);
    }
    assert.match(cmds[0], /--method tools\/list --strict$/);
    assert.match(cmds[1], /--tool-name kg_read --tool-arg cwd="\$PWD"$/);
    assert.match(cmds[2], /--tool-name kg_put_node .*session_id=.*\$SESSION_ID/);
  });

  it('are one over stdio: tools/list through kg mcp', () => {
    const cmds = stdioDocCommands();
    assert.deepEqual(cmds, ['npx @modelcontextprotocol/inspector --cli kg mcp --method tools/list']);
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
      const sid = sessionOf(started);
      assert.match(sid, /^[0-9a-f]{16}$/);
      // The session's project, as programs learn it: from REST (docs/decisions/0091).
      const graph = await (await fetch(new URL(`api/graph/read?session_id=${sid}`, url))).json();
      assert.equal(realpathSync(graph.project.project), realpathSync(node22),
        'the session is bound to the directory the command ran in ($PWD)');
      assert.match(text(started), /=== PROJECT GRAPH \(node22\)/);

      const saved = json(await inspector(put, url, { HOME: home, SESSION_ID: sid }));
      assert.notEqual(saved.isError, true, text(saved));
      assert.match(text(saved), /^Node "inspector-hello" saved to project graph \(v1\)/);

      // The node is there for any other client of that session.
      const got = await rpc(url, 'kg_read', { session_id: sid, id: 'inspector-hello' });
      assert.notEqual(got.isError, true, text(got));
      assert.match(text(got), /^=== NODE inspector-hello — project graph \(node22\), active ===\ngist: Saved through the MCP Inspector\n/);
    });
  });
}

// The stdio command: the Inspector starts `kg mcp`, which forwards to the
// server that holds the default root, $HOME/.knowledge-graph. The Inspector
// hands the command it starts only HOME, PATH and a few more of its own
// environment (the SDK's default), so the test gives it a HOME of its own
// and starts the server of that root itself, on a free port: kg mcp then
// finds that server through the root's lock, and never starts one on the
// default port of a shared machine.
{
  const kg = process.env.KG_E2E_KG;
  describe('the MCP Inspector CLI through kg mcp (stdio)', () => {
    let home; let bin; let server; let log = '';

    before(async () => {
      assert.ok(kg, 'KG_E2E_KG is empty: run the tests through e2e/run.sh (make e2e)');
      home = mkdtempSync(join(tmpdir(), 'kg-e2e-inspector-stdio-'));
      // The doc says `kg`: a folder where that name is the binary under test.
      bin = join(home, 'bin');
      mkdirSync(bin);
      symlinkSync(kg, join(bin, 'kg'));
      server = spawn(kg, ['serve', '--port', '0', '--storage-root', join(home, '.knowledge-graph'), '--log-format', 'json'], {
        env: { PATH: process.env.PATH, HOME: home },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      server.stderr.on('data', (d) => { log += d; });
      // 30 s only bounds a hang: a start takes well under a second.
      const guard = Date.now() + 30_000;
      while (!/"msg":"listening"/.test(log)) {
        assert.equal(server.exitCode, null, `kg serve exited before listening:\n${log}`);
        assert.ok(Date.now() < guard, `kg serve did not start listening:\n${log}`);
        await new Promise((r) => { setTimeout(r, 50); });
      }
    });

    after(async () => {
      if (server && server.exitCode === null) {
        const exited = once(server, 'exit');
        server.kill('SIGTERM');
        const [code] = await exited;
        assert.equal(code, 0, `kg serve exited ${code} on SIGTERM:\n${log}`);
      }
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('lists the tools through kg mcp, forwarded to the server of the root', async () => {
      const [list] = stdioDocCommands();
      const res = await inspector(list, '', { HOME: home, PATH: `${bin}:${process.env.PATH}` });
      const { tools } = json(res);
      // What kg mcp offered is what the server offers.
      const url = JSON.parse(log.split('\n').find((l) => /"msg":"listening"/.test(l))).url;
      assert.deepEqual(tools.map((t) => t.name).sort(), await listTools(url));
      assert.match(log, /"msg":"request","method":"POST","route":"\/"/,
        `the server of the root served no MCP request; kg mcp went elsewhere:\n${log}`);
    });
  });
}
