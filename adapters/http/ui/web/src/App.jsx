// The graph explorer: one graph at a time (the user graph or a project),
// its picture and node list, the selected node, the compaction plan, and
// forms to change it; kept live through /ws.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from './api.js';
import { Live } from './live.js';
import { normalizePlan } from './plan.js';
import { scopeLabel } from './format.js';
import { GraphView } from './components/GraphView.jsx';
import { NodeList } from './components/NodeList.jsx';
import { Details } from './components/Details.jsx';
import { Plan } from './components/Plan.jsx';
import { NodeForm } from './components/NodeForm.jsx';
import { EdgeForm } from './components/EdgeForm.jsx';
import { Confirm } from './components/Confirm.jsx';
import { Status } from './components/Status.jsx';

/** The graph and node named by the address's #fragment, so a reload keeps them. */
function fromHash() {
  const h = new URLSearchParams(window.location.hash.slice(1));
  const path = h.get('project');
  return { scope: path ? { level: 'project', projectPath: path } : { level: 'user' }, node: h.get('node') };
}

function toHash(scope, node) {
  const h = new URLSearchParams();
  if (scope.level === 'project') h.set('project', scope.projectPath);
  if (node) h.set('node', node);
  const s = h.toString();
  window.history.replaceState(null, '', s ? `#${s}` : window.location.pathname);
}

const scopeKey = (s) => (s.level === 'user' ? 'user' : `project:${s.projectPath}`);

function wsURL(scope) {
  const u = new URL('/ws', window.location.href);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  if (scope.level === 'project') u.searchParams.set('project_path', scope.projectPath);
  return u.toString();
}

