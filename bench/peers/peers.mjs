// bench/peers: the workload of docs/design/benchmarks.md, generated once by
// cmd/kgbench (--print-workload), replayed through the official MCP
// TypeScript SDK client against kg on json, kg on bolt and the peer
// @modelcontextprotocol/server-memory, interleaved (json, bolt, peer, json,
// bolt, peer, ...), at each size. It prints ops/s, p50 and p99 per phase
// and server, the kg/peer ratio of each repetition, checks that every write
// arrived, and writes everything as JSON for chart.mjs.
//
// Usage: node peers.mjs --kg bin/kg --kgbench bin/kgbench [options]; run.sh
// builds both and passes them. `node peers.mjs --help` lists the options.

import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, openSync, writeSync, fsyncSync, closeSync } from 'node:fs';
import { cpus, tmpdir, release, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';

import { KGConn, PeerConn, startKG, startPeer, peerVersion, sdkVersion } from './servers.mjs';
import { alternating, median, round, summarize, timed } from './stats.mjs';
import { evaluate, fig, ratio, verdict } from './targets.mjs';
import { verifyKG, verifyPeer } from './check.mjs';

const run = promisify(execFile);

// Node's fetch adds an abort listener to the SDK transport's one signal per
// request and removes it only when the request is collected, so a long run
// passes the warning threshold again and again. Say it once.
process.removeAllListeners('warning');
let warnedListeners = false;
process.on('warning', (w) => {
  if (w.name === 'MaxListenersExceededWarning') {
    if (warnedListeners) return;
    warnedListeners = true;
  }
  process.stderr.write(`${w.name}: ${w.message}\n`);
});

const usage = `Usage: node peers.mjs --kg PATH --kgbench PATH [options]
       node peers.mjs --report results.json [--markdown]

  --sizes 1000,5000,20000   graph sizes N (N creates, N-1 edges each); '' runs
                            only the lost-writes demonstration
  --reps 3                  repetitions, interleaved json, bolt, peer
  --servers json,bolt,peer  which servers to run
  --peer-max 5000           largest N the peer runs (it slows down with N)
  --searches 200            kg_search / search_nodes calls per run
  --reads 20                full reads per run
  --floors 200              no-write calls per run (the floor's p50)
  --concurrent 800          writes of the concurrent phase (kg only), once
                            with 1 client and once with --clients clients
  --clients 16              clients of the concurrent phase
  --lost-writes 100         entities each of two peer processes on one file
                            creates (0 skips that demonstration)
  --seed 2024               the workload's seed
  --out FILE                the results as JSON (default: bench/peers/results/peers-<time>.json)
  --report FILE             run nothing: print the medians and targets of a results file
                            (one finished or cut short); --markdown prints Markdown tables
`;

function options() {
  const { values } = parseArgs({
    options: {
      kg: { type: 'string' },
      kgbench: { type: 'string' },
      sizes: { type: 'string', default: '1000,5000,20000' },
      reps: { type: 'string', default: '3' },
      servers: { type: 'string', default: 'json,bolt,peer' },
      'peer-max': { type: 'string', default: '5000' },
      searches: { type: 'string', default: '200' },
      reads: { type: 'string', default: '20' },
      floors: { type: 'string', default: '200' },
      concurrent: { type: 'string', default: '800' },
      clients: { type: 'string', default: '16' },
      'lost-writes': { type: 'string', default: '100' },
      seed: { type: 'string', default: '2024' },
      out: { type: 'string' },
      report: { type: 'string' },
      markdown: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(usage);
    process.exit(0);
  }
  const int = (name, min) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < min) fail(`--${name} ${values[name]}: want a whole number from ${min}`);
    return n;
  };
  const o = {
    kg: values.kg && resolve(values.kg),
    kgbench: values.kgbench && resolve(values.kgbench),
    sizes: values.sizes === '' ? [] : values.sizes.split(',').map((s) => {
      const n = Number(s);
      if (!Number.isInteger(n) || n < 2) fail(`--sizes ${values.sizes}: want whole numbers from 2`);
      return n;
    }),
    reps: int('reps', 1),
    servers: values.servers.split(','),
    peerMax: int('peer-max', 0),
    searches: int('searches', 0),
    reads: int('reads', 0),
    floors: int('floors', 1),
    concurrent: int('concurrent', 0),
    clients: int('clients', 1),
    lostWrites: int('lost-writes', 0),
    seed: int('seed', 0),
    report: values.report && resolve(values.report),
    markdown: values.markdown,
    out: resolve(values.out ?? join(import.meta.dirname, 'results', `peers-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)),
  };
  for (const s of o.servers) if (!['json', 'bolt', 'peer'].includes(s)) fail(`--servers: unknown server ${s}; want json, bolt, peer`);
  if (o.report) return o;
  if (!o.kg && o.servers.some((s) => s !== 'peer')) fail('--kg: the path of the kg binary is needed (make build)');
  if (!o.kgbench) fail('--kgbench: the path of the kgbench binary is needed (it generates the workload)');
  return o;
}

function fail(msg) {
  process.stderr.write(`bench/peers: ${msg}\n\n${usage}`);
  process.exit(2);
}

const say = (s = '') => process.stdout.write(s + '\n');
const serverName = (s) => (s === 'peer' ? 'peer' : `kg-${s}`);

// workload asks kgbench for the workload of n nodes: the one definition.
async function workload(kgbench, n, queries, seed) {
  const { stdout } = await run(kgbench, ['--print-workload', '--nodes', String(n), '--ops', String(queries), '--seed', String(seed)],
    { maxBuffer: 1 << 30 });
  return JSON.parse(stdout);
}

// fsyncFloor times `count` 1 KiB writes, each followed by fsync, of one
// file in dir: the physical floor of a durable write on this disk.
function fsyncFloor(dir, count = 200) {
  const path = join(dir, 'fsync-floor');
  const fd = openSync(path, 'w');
  const buf = Buffer.alloc(1024, 120);
  const lat = [];
  const start = performance.now();
  try {
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      writeSync(fd, buf, 0, buf.length, 0);
      fsyncSync(fd);
      lat.push(performance.now() - t);
    }
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
  return summarize(lat, performance.now() - start, 0);
}

// phases replays the workload on one connection: N creates, N-1 edges, the
// searches, the full reads and the no-write calls, one call at a time; then
// the searches once more, alternating with no-write calls (search_alt,
// floor_alt).
async function phases(conn, w, o, serverPid) {
  const p = {};
  const t = (workers, n, op) => withCPU(serverPid, () => timed(workers, n, op));
  p.create = await t(1, w.nodes.length, (_, i) => conn.createNode(w.nodes[i]));
  p.edge = await t(1, w.edges.length, (_, i) => conn.createEdge(w.edges[i]));
  if (o.searches > 0) p.search = await t(1, o.searches, (_, i) => conn.search(w.queries[i % w.queries.length]));
  if (o.reads > 0) p.full_read = await t(1, o.reads, () => conn.fullRead());
  p.floor = await t(1, o.floors, () => conn.floor());
  if (o.searches > 0) {
    // The same searches again, each followed by a no-write call: the
    // ratio of the two p50s with no change of load between them.
    const m = await alternating(o.searches, (i) => conn.search(w.queries[i % w.queries.length]), () => conn.floor());
    p.search_alt = m.a;
    p.floor_alt = m.b;
  }
  return p;
}

// cpuMs returns the CPU time (user + system, ms) the process pid has used,
// from /proc; null where there is no /proc.
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / clockTicks;
  } catch {
    return null;
  }
}
// clockTicks is the unit of /proc/<pid>/stat's times (USER_HZ): 100 on
// Linux everywhere it runs.
const clockTicks = 100;

// withCPU runs a phase and adds to its figures the CPU time per call that
// the server process and this client process spent on it: where the time
// of a call goes when the machine is busy.
async function withCPU(serverPid, phase) {
  const s0 = serverPid ? cpuMs(serverPid) : null;
  const c0 = process.cpuUsage();
  const st = await phase();
  const c = process.cpuUsage(c0);
  const s1 = serverPid ? cpuMs(serverPid) : null;
  if (st.ops > 0) {
    st.client_cpu_ms_per_op = round((c.user + c.system) / 1000 / st.ops);
    if (s0 != null && s1 != null) st.server_cpu_ms_per_op = round((s1 - s0) / st.ops);
  }
  return st;
}

// concurrentNodes are the nodes of the concurrent phase: new ids, the
// workload's texts.
function concurrentNodes(w, prefix, k) {
  return Array.from({ length: k }, (_, i) => {
    const src = w.nodes[i % w.nodes.length];
    return { id: `${prefix}${String(i + 1).padStart(6, '0')}`, gist: src.gist, notes: src.notes };
  });
}

// runKG is one run of the workload against kg on one backend.
async function runKG(o, backend, w, work) {
  const root = join(work, `root-${backend}`);
  const srv = await startKG(o.kg, backend, root);
  const cwd = `/kg-bench-peers/${backend}`;
  const out = { server: serverName(backend) };
  const conns = [];
  try {
    const conn = await KGConn.open(srv.url, cwd);
    conns.push(conn);
    out.phases = await phases(conn, w, o, srv.pid);
    out.check = await verifyKG(conn, w.nodes, w.edges);
    if (o.concurrent > 0) {
      const one = concurrentNodes(w, 'c1-', o.concurrent);
      const many = concurrentNodes(w, 'cm-', o.concurrent);
      for (let i = 1; i < o.clients; i++) conns.push(await KGConn.open(srv.url, cwd));
      const r1 = await withCPU(srv.pid, () => timed(1, one.length, (_, i) => conns[0].createNode(one[i])));
      const rn = await withCPU(srv.pid, () => timed(o.clients, many.length, (c, i) => conns[c].createNode(many[i])));
      const chk = await verifyKG(conn, [...one, ...many], []);
      out.concurrent = { clients: o.clients, one: r1, many: rn, ratio: round(rn.ops_per_s / r1.ops_per_s), check: chk };
    }
  } finally {
    await Promise.allSettled(conns.map((c) => c.close()));
    out.exit_code = await srv.stop();
  }
  if (out.exit_code !== 0) throw new Error(`kg (${backend}) exited ${out.exit_code} on SIGTERM:\n${srv.log().slice(-4000)}`);
  return out;
}

// runPeer is one run of the workload against the peer.
async function runPeer(o, w, work) {
  const conn = await startPeer(join(work, 'peer-memory.jsonl'));
  const out = { server: 'peer' };
  try {
    out.phases = await phases(conn, w, o, conn.pid);
    out.check = await verifyPeer(conn, w.nodes, w.edges);
  } finally {
    await conn.close();
  }
  return out;
}

// lostWrites is the demonstration that the peer loses acknowledged
// writes: (a) two of its processes on one memory file each create k
// entities while the other does; (b) one process whose one client sends
// two calls at a time (the SDK serves requests concurrently, and each call
// loads, changes and saves the whole file with no lock). A fresh process
// then counts what the file holds.
async function lostWrites(o, w, work) {
  // create runs the callers at once, each creating its nodes one after
  // another, and counts the acknowledgements.
  const create = async (callers) => {
    let acked = 0;
    await Promise.all(callers.map(async ([c, nodes]) => {
      for (const n of nodes) {
        await c.createNode(n);
        acked++;
      }
    }));
    return acked;
  };
  const count = async (file, nodes) => {
    const r = await startPeer(file);
    try {
      return (await verifyPeer(r, nodes, [])).nodes_found;
    } finally {
      await r.close();
    }
  };
  const out = {};
  {
    const file = join(work, 'two-processes.jsonl');
    const [a, b] = [await startPeer(file), await startPeer(file)];
    const na = concurrentNodes(w, 'a-', o.lostWrites);
    const nb = concurrentNodes(w, 'b-', o.lostWrites);
    let acked;
    try {
      acked = await create([[a, na], [b, nb]]);
    } finally {
      await Promise.allSettled([a.close(), b.close()]);
    }
    const found = await count(file, [...na, ...nb]);
    out.two_processes = { acknowledged: acked, found, lost: acked - found };
  }
  {
    const file = join(work, 'one-process.jsonl');
    const c = await startPeer(file);
    const na = concurrentNodes(w, 'p-', o.lostWrites);
    const nb = concurrentNodes(w, 'q-', o.lostWrites);
    let acked;
    try {
      acked = await create([[c, na], [c, nb]]);
    } finally {
      await c.close();
    }
    const found = await count(file, [...na, ...nb]);
    out.one_process_two_calls = { acknowledged: acked, found, lost: acked - found };
  }
  return out;
}

// secondKG shows kg's side of the same situation: a second kg on the same
// root is refused (the root's lock), so two processes never share a file.
async function secondKG(o, work) {
  const root = join(work, 'root-shared');
  const first = await startKG(o.kg, 'json', root);
  try {
    await startKG(o.kg, 'json', root);
    return { refused: false, message: 'a second kg started on the same root' };
  } catch (err) {
    const m = /"msg":"[^"]*"|kg serve: .*/.exec(String(err.message));
    return { refused: true, message: m ? m[0] : String(err.message).split('\n')[0] };
  } finally {
    await first.stop();
  }
}

async function machine() {
  const sh = async (cmd, args) => {
    try { return (await run(cmd, args)).stdout.trim(); } catch { return null; }
  };
  const disk = await sh('sh', ['-c', "df -P \"${TMPDIR:-/tmp}\" | awk 'NR==2{print $1}' | xargs -I{} lsblk -no NAME,ROTA,SIZE,MODEL {} 2>/dev/null | head -n1"]);
  return {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? null,
    memory_gib: round(totalmem() / 2 ** 30),
    kernel: release(),
    node: process.version,
    go: await sh('go', ['version']),
    disk: disk || null,
    tmpdir: tmpdir(),
    load_average_at_start: (await sh('cat', ['/proc/loadavg']))?.split(' ').slice(0, 3).join(' ') ?? null,
  };
}

function table(rows) {
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  for (const r of rows) say(r.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join('  '));
}

const fmt = (x, d = 1) => (x == null ? '—' : Number(x).toFixed(d));

function printRun(r) {
  say(`  ${r.server}: ` + Object.entries(r.phases).map(([k, s]) =>
    `${k} ${fmt(s.ops_per_s)}/s p50 ${fmt(s.p50_ms, 2)} p99 ${fmt(s.p99_ms, 2)} ms${s.server_cpu_ms_per_op != null ? ` (cpu/op server ${fmt(s.server_cpu_ms_per_op, 2)}, client ${fmt(s.client_cpu_ms_per_op, 2)} ms)` : ''}${s.errors ? ` (${s.errors} errors: ${s.first_error})` : ''}`).join('; '));
  const c = r.check;
  say(`    check: ${c.nodes_found}/${c.nodes} nodes, ${c.edges_found}/${c.edges} edges: ${c.ok ? 'every write arrived' : 'WRITES MISSING ' + c.problems.join('; ')}`);
  if (r.concurrent) {
    const k = r.concurrent;
    say(`    concurrent writes: 1 client ${fmt(k.one.ops_per_s)}/s (p50 ${fmt(k.one.p50_ms, 2)} ms), ${k.clients} clients ${fmt(k.many.ops_per_s)}/s (p50 ${fmt(k.many.p50_ms, 2)} ms): ×${fmt(k.ratio, 2)}; ` +
      `check ${k.check.nodes_found}/${k.check.nodes}: ${k.check.ok ? 'every write arrived' : 'WRITES MISSING'}`);
  }
}

// summary prints the medians of every size and the targets, as plain
// tables or as Markdown (for docs/performance.md).
function summary(results, markdown) {
  const show = markdown ? mdTable : table;
  if (results.runs.length === 0) {
    if (results.lost_writes) printLostWrites(results.lost_writes);
    return;
  }
  const sizes = [...new Set(results.runs.map((r) => r.size))].sort((a, b) => a - b);
  const servers = ['kg-json', 'kg-bolt', 'peer'].filter((s) => results.runs.some((r) => r.server === s));
  const kgs = servers.filter((s) => s !== 'peer' && servers.includes('peer'));
  say('\nMedians over the repetitions (ops/s, p50 ms, p99 ms):');
  for (const n of sizes) {
    say();
    const rows = [['N = ' + n, ...servers.flatMap((s) => [`${s} ops/s`, 'p50', 'p99']), ...kgs.map((s) => `${s} / peer`)]];
    for (const ph of ['create', 'edge', 'search', 'full_read', 'floor', 'search_alt', 'floor_alt']) {
      if (!results.runs.some((r) => r.size === n && r.phases?.[ph])) continue;
      rows.push([ph,
        ...servers.flatMap((s) => [fmt(fig(results, s, n, ph, 'ops_per_s')), fmt(fig(results, s, n, ph, 'p50_ms'), 2), fmt(fig(results, s, n, ph, 'p99_ms'), 2)]),
        ...kgs.map((s) => {
          const x = ratio(results, [s, ph], ['peer', ph], n, 'ops_per_s');
          return x == null ? '—' : '×' + fmt(x, 2);
        })]);
    }
    show(rows);
    if (results.runs.some((r) => r.size === n && r.phases?.create?.server_cpu_ms_per_op != null)) {
      say(`${markdown ? '\n' : ''}CPU per call, server / client (ms):${markdown ? '\n' : ''}`);
      const cpu = [['N = ' + n, ...servers]];
      for (const ph of ['create', 'edge', 'search', 'full_read', 'floor']) {
        cpu.push([ph, ...servers.map((sv) => `${fmt(fig(results, sv, n, ph, 'server_cpu_ms_per_op'), 2)} / ${fmt(fig(results, sv, n, ph, 'client_cpu_ms_per_op'), 2)}`)]);
      }
      const conc = (k) => servers.map((sv) => {
        const runs = results.runs.filter((r) => r.server === sv && r.size === n && r.concurrent);
        if (runs.length === 0) return '';
        return `${fmt(median(runs.map((r) => r.concurrent[k].server_cpu_ms_per_op)), 2)} / ${fmt(median(runs.map((r) => r.concurrent[k].client_cpu_ms_per_op)), 2)}`;
      });
      cpu.push(['writes, 1 client', ...conc('one')], ['writes, 16 clients', ...conc('many')]);
      show(cpu);
    }
    const f = fig(results, 'fsync', n, 'fsync', 'p50_ms');
    const counts = servers.map((sv) => [sv, results.runs.filter((r) => r.size === n && r.server === sv).length]);
    const reps = new Set(counts.map(([, c]) => c)).size === 1
      ? `${counts[0][1]} rounds`
      : `rounds: ${counts.map(([sv, c]) => `${sv} ${c}`).join(', ')} (a run cut short)`;
    say(`${markdown ? '\n' : ''}${reps}; fsync floor (1 KiB write + fsync) p50 ${fmt(f, 3)} ms`);
    for (const s of servers.filter((s) => s !== 'peer')) {
      const runs = results.runs.filter((r) => r.server === s && r.size === n && r.concurrent);
      const c = median(runs.map((r) => r.concurrent.ratio));
      if (c == null) continue;
      const one = median(runs.map((r) => r.concurrent.one.ops_per_s));
      const many = median(runs.map((r) => r.concurrent.many.ops_per_s));
      say(`${markdown ? '- ' : '  '}${s}: ${runs[0].concurrent.clients} clients ${fmt(many)} writes/s, 1 client ${fmt(one)}/s: ×${fmt(c, 2)}`);
    }
  }
  if (results.peer_skipped_sizes?.length) say(`\nThe peer did not run at N = ${results.peer_skipped_sizes.join(', ')} (--peer-max).`);
  if (results.lost_writes) printLostWrites(results.lost_writes);
  const targets = results.targets ?? evaluate(results);
  say('\nTargets (docs/design/benchmarks.md):\n');
  show([['target', 'figure', 'want', 'measured', ''], ...targets.map((t) => [t.target, t.what, t.want, t.got == null ? '—' : '×' + fmt(t.got, 2), verdict(t.met)])]);
}

// printLostWrites says what the lost-writes demonstration found.
function printLostWrites(l) {
  if (l.two_processes) {
    const t = l.two_processes;
    say(`\nThe peer, two processes on one memory file, each creating entities at once: ${t.acknowledged} acknowledged, ${t.found} in the file, ${t.lost} lost.`);
  }
  if (l.one_process_two_calls) {
    const t = l.one_process_two_calls;
    say(`The peer, one process, two calls at a time: ${t.acknowledged} acknowledged, ${t.found} in the file, ${t.lost} lost.`);
  }
  if (l.kg_second_process) say(`A second kg on the same root: ${l.kg_second_process.refused ? 'refused' : 'NOT refused'} (${l.kg_second_process.message}).`);
}

// mdTable prints rows as a Markdown table, the first row its header.
function mdTable(rows) {
  const line = (r) => `| ${r.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`;
  say(line(rows[0]));
  say(line(rows[0].map((_, i) => (i === 0 ? '---' : '---:'))));
  for (const r of rows.slice(1)) say(line(r));
}

async function main() {
  const o = options();
  if (o.report) {
    // Print the summary of a results file (a finished run, or one cut short).
    summary(JSON.parse(readFileSync(o.report, 'utf8')), o.markdown);
    return;
  }
  const results = {
    started: new Date().toISOString(),
    command: process.argv.slice(2).join(' '),
    machine: await machine(),
    versions: { sdk: sdkVersion, peer: peerVersion },
    config: { ...o, kg: o.kg, out: undefined },
    runs: [],
  };
  mkdirSync(dirname(o.out), { recursive: true });
  const save = () => writeFileSync(o.out, JSON.stringify(results, null, 1) + '\n');
  const m = results.machine;
  say(`bench/peers: ${m.nproc} CPUs (${m.cpu}), ${m.memory_gib} GiB, disk ${m.disk ?? '?'}, load ${m.load_average_at_start}; node ${m.node}; SDK ${sdkVersion}, peer ${peerVersion}`);
  say(`sizes ${o.sizes.join(', ')}; ${o.reps} interleaved repetitions of ${o.servers.map(serverName).join(', ')}; peer up to ${o.peerMax}`);

  let anyMissing = false;
  const skippedPeer = new Set();
  for (const n of o.sizes) {
    const w = await workload(o.kgbench, n, Math.max(o.searches, 1), o.seed);
    for (let rep = 1; rep <= o.reps; rep++) {
      say(`\nN = ${n}, repetition ${rep}`);
      const work = mkdtempSync(join(tmpdir(), 'kg-bench-peers-'));
      try {
        const floor = fsyncFloor(work);
        say(`  fsync floor (1 KiB write + fsync in ${tmpdir()}): p50 ${fmt(floor.p50_ms, 3)} ms, p99 ${fmt(floor.p99_ms, 3)} ms`);
        results.runs.push({ server: 'fsync', size: n, rep, phases: { fsync: floor } });
        for (const s of o.servers) {
          if (s === 'peer' && n > o.peerMax) {
            if (!skippedPeer.has(n)) say(`  peer: not run at N = ${n} (--peer-max ${o.peerMax}: its every call reads and rewrites the whole file, so it slows down with N)`);
            skippedPeer.add(n);
            continue;
          }
          const r = s === 'peer' ? await runPeer(o, w, work) : await runKG(o, s, w, work);
          Object.assign(r, { size: n, rep });
          results.runs.push(r);
          printRun(r);
          anyMissing ||= !r.check.ok || (r.concurrent && !r.concurrent.check.ok);
          save();
        }
        for (const s of ['kg-json', 'kg-bolt']) {
          const mine = results.runs.find((r) => r.server === s && r.size === n && r.rep === rep);
          const peer = results.runs.find((r) => r.server === 'peer' && r.size === n && r.rep === rep);
          if (!mine || !peer) continue;
          say(`  ${s} / peer ops/s: ` + Object.keys(mine.phases).filter((k) => peer.phases[k])
            .map((k) => `${k} ×${fmt(mine.phases[k].ops_per_s / peer.phases[k].ops_per_s, 2)}`).join(', '));
        }
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    }
  }
  results.peer_skipped_sizes = [...skippedPeer];

  if (o.lostWrites > 0 && o.servers.includes('peer')) {
    const work = mkdtempSync(join(tmpdir(), 'kg-bench-peers-'));
    try {
      const w = await workload(o.kgbench, 10, 1, o.seed);
      results.lost_writes = await lostWrites(o, w, work);
      if (o.kg) results.lost_writes.kg_second_process = await secondKG(o, work);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  if (results.runs.length > 0) results.targets = evaluate(results);
  summary(results, o.markdown);
  results.finished = new Date().toISOString();
  save();
  say(`\nresults: ${o.out}`);
  if (anyMissing) {
    say('WRITES MISSING: see the checks above');
    process.exitCode = 1;
  }
}

main().catch((err) => {
  process.stderr.write(`bench/peers: ${err.stack ?? err}\n`);
  process.exit(1);
});
