// What the e2e tests of the MCP surface share: the tools kg must offer, the
// servers run.sh started, and the text of a tool result.

// TOOLS are the tools of the server kg replaces, sorted; kg must keep
// offering each of them.
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
