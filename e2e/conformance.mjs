// Runs the MCP conformance suite (@modelcontextprotocol/conformance, pinned
// in node22/package-lock.json) against running kg servers and holds each
// scenario's result to the table of docs/conformance.md:
//   - a scenario that applies must pass: every check SUCCESS or INFO, and at
//     least one SUCCESS;
//   - a scenario that does not apply must fail with the answer the table
//     gives (e.g. "-32601: resources not supported"), so that it cannot hide
//     a crash or a malformed reply;
//   - the table and the suite must name the same scenarios, so a new suite
//     version cannot add one unclassified.
// Exits 1 when anything differs. Run it through conformance.sh, which
// installs the suite and runs this on Node 22.
//
// Usage: node conformance.mjs RESULTS_DIR [label=]URL...

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const docPath = join(here, '..', 'docs', 'conformance.md');
const suiteDir = join(here, 'node22', 'node_modules', '@modelcontextprotocol', 'conformance');
const suitePkg = JSON.parse(readFileSync(join(suiteDir, 'package.json'), 'utf8'));
const suiteBin = join(suiteDir, suitePkg.bin.conformance);

// A run of the whole suite takes seconds; the bound only stops a hang.
const suiteTimeoutMs = 10 * 60 * 1000;

// readTable returns the scenarios of docs/conformance.md: for each, whether
// it applies and, when it does not, the text the suite must report.
function readTable(doc) {
  const rows = new Map();
  const row = /^\|\s*`([a-z0-9-]+)`\s*\|\s*(yes|no)\b[^|]*\|\s*(.*?)\s*\|\s*$/;
  for (const line of doc.split('\n')) {
    const m = row.exec(line);
    if (!m) continue;
    const [, scenario, applies, seen] = m;
    if (rows.has(scenario)) throw new Error(`docs/conformance.md lists ${scenario} twice`);
    if (applies === 'yes') {
      rows.set(scenario, { applies: true });
      continue;
    }
    const answer = /^`([^`]+)`$/.exec(seen);
    if (!answer) throw new Error(`docs/conformance.md: ${scenario} does not apply, but "${seen}" is not one \`answer\``);
    rows.set(scenario, { applies: false, answer: answer[1] });
  }
  if (rows.size === 0) throw new Error('docs/conformance.md has no scenario table');
  return rows;
}

function runSuite(args) {
  const res = spawnSync(process.execPath, [suiteBin, ...args], {
    encoding: 'utf8', timeout: suiteTimeoutMs, maxBuffer: 64 * 1024 * 1024,
  });
  if (res.error) throw new Error(`conformance ${args[0]}: ${res.error.message}`);
  return res;
}

// suiteScenarios lists the server scenarios of the installed suite.
function suiteScenarios() {
  const res = runSuite(['list', '--server']);
  if (res.status !== 0) throw new Error(`conformance list failed:\n${res.stdout}${res.stderr}`);
  const names = [...res.stdout.matchAll(/^\s+- ([a-z0-9-]+)/gm)].map((m) => m[1]);
  if (names.length === 0) throw new Error(`conformance list printed no scenario:\n${res.stdout}`);
  return names;
}

// readResults maps each scenario to its checks, from the folders the suite
// writes: <dir>/server-<scenario>-<timestamp>/checks.json.
function readResults(dir) {
  const results = new Map();
  for (const entry of readdirSync(dir)) {
    const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry);
    if (!m) continue;
    results.set(m[1], JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')));
  }
  return results;
}

const messages = (checks) => checks
  .filter((c) => c.status !== 'SUCCESS')
  .flatMap((c) => [c.errorMessage, c.details?.message])
  .filter((m) => typeof m === 'string');

// judge returns "" when the scenario's checks are what the table says, and
// else what is wrong.
function judge(row, checks) {
  if (!checks) return 'the suite wrote no result';
  if (row.applies) {
    const bad = checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO');
    if (bad.length > 0) return bad.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.details?.message ?? ''}`).join('; ');
    if (!checks.some((c) => c.status === 'SUCCESS')) return 'no check passed';
    return '';
  }
  if (messages(checks).some((m) => m.includes(row.answer))) return '';
  const got = checks.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.details?.message ?? ''}`).join('; ');
  return `expected "${row.answer}", got ${got || 'no checks'}`;
}

function main() {
  const [resultsDir, ...targets] = process.argv.slice(2);
  if (!resultsDir || targets.length === 0) {
    console.error('usage: node conformance.mjs RESULTS_DIR [label=]URL...');
    process.exit(2);
  }
  const table = readTable(readFileSync(docPath, 'utf8'));
  const scenarios = suiteScenarios();
  const problems = [];

  const pinned = `@modelcontextprotocol/conformance@${suitePkg.version}`;
  if (!readFileSync(docPath, 'utf8').includes(pinned)) {
    problems.push(`docs/conformance.md does not name the installed suite, ${pinned}`);
  }
  for (const s of scenarios) {
    if (!table.has(s)) problems.push(`the suite's scenario ${s} is not in the table of docs/conformance.md`);
  }
  for (const s of table.keys()) {
    if (!scenarios.includes(s)) problems.push(`docs/conformance.md lists ${s}, which ${pinned} does not have`);
  }

  targets.forEach((target, i) => {
    const labelled = /^([A-Za-z0-9_-]+)=(.+)$/.exec(target);
    const [label, url] = labelled ? [labelled[1], labelled[2]] : [target, target];
    const out = join(resultsDir, `run-${i}`);
    mkdirSync(out);
    console.log(`\n${pinned} against ${url} (${label})`);
    const run = runSuite(['server', '--url', url, '--suite', 'all', '-o', out]);
    const results = readResults(out);
    let applicable = 0; let other = 0; let failed = 0;
    for (const s of scenarios) {
      const row = table.get(s);
      if (!row) continue;
      const wrong = judge(row, results.get(s));
      if (wrong) {
        failed++;
        problems.push(`${label}: ${s}: ${wrong}`);
        console.log(`  FAIL ${s}: ${wrong}`);
      } else if (row.applies) {
        applicable++;
        console.log(`  ok   ${s}: applies, passes`);
      } else {
        other++;
        console.log(`  ok   ${s}: does not apply; ${row.answer}`);
      }
    }
    console.log(`  ${applicable} applicable scenarios pass, ${other} do not apply, ${failed} wrong`);
    if (failed > 0) {
      // The suite's own summary; its folders are gone once the run ends.
      const output = run.stdout + run.stderr;
      const summary = output.indexOf('=== SUMMARY ===');
      console.log(`--- the suite's output (${label})\n${summary >= 0 ? output.slice(summary) : output}`);
    }
  });

  if (problems.length > 0) {
    console.error(`\nconformance: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
}

main();
