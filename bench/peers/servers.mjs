// The three servers under test and their clients, all through the official
// MCP TypeScript SDK: kg (the built binary, Streamable HTTP, on json or
// bolt) and the peer @modelcontextprotocol/server-memory (stdio).

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

const require = createRequire(import.meta.url);

// peerScript is the peer's entry point as npm installed it from the lock file.
export const peerScript = join(
  dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')),
  'dist', 'index.js',
);
export const peerVersion = require('@modelcontextprotocol/server-memory/package.json').version;
// The SDK's exports map hides its package.json: read it from its folder.
export const sdkVersion = JSON.parse(readFileSync(
  join(import.meta.dirname, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'), 'utf8')).version;

// toolError is a tools/call that answered isError: true.
function toolError(name, res) {
  const text = (res.content ?? []).map((c) => c.text ?? '').join(' ');
  return new Error(`${name}: ${text}`);
}

// call makes a tools/call that must succeed and returns its result.
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  if (res.isError) throw toolError(name, res);
  return res;
}

// startKG runs `kg serve` on a free port with a storage root of its own,
// KG_GRACE_PERIOD_DAYS=0 and the default budget
// (docs/design/benchmarks.md#workload), and resolves once the server logs
// the address it listens on. Its log (one line per request, at the default
// level) goes straight to a file beside the root, as a service's log goes
// to its journal: piping it through this process would cost the client's
// CPU, not the server's.
export async function startKG(kgBin, backend, root, extraEnv = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('KG_')));
  Object.assign(env, { KG_GRACE_PERIOD_DAYS: '0' }, extraEnv);
  const logPath = `${root}.log`;
  const fd = openSync(logPath, 'w');
  let child;
  try {
    child = spawn(kgBin, ['serve', '--port', '0', '--storage', backend, '--storage-root', root, '--log-format', 'json'], {
      env, stdio: ['ignore', 'ignore', fd],
    });
  } finally {
    closeSync(fd);
  }
  const log = () => {
    try { return readFileSync(logPath, 'utf8'); } catch { return ''; }
  };
  let exited = null;
  child.on('exit', (code) => { exited = code; });
  let url;
  // Wait for the "listening" line, or for the server to die; 30 s only
  // bounds a hang.
  for (let waited = 0; !url; waited += 50) {
    const m = /"msg":"listening".*?"addr":"([^"]+)"/.exec(log());
    if (m) {
      url = new URL(`http://${m[1]}/`);
      break;
    }
    if (exited !== null) throw new Error(`kg (${backend}) exited ${exited} before listening:\n${log()}`);
    if (waited > 30_000) {
      child.kill('SIGKILL');
      throw new Error(`kg (${backend}) did not start listening in 30 s:\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid,
    log: () => log().slice(-4000),
    // stop sends SIGTERM and waits: kg makes pending writes durable first.
    async stop() {
      if (exited !== null) return exited;
      const done = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await done;
      return code;
    },
  };
}

// KGConn is one MCP client of kg with its own session, bound to the
// project cwd, writing to that project's graph (as an agent would).
export class KGConn {
  static async open(url, cwd) {
    const client = new Client({ name: 'kg-bench-peers', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    const res = await call(client, 'kg_read', { cwd });
    // kg's results carry their text only (docs/decisions/0091): the full read ends with "Session: <id>".
    const text = res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    const session = text.match(/\nSession: ([0-9a-f]+)$/)?.[1];
    if (!session) throw new Error('kg_read with cwd returned no session_id');
    return new KGConn(client, session, url);
  }

  constructor(client, session, url) {
    this.client = client;
    this.session = session;
    this.url = url;
  }

  createNode(n) {
    return call(this.client, 'kg_put_node', { session_id: this.session, level: 'project', id: n.id, gist: n.gist, notes: n.notes });
  }

  createEdge(e) {
    return call(this.client, 'kg_put_edge', { session_id: this.session, level: 'project', from: e.from, to: e.to, rel: e.rel });
  }

  search(q) {
    return call(this.client, 'kg_search', { session_id: this.session, query: q });
  }

  fullRead() {
    return call(this.client, 'kg_read', { session_id: this.session });
  }

  // floor is a call that writes nothing and reads next to nothing: the
  // state of a task that was never saved.
  floor() {
    return call(this.client, 'kg_progress', { session_id: this.session, level: 'project', task_id: 'bench-floor' });
  }

  // exportGraph reads the session's project graph whole, tiers included,
  // through GET /api/export: unlike a kg_read by id, it restores nothing,
  // so checking a run neither writes nor changes what follows.
  async exportGraph() {
    const url = new URL(`api/export?level=project&session_id=${encodeURIComponent(this.session)}`, this.url);
    const res = await fetch(url);
    if (!res.ok) throw new Error(`GET /api/export: ${res.status} ${await res.text()}`);
    return res.json();
  }

  close() {
    return this.client.close();
  }
}

// startPeer runs the peer over stdio with its own memory file and connects
// one client to it (the peer serves one client per process).
export async function startPeer(memoryFile) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [peerScript],
    env: { ...getDefaultEnvironment(), MEMORY_FILE_PATH: memoryFile },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'kg-bench-peers', version: '1.0.0' });
  await client.connect(transport);
  return new PeerConn(client, transport);
}

// PeerConn is the client of one peer process, speaking its tools as
// docs/design/benchmarks.md#workload maps them.
export class PeerConn {
  constructor(client, transport) {
    this.client = client;
    this.transport = transport;
  }

  get pid() {
    return this.transport.pid;
  }

  createNode(n) {
    return call(this.client, 'create_entities', { entities: [{ name: n.id, entityType: 'node', observations: n.notes }] });
  }

  createEdge(e) {
    return call(this.client, 'create_relations', { relations: [{ from: e.from, to: e.to, relationType: e.rel }] });
  }

  search(q) {
    return call(this.client, 'search_nodes', { query: q });
  }

  fullRead() {
    return call(this.client, 'read_graph', {});
  }

  // floor is the peer's call that writes nothing and asks for next to
  // nothing: open_nodes of a name that does not exist (it still loads the
  // whole file, as every peer call does).
  floor() {
    return call(this.client, 'open_nodes', { names: ['bench-floor-missing'] });
  }

  async readGraph() {
    const res = await call(this.client, 'read_graph', {});
    return res.structuredContent ?? { entities: [], relations: [] };
  }

  close() {
    return this.client.close();
  }
}
