// The checks that every write of a run arrived: what each server holds,
// read back whole after the run, against what the workload wrote.

// verifyKG reads kg's project graph back (the export: every node, any
// tier) and checks the gist and notes of every node written and every
// chain edge.
export async function verifyKG(conn, nodes, edges) {
  const doc = await conn.exportGraph();
  const got = new Map(doc.nodes.map((n) => [n.id, n]));
  const rels = new Set(doc.edges.map((e) => `${e.from}\u0000${e.rel}\u0000${e.to}`));
  const check = { nodes: nodes.length, nodes_found: 0, edges: edges.length, edges_found: 0, problems: [] };
  const problem = (p) => check.problems.length < 5 && check.problems.push(p);
  for (const want of nodes) {
    const n = got.get(want.id);
    if (!n) problem(`node ${want.id} missing`);
    else if (n.gist !== want.gist || JSON.stringify(n.notes) !== JSON.stringify(want.notes)) problem(`node ${want.id}: other content`);
    else check.nodes_found++;
  }
  for (const e of edges) {
    if (rels.has(`${e.from}\u0000${e.rel}\u0000${e.to}`)) check.edges_found++;
    else problem(`edge ${e.from} --${e.rel}--> ${e.to} missing`);
  }
  check.ok = check.nodes_found === check.nodes && check.edges_found === check.edges;
  return check;
}

// verifyPeer reads the peer's whole graph and counts what arrived.
export async function verifyPeer(conn, nodes, edges) {
  const g = await conn.readGraph();
  const ents = new Map(g.entities.map((e) => [e.name, e]));
  const rels = new Set(g.relations.map((r) => `${r.from}\u0000${r.relationType}\u0000${r.to}`));
  const check = { nodes: nodes.length, nodes_found: 0, edges: edges.length, edges_found: 0, problems: [] };
  const problem = (p) => check.problems.length < 5 && check.problems.push(p);
  for (const want of nodes) {
    const e = ents.get(want.id);
    if (e && JSON.stringify(e.observations) === JSON.stringify(want.notes)) check.nodes_found++;
    else problem(`entity ${want.id} ${e ? 'has other observations' : 'missing'}`);
  }
  for (const e of edges) {
    if (rels.has(`${e.from}\u0000${e.rel}\u0000${e.to}`)) check.edges_found++;
    else problem(`relation ${e.from} --${e.rel}--> ${e.to} missing`);
  }
  check.ok = check.nodes_found === check.nodes && check.edges_found === check.edges;
  return check;
}
