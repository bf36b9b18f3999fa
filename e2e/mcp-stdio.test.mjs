// End-to-end tests of `kg mcp`, the stdio bridge, through the official MCP
// TypeScript SDK's StdioClientTransport — what Claude Desktop and other
// stdio-only clients use. run.sh passes the binary in KG_E2E_KG and the
// roots of the servers it started in KG_E2E_ROOTS ("json=/tmp/…,bolt=/tmp/…").
// One more case lets kg mcp start a server itself, on a root of its own,
// and stops that server afterwards.

import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { TOOLS, sessionOf, text } from './harness.mjs';

const kg = process.env.KG_E2E_KG;
const roots = (process.env.KG_E2E_ROOTS ?? '').split(',').filter(Boolean).map((kv) => {
  const i = kv.indexOf('=');
  return { backend: kv.slice(0, i), root: kv.slice(i + 1) };
});
if (!kg || roots.length === 0) {
  throw new Error('KG_E2E_KG or KG_E2E_ROOTS is empty: run the tests through e2e/run.sh (make e2e)');
}

// The child's environment: no KG_ setting from the machine.
const childEnv = { PATH: process.env.PATH, HOME: process.env.HOME ?? tmpdir() };

async function connect(args) {
  const transport = new StdioClientTransport({ command: kg, args: ['mcp', ...args], env: childEnv, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (b) => { stderr += b; });
  const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(`kg mcp ${args.join(' ')}: ${err}\n${stderr}`);
  }
  return client;
}

async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  assert.notEqual(res.isError, true, `${name} failed: ${res.content?.[0]?.text}`);
  return res;
}

// roundTrip is what an agent does first: list the tools, start a session,
// write a node and read it back.
async function roundTrip(client, label) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const name of TOOLS) assert.ok(names.includes(name), `${label}: tools/list lacks ${name}`);
  const project = mkdtempSync(join(tmpdir(), 'kg-e2e-stdio-'));
  try {
    const read = await call(client, 'kg_read', { cwd: project });
    const sid = sessionOf(read);
    assert.ok(sid, 'kg_read with cwd ends with its session');
    await call(client, 'kg_put_node', { session_id: sid, level: 'project', id: `stdio-${label}`, gist: `written through kg mcp (${label})` });
    const back = await call(client, 'kg_read', { session_id: sid, id: `stdio-${label}` });
    assert.match(text(back), new RegExp(`written through kg mcp \\(${label}\\)`));
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

for (const { backend, root } of roots) {
  describe(`kg mcp to the running server (${backend} storage)`, () => {
    it('forwards every tool call of a stdio client', async () => {
      const client = await connect(['--no-start', '--storage-root', root, '--storage', backend]);
      try {
        const info = client.getServerVersion();
        assert.equal(info.name, 'kg');
        await roundTrip(client, backend);
      } finally {
        await client.close();
      }
    });
  });
}

describe('kg mcp with no server running', () => {
  const root = mkdtempSync(join(tmpdir(), 'kg-e2e-autostart-'));

  after(async () => {
    // Stop the server kg mcp started, found through the root's lock file.
    let pid = 0;
    try {
      pid = Number(readFileSync(join(root, '.lock'), 'utf8').split(' ')[0]);
    } catch { /* never started */ }
    if (pid > 0) {
      try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ }
      for (let i = 0; i < 300; i++) { // a bound against a hang
        try { process.kill(pid, 0); } catch { break; }
        await sleep(50);
      }
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('starts one in the background and forwards to it', async () => {
    const client = await connect(['--port', '0', '--storage-root', root]);
    try {
      await roundTrip(client, 'autostart');
    } finally {
      await client.close();
    }
    const log = readFileSync(join(root, 'kg.log'), 'utf8');
    assert.match(log, /msg=listening/, 'the started server logs to kg.log under the root');
  });
});