export function App() {
  const auth = document.documentElement.dataset.auth === 'token';
  const initial = useMemo(fromHash, []);
  const [scope, setScope] = useState(initial.scope);
  const [projects, setProjects] = useState([]);
  const [graph, setGraph] = useState({ nodes: [], edges: [] });
  const [loaded, setLoaded] = useState(false);
  const [plan, setPlan] = useState(null);
  const [selected, setSelected] = useState(initial.node);
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState(null);
  const [tab, setTab] = useState('details');
  const [dialog, setDialog] = useState(null);
  const [conn, setConn] = useState({ state: 'connecting' });
  const [message, setMessage] = useState('');
  const [loadError, setLoadError] = useState('');
  const [busy, setBusy] = useState(false);

  const scopeRef = useRef(scope);
  scopeRef.current = scope;
  const generation = useRef(0);

  // reload reads the graph, its plan and the project list again. Answers to
  // an older reload (another graph chosen meanwhile) are dropped.
  const reload = useCallback(async () => {
    const s = scopeRef.current;
    const gen = ++generation.current;
    try {
      const [g, p, ps] = await Promise.all([
        api.graph(s).catch((e) => ({ error: e })),
        api.plan(s).catch((e) => ({ error: e })),
        api.projects().catch(() => null),
      ]);
      if (gen !== generation.current) return;
      // The project list is shown even when this graph cannot be read, so
      // that the others can still be chosen.
      if (ps) setProjects(ps);
      if (g.error) throw g.error;
      setGraph(g);
      setPlan(p?.error ? { moves: [], ranking: new Map(), error: p.error.message } : normalizePlan(p));
      setLoadError('');
      setLoaded(true);
    } catch (e) {
      if (gen !== generation.current) return;
      // Not the graph chosen before: an empty one, under the reason.
      setGraph({ nodes: [], edges: [] });
      setPlan(null);
      setLoadError(`Could not read ${scopeLabel(s).toLowerCase()}: ${e.message}`);
      setLoaded(true);
    }
  }, []);

  // Live updates: events about the graph on screen re-read it, a few at a
  // time; events may come in bursts (a compaction run, an agent's batch).
  const pending = useRef(null);
  const scheduleReload = useCallback(() => {
    clearTimeout(pending.current);
    pending.current = setTimeout(reload, 150);
  }, [reload]);
  const live = useRef(null);
  useEffect(() => {
    const l = new Live(() => wsURL(scopeRef.current), {
      onState: setConn,
      onReconnect: reload,
      onEvent: (ev) => {
        const s = scopeRef.current;
        const sameGraph = ev.level === s.level && (s.level === 'user' || !ev.project || ev.project === s.projectPath);
        if (sameGraph) scheduleReload();
      },
    });
    live.current = l;
    l.start();
    return () => l.stop();
  }, [reload, scheduleReload]);

  // A new graph: read it, subscribe to its events.
  const firstScope = useRef(true);
  useEffect(() => {
    setLoaded(false);
    setSearch(null);
    reload();
    if (firstScope.current) firstScope.current = false;
    else live.current?.restart();
  }, [scopeKey(scope)]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => toHash(scope, selected), [scope, selected]);

  // "/" jumps to the search box, as on many sites.
  useEffect(() => {
    const onKey = (e) => {
      const t = e.target;
      if (e.key === '/' && !dialog && !(t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement)) {
        e.preventDefault();
        document.getElementById('search-input')?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [dialog]);

  const node = graph.nodes.find((n) => n.id === selected) ?? null;
  const ids = useMemo(() => graph.nodes.map((n) => n.id).sort(), [graph]);
  const idSet = useMemo(() => new Set(ids), [ids]);

  const select = (id) => { setSelected(id); setTab('details'); };
  const say = (m) => setMessage(m);

  // act runs one write, then re-reads; the events it causes re-read too.
  const act = async (fn, done) => {
    setBusy(true);
    try {
      const r = await fn();
      setDialog(null);
      if (done) say(done(r));
      await reload();
      return r;
    } finally {
      setBusy(false);
    }
  };

  const saveNode = (editing) => (fields) => act(
    () => api.putNode(scope, fields, editing ? (editing.version ?? undefined) : 0),
    () => { setSelected(fields.id); return `${editing ? 'Saved' : 'Created'} node ${fields.id}.`; },
  );
  const saveEdge = (editing) => (fields) => act(
    () => api.putEdge(scope, fields),
    () => `${editing ? 'Saved' : 'Created'} edge ${fields.from} ${fields.rel} ${fields.to}.`,
  );
  const recall = () => act(
    () => api.recall(scope, node.id),
    (r) => `Recalled ${node.id}: it is active again${r?.rescued?.length ? `; ${r.rescued.join(', ')} came back as archived` : ''}.`,
  ).catch((e) => say(`Could not recall ${node.id}: ${e.message}`));

  const doSearch = async (e) => {
    e.preventDefault();
    const q = query.trim();
    if (!q) { setSearch(null); return; }
    try {
      const hits = await api.search(scope, q);
      setSearch({ query: q, hits });
    } catch (err) {
      say(`Search failed: ${err.message}`);
    }
  };

  const chooseGraph = (value) => {
    setSelected(null);
    setScope(value === 'user' ? { level: 'user' } : { level: 'project', projectPath: value });
  };

  const projectPaths = projects.map((p) => p.project_path ?? p.path).filter(Boolean);
  if (scope.level === 'project' && !projectPaths.includes(scope.projectPath)) projectPaths.push(scope.projectPath);

  return (
    <div class="app" data-loaded={loaded ? 'true' : 'false'} data-scope={scopeKey(scope)}>
      <a class="skip" href="#node-list-panel">Skip to the node list</a>
      <header class="top">
        <h1>kg <span class="sub">memory graph</span></h1>
        <div class="graph-pick">
          <label for="graph-select">Graph</label>
          <select id="graph-select" value={scope.level === 'user' ? 'user' : scope.projectPath} onChange={(e) => chooseGraph(e.currentTarget.value)}>
            <option value="user">User graph</option>
            {projectPaths.map((p) => <option key={p} value={p}>Project {p}</option>)}
          </select>
        </div>
        <form role="search" class="search" onSubmit={doSearch}>
          <label for="search-input" class="visually-hidden">Search this graph</label>
          <input id="search-input" type="search" value={query} placeholder="Search (press /)"
            onInput={(e) => setQuery(e.currentTarget.value)} maxLength={1000} />
          <button type="submit">Search</button>
        </form>
        <div class="top-actions">
          <button type="button" class="primary" onClick={() => setDialog({ kind: 'node' })}>New node</button>
          <button type="button" onClick={() => setDialog({ kind: 'edge', from: selected ?? '' })}>New edge</button>
          {auth && <form method="post" action="/ui/logout"><button type="submit">Log out</button></form>}
        </div>
        <Status conn={conn} onRetry={() => live.current?.restart()} />
      </header>
      {loadError && <p class="error banner" role="alert">{loadError}</p>}
      <main class="body">
        <div class="panel list-panel" id="node-list-panel" tabIndex={-1}>
          <NodeList nodes={graph.nodes} selected={selected} onSelect={select} search={search}
            onClearSearch={() => { setSearch(null); setQuery(''); }} />
        </div>
        <div class="panel graph-panel">
          <GraphView graph={graph} selected={selected} onSelect={select} label={scopeLabel(scope)} resetKey={scopeKey(scope)} />
        </div>
        <aside class="panel side" aria-label="Selected node and compaction plan">
          <div role="tablist" class="tabs" aria-label="Side panel">
            <button type="button" role="tab" id="tab-details" aria-controls="panel-details" aria-selected={tab === 'details'} onClick={() => setTab('details')}>Node</button>
            <button type="button" role="tab" id="tab-plan" aria-controls="panel-plan" aria-selected={tab === 'plan'} onClick={() => setTab('plan')}>
              Compaction plan{plan?.moves?.length ? ` (${plan.moves.length})` : ''}
            </button>
          </div>
          <div role="tabpanel" id="panel-details" aria-labelledby="tab-details" hidden={tab !== 'details'}>
            {selected && !node && loaded
              ? <p class="empty">Node {selected} is not in this graph (any more).</p>
              : (
                <Details node={node} graph={graph} busy={busy}
                  rank={plan?.ranking?.get(selected)} move={plan?.moves?.find((m) => m.id === selected)}
                  onSelect={select}
                  onEdit={() => setDialog({ kind: 'node', node })}
                  onDelete={() => setDialog({ kind: 'delete-node', node })}
                  onRecall={recall}
                  onNewEdge={() => setDialog({ kind: 'edge', from: node.id })}
                  onEditEdge={(edge) => setDialog({ kind: 'edge', edge })}
                  onDeleteEdge={(edge) => setDialog({ kind: 'delete-edge', edge })} />
              )}
          </div>
          <div role="tabpanel" id="panel-plan" aria-labelledby="tab-plan" hidden={tab !== 'plan'}>
            {plan?.error ? <p class="error">The plan could not be read: {plan.error}</p> : <Plan plan={plan} ids={idSet} onSelect={select} />}
          </div>
        </aside>
      </main>
      <p class="message" role="status" aria-live="polite">{message}</p>

      {dialog?.kind === 'node' && <NodeForm node={dialog.node} onSave={saveNode(dialog.node)} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'edge' && <EdgeForm edge={dialog.edge} from={dialog.from} ids={ids} onSave={saveEdge(dialog.edge)} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'delete-node' && (
        <Confirm title={`Delete node ${dialog.node.id}?`} action="Delete node"
          message={`This deletes ${dialog.node.id} and every edge of this graph that touches it. It cannot be undone here.`}
          onClose={() => setDialog(null)}
          onConfirm={() => act(() => api.deleteNode(scope, dialog.node.id),
            (r) => { setSelected(null); return `Deleted node ${dialog.node.id}${r?.edges_deleted ? ` and ${r.edges_deleted} edge${r.edges_deleted === 1 ? '' : 's'}` : ''}.`; })} />
      )}
      {dialog?.kind === 'delete-edge' && (
        <Confirm title="Delete this edge?" action="Delete edge"
          message={`${dialog.edge.from} ${dialog.edge.rel} ${dialog.edge.to}`}
          onClose={() => setDialog(null)}
          onConfirm={() => act(() => api.deleteEdge(scope, dialog.edge),
            () => `Deleted edge ${dialog.edge.from} ${dialog.edge.rel} ${dialog.edge.to}.`)} />
      )}
    </div>
  );
}
