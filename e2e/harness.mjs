// What the e2e tests of the MCP surface share: the tools kg must offer, the
// servers run.sh started, and the text of a tool result.

// TOOLS are the tools of the server kg replaces, sorted; kg must keep
// offering each of them. kg may offer more: what it offers is its own
// tools/list (listTools), never a copy kept here.
export const TOOLS = [
  'kg_delete_edge', 'kg_delete_node', 'kg_progress', 'kg_put_edge',
  'kg_put_node', 'kg_read', 'kg_search', 'kg_sync',
];

// servers returns the servers run.sh started, one per storage backend, from
// KG_E2E_SERVERS ("json=http://127.0.0.1:p1/,bolt=http://127.0.0.1:p2/"):
// each as its backend and the URL of its MCP endpoint.
export function servers() {
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

// text joins the text content of a tool result: what most clients show the
// model.
export const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

// sessionOf is the session id a kg_read's text ends with ("Session: <id>"):
// kg's results carry their text only (docs/decisions/0091).
export const sessionOf = (res) => text(res).match(/\nSession: ([0-9a-f]+)$/)?.[1];

// listTools asks the server at url (its MCP endpoint) for its tools, with
// one stateless tools/list, and returns their names, sorted: the one list
// the tests compare what a client was offered with.
export async function listTools(url) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  if (res.status !== 200) throw new Error(`tools/list at ${url}: HTTP ${res.status}`);
  const body = await res.json();
  if (body.error) throw new Error(`tools/list at ${url}: ${JSON.stringify(body.error)}`);
  return body.result.tools.map((t) => t.name).sort();
}
