// Bulk actions on the nodes a person picked in the list (docs/design/http.md#bulk-actions):
// archive, delete, merge into one, export. Each action that writes runs under a
// session of its own (POST /api/sessions/register), so the change log
// records it as one session's changes and one POST /api/undo of that
// session puts it all back.

/** The part of a kg-graph document (GET /api/export) that holds the picked nodes and the edges among them. */
export function pickedDocument(doc, picked) {
  const ids = new Set(picked);
  return {
    ...doc,
    nodes: (doc?.nodes ?? []).filter((n) => ids.has(n.id)),
    edges: (doc?.edges ?? []).filter((e) => ids.has(e.from) && ids.has(e.to)),
    progress: {},
  };
}

/** A file name for an export of picked nodes: "app-3-nodes.kg.json". */
export function pickedFileName(scope, n) {
  const base = scope.level === 'user' ? 'user-graph' : (scope.projectPath.split('/').filter(Boolean).pop() ?? 'project');
  return `${base}-${n}-node${n === 1 ? '' : 's'}.kg.json`;
}

/**
 * Archives the picked nodes: one POST /api/nodes/archive under a session of
 * its own, so that the undo of that session makes them active again
 * (docs/decisions/0106-archive-by-hand.md). Nodes not active are left and
 * listed as unmoved.
 * @returns {Promise<{sessionID: string, done: string[], unmoved: string[], failed: null}>}
 */
export async function runArchive(api, scope, ids) {
  const s = await api.registerSession(scope.level === 'project' ? scope.projectPath : undefined);
  const r = await api.archiveNodes(scope, ids, s.session_id);
  return { sessionID: s.session_id, done: r.archived ?? [], unmoved: r.unmoved ?? [], failed: null };
}

/**
 * Runs one bulk action: starts a session of its own for the graph, then
 * step(id, sessionID) for each id in turn. Stops at the first failure;
 * what was done before it stays done, and the session undoes it.
 * @returns {Promise<{sessionID: string, done: string[], failed: {id: string, error: Error} | null}>}
 */
export async function runBulk(api, scope, ids, step) {
  const s = await api.registerSession(scope.level === 'project' ? scope.projectPath : undefined);
  const done = [];
  for (const id of ids) {
    try {
      await step(id, s.session_id);
      done.push(id);
    } catch (error) {
      return { sessionID: s.session_id, done, failed: { id, error } };
    }
  }
  return { sessionID: s.session_id, done, failed: null };
}
