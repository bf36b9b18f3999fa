// End-to-end tests of a running kg server through the official MCP
// TypeScript SDK client over Streamable HTTP. run.sh starts one server per
// storage backend and passes their URLs in KG_E2E_SERVERS as
// "json=http://127.0.0.1:p1/,bolt=http://127.0.0.1:p2/"; every test runs
// against each of them.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { TOOLS, servers as serverList, sessionOf, text } from './harness.mjs';

// servers are run.sh's servers, each with its MCP endpoint as a URL.
const servers = () => serverList().map((s) => ({ ...s, url: new URL(s.url) }));

// connect opens one MCP client, as an agent would: its own transport and
// its own initialize.
async function connect(url, name) {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  return { client, transport };
}

// call makes a tools/call that must succeed and returns the result.
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  assert.notEqual(res.isError, true, `${name} failed: ${res.content?.[0]?.text}`);
  return res;
}

const unique = (prefix) => `${prefix}-${randomBytes(4).toString('hex')}`;

for (const { backend, url } of servers()) {
  describe(`kg over MCP (${backend} storage)`, () => {
    let a; let b; let project;

    before(async () => {
      project = mkdtempSync(join(tmpdir(), `kg-e2e-project-${backend}-`));
      a = await connect(url, 'e2e-agent-a');
      b = await connect(url, 'e2e-agent-b');
    });

    after(async () => {
      await a?.client.close();
      await b?.client.close();
      rmSync(project, { recursive: true, force: true });
    });

    it('is stateless Streamable HTTP with the kg server identity', () => {
      assert.equal(a.transport.sessionId, undefined, 'the server must not issue an Mcp-Session-Id');
      const info = a.client.getServerVersion();
      assert.equal(info.name, 'kg');
      assert.ok(a.client.getServerCapabilities().tools, 'tools capability');
      assert.match(a.client.getInstructions() ?? '', /kg_read with cwd/, 'the instructions say to start with kg_read and cwd');
    });

    it('lists the tools of the replaced server, each tool with its schemas', async () => {
      const { tools } = await a.client.listTools();
      const names = tools.map((t) => t.name);
      for (const name of TOOLS) assert.ok(names.includes(name), `tools/list lacks ${name}`);
      for (const t of tools) {
        assert.equal(t.inputSchema.type, 'object', `${t.name} inputSchema`);
        // No outputSchema: a structuredContent would reach the model in Claude Code and
        // Codex in place of the text (docs/decisions/0091).
        assert.equal(t.outputSchema, undefined, `${t.name} declares an outputSchema`);
      }
      const search = tools.find((t) => t.name === 'kg_search');
      assert.equal(search.annotations?.readOnlyHint, true, 'kg_search is read-only');
    });

    it('round-trips a node through put and read', async () => {
      const start = await call(a.client, 'kg_read', { cwd: project });
      assert.equal(start.structuredContent, undefined, 'no structuredContent');
      const sid = sessionOf(start);
      assert.match(sid, /^[0-9a-f]{16}$/);

      const id = unique('e2e-roundtrip');
      const put = await call(a.client, 'kg_put_node', {
        session_id: sid, level: 'project', id,
        gist: 'round trip through the TypeScript SDK', notes: ['first note'], touches: ['e2e/mcp.test.mjs'],
      });
      assert.match(text(put), new RegExp(`Node "${id}" saved to project graph \\(v1\\)`));

      const byId = await call(a.client, 'kg_read', { session_id: sid, id });
      assert.match(text(byId), new RegExp(`^=== NODE ${id} — project graph \\([^)]*\\), active ===\n` +
        'gist: round trip through the TypeScript SDK\nnotes:\n  - first note\ntouches:\n  - e2e/mcp.test.mjs\nversion: 1, '));

      const full = await call(a.client, 'kg_read', { session_id: sid });
      assert.equal(sessionOf(full), sid, 'a known session is reused');
      assert.ok(text(full).includes(`\n  ${id}: round trip through the TypeScript SDK\n`), 'the full read shows the node');

      const found = await call(a.client, 'kg_search', { session_id: sid, query: 'typescript round' });
      assert.ok(text(found).includes(`] ${id} (active, score `), `search finds ${id}: ${text(found)}`);
    });

    it('reports errors as tool results that name the problem', async () => {
      const res = await a.client.callTool({ name: 'kg_read', arguments: { session_id: 'ffffffffffffffff' } });
      assert.equal(res.isError, true);
      assert.match(text(res), /unknown session "ffffffffffffffff".*kg_read with cwd/);
    });

    it("syncs one client's writes to another", async () => {
      const sa = sessionOf(await call(a.client, 'kg_read', { cwd: project }));
      const sb = sessionOf(await call(b.client, 'kg_read', { cwd: project }));
      assert.notEqual(sa, sb);

      const nodeID = unique('e2e-sync');
      const before = await call(a.client, 'kg_sync', { session_id: sa });
      assert.ok(!text(before).includes(nodeID));

      await call(b.client, 'kg_put_node', { session_id: sb, level: 'project', id: nodeID, gist: 'written by client B' });
      await call(b.client, 'kg_put_edge', { session_id: sb, level: 'user', from: nodeID, to: 'e2e/mcp.test.mjs', rel: 'tested-by' });

      const seen = await call(a.client, 'kg_sync', { session_id: sa });
      assert.ok(text(seen).includes(`\n  edge ${nodeID} --tested-by--> e2e/mcp.test.mjs`), `A sees B's edge: ${text(seen)}`);
      assert.match(text(seen), new RegExp(`node ${nodeID} \\[active\\]: written by client B`));

      // Reported once: the watermark moved.
      const again = await call(a.client, 'kg_sync', { session_id: sa });
      assert.ok(!text(again).includes(nodeID), `reported twice: ${text(again)}`);

      // A session is not told about its own writes.
      const own = await call(b.client, 'kg_sync', { session_id: sb });
      assert.ok(!text(own).includes(nodeID), `B told about its own write: ${text(own)}`);
    });
  });
}
