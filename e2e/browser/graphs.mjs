// Generated graphs for the browser tests and the page's benchmark: a
// realistic memory of n nodes (kebab-case ids, one-line gists, notes, files
// they touch) in clusters by topic, about 2.1 edges a node (some to files
// and URLs), with the three tiers (70 % active, 20 % archived, 10 %
// orphaned). The same seed gives the same graph. Written into kg as kg-graph
// documents through POST /api/import (docs/decisions/0020-export-document.md),
// one durable write per graph.

const TOPICS = [
  ['auth', ['token', 'refresh', 'session', 'cookie', 'login', 'oauth', 'scope', 'jwt']],
  ['cache', ['invalidation', 'ttl', 'warmup', 'eviction', 'key', 'stampede', 'layer']],
  ['db', ['migration', 'index', 'pool', 'deadlock', 'transaction', 'schema', 'replica']],
  ['http', ['retry', 'timeout', 'client', 'router', 'middleware', 'cors', 'gzip']],
  ['build', ['ci', 'lint', 'race', 'vet', 'release', 'docker', 'cache']],
  ['test', ['fixture', 'golden', 'flaky', 'fuzz', 'mock', 'property', 'bench']],
  ['log', ['slog', 'level', 'format', 'rotation', 'trace', 'metric', 'alert']],
  ['ui', ['layout', 'label', 'zoom', 'theme', 'form', 'dialog', 'focus']],
  ['deploy', ['rollback', 'canary', 'config', 'secret', 'region', 'dns']],
  ['search', ['ranking', 'index', 'typo', 'stem', 'trigram', 'bm25']],
];
const VERBS = ['needs', 'breaks when', 'is faster with', 'must not skip', 'is checked by', 'depends on', 'fails without', 'is simpler with'];
const RELS = ['depends-on', 'refines', 'see-also', 'caused-by', 'fixed-by', 'contradicts'];

/** A small deterministic random source (mulberry32). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A kg-graph document of n nodes. level, projectPath: the graph it is for;
 * seed: which graph; prefix: put before every id, so that graphs differ.
 */
export function generate(n, { seed = 1, level = 'project', projectPath, prefix = '', now = Date.now() / 1000 } = {}) {
  const r = rng(seed);
  const pick = (l) => l[Math.floor(r() * l.length)];
  const nodes = [];
  const byTopic = new Map();
  const used = new Set();
  for (let i = 0; i < n; i++) {
    const [topic, words] = TOPICS[i % TOPICS.length];
    const a = pick(words);
    let b = pick(words);
    if (b === a) b = pick(words);
    let id = `${prefix}${topic}-${a}-${b}`;
    for (let k = 2; used.has(id); k++) id = `${prefix}${topic}-${a}-${b}-${k}`;
    used.add(id);
    const roll = r();
    const tier = roll < 0.7 ? 'active' : roll < 0.9 ? 'archived' : 'orphaned';
    const written = now - 86400 * (1 + Math.floor(r() * 60)) - i;
    const node = {
      id,
      gist: `${topic} ${a} ${pick(VERBS)} ${b}: keep it ${pick(['small', 'explicit', 'tested', 'logged', 'bounded'])}`,
      notes: [`why: learned on ${topic} (${i})`],
      touches: r() < 0.5 ? [`src/${topic}/${a}.go`] : [],
      tier,
      created_ts: written - 3600,
      last_write_ts: written,
      version: 1,
    };
    if (r() < 0.15) node.notes.push(`A note with a blank line.\n\nIt stays one note (${i}).`);
    if (tier === 'orphaned') node.orphaned_ts = written + 60;
    nodes.push(node);
    if (!byTopic.has(topic)) byTopic.set(topic, []);
    byTopic.get(topic).push(id);
  }
  const edges = [];
  const seen = new Set();
  const add = (from, to, rel, notes = []) => {
    const k = `${from}\u0000${to}\u0000${rel}`;
    if (from === to || seen.has(k)) return;
    seen.add(k);
    edges.push({ from, to, rel, notes, last_write_ts: now - 86400, version: 1 });
  };
  const ids = nodes.map((x) => x.id);
  for (let i = 0; i < n; i++) {
    const from = ids[i];
    const topic = TOPICS[i % TOPICS.length][0];
    const mates = byTopic.get(topic);
    const k = 1 + Math.floor(r() * 2.4); // 1–3 edges out
    for (let j = 0; j < k; j++) {
      const roll = r();
      if (roll < 0.12) add(from, `src/${topic}/${pick(TOPICS[i % TOPICS.length][1])}.go`, 'touches');
      else if (roll < 0.15) add(from, `https://example.com/${topic}/${j}`, 'see-also');
      else if (roll < 0.8) add(from, pick(mates), pick(RELS), r() < 0.3 ? [`${from} and the other: one reason`] : []);
      else add(from, pick(ids), pick(RELS));
    }
  }
  const doc = { format: 'kg-graph', version: 1, level, exported_ts: now, nodes, edges, progress: {} };
  if (level === 'project') doc.project_path = projectPath;
  return doc;
}

/** Imports doc into the kg at url (the graph it names; mode replace or merge); resolves to the import's result. */
export async function importInto(url, doc, { headers = {}, mode = 'replace' } = {}) {
  const q = new URLSearchParams({ mode, level: doc.level });
  if (doc.project_path) q.set('project_path', doc.project_path);
  const res = await fetch(`${url}/api/import?${q}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(doc),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`import: ${res.status} ${JSON.stringify(body)}`);
  return body;
}
