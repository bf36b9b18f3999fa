// The page: a home view (every graph, its counts and token meter, the latest
// changes) and a graph view (the picture, the node list, the selected node,
// the compaction plan), one search box over every graph, and forms to
// change the memory. One socket (/ws?scope=all) keeps it live: the events
// of the graph on screen are applied in place (graphstore.js), every event
// feeds the latest changes (history.js).
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, scopeKey, scopeOf } from './api.js';
import { explain } from './errors.js';
import { GraphStore } from './graphstore.js';
import { HistoryFeed, LiveEvents, SyncSessions } from './history.js';
import { ChangeLogSource } from './daylog.js';
import { sessionName, sessionsOf, withStats } from './sessions.js';
import { Live } from './live.js';
import { FrameQueue } from './frames.js';
import { normalizePlan } from './plan.js';
import { distinctTails, projectOption, scopeLabel } from './format.js';
import { GraphView } from './components/GraphView.jsx';
import { NodeList } from './components/NodeList.jsx';
import { SearchResults } from './components/SearchResults.jsx';
import { Details } from './components/Details.jsx';
import { Plan } from './components/Plan.jsx';
import { Home } from './components/Home.jsx';
import { Attention } from './components/Attention.jsx';
import { BulkBar, BulkDone } from './components/Bulk.jsx';
import { attentionOf } from './attention.js';
import { NodeForm } from './components/NodeForm.jsx';
import { EdgeForm } from './components/EdgeForm.jsx';
import { Confirm } from './components/Confirm.jsx';
import { Status } from './components/Status.jsx';
import { Notices } from './components/Notices.jsx';
import { MergeDialog } from './components/MergeDialog.jsx';
import { NodeHistory, UndoDialog } from './components/History.jsx';
import { noticesOf } from './notices.js';
import { historyUnavailable, undoSummary } from './changelog.js';
import { eventsOfMerge, mergeSummary } from './merge.js';

/** The view, graph and node named by the address's #fragment, so a reload keeps them. */
function fromHash() {
  const h = new URLSearchParams(window.location.hash.slice(1));
  const path = h.get('project');
  const scope = path ? { level: 'project', projectPath: path } : { level: 'user' };
  const graph = h.has('project') || h.has('node') || h.get('view') === 'graph';
  return { view: graph ? 'graph' : 'home', scope, node: h.get('node') };
}

function toHash(view, scope, node) {
  const h = new URLSearchParams();
  if (view === 'graph') {
    h.set('view', 'graph');
    if (scope.level === 'project') h.set('project', scope.projectPath);
    if (node) h.set('node', node);
  }
  const s = h.toString();
  window.history.replaceState(null, '', s ? `#${s}` : window.location.pathname);
}

function wsURL() {
  const u = new URL('/ws', window.location.href);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.searchParams.set('scope', 'all');
  return u.toString();
}

function useMedia(query) {
  const [on, setOn] = useState(() => window.matchMedia?.(query).matches ?? false);
  useEffect(() => {
    const m = window.matchMedia?.(query);
    if (!m) return undefined;
    const f = () => setOn(m.matches);
    m.addEventListener('change', f);
    return () => m.removeEventListener('change', f);
  }, [query]);
  return on;
}

const PLAN_DELAY = 800; // after a change, the plan is read again this long after the last event

export function App() {
  const auth = document.documentElement.dataset.auth === 'token';
  const initial = useMemo(fromHash, []);
  const [view, setView] = useState(initial.view);
  const [scope, setScope] = useState(initial.scope);
  const key = scopeKey(scope);
  const storeRef = useRef(new GraphStore(initial.scope));
  const [drawn, setDrawn] = useState({ version: 0 });
  const [loaded, setLoaded] = useState(false);
  const [loadError, setLoadError] = useState('');
  const [projects, setProjects] = useState([]);
  const [selected, setSelected] = useState(initial.node);
  const [focusKey, setFocusKey] = useState(initial.node ? 1 : 0);
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState(null);
  const [tab, setTab] = useState('details');
  const [plan, setPlan] = useState(null); // {key, data, stale, state}
  const [dialog, setDialog] = useState(null);
  const [conn, setConn] = useState({ state: 'connecting' });
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [home, setHome] = useState({ graphs: [], loading: true });
  const [changes, setChanges] = useState([]);
  const [notices, setNotices] = useState([]); // what kg noticed about the page's writes (notices.js)
  const [picked, setPicked] = useState(() => new Set()); // the nodes picked in the list, for a bulk action
  const [bulkDone, setBulkDone] = useState(null); // what the last bulk action did, with its undo
  const [historyOn, setHistoryOn] = useState(null); // whether the server keeps a change log; null: not known yet
  const phone = useMedia('(max-width: 700px)');

  const scopeRef = useRef(scope);
  scopeRef.current = scope;
  const viewRef = useRef(view);
  viewRef.current = view;
  const generation = useRef(0);
  const reading = useRef(null); // events of the graph being read, applied once it is
  const focusAfterLoad = useRef(initial.node);
  const picture = useRef(null); // the picture's handle (GraphView): applyNow

  // ---- the latest changes ------------------------------------------------
  const liveSource = useMemo(() => new LiveEvents(), []);
  const syncSource = useMemo(() => new SyncSessions(api), []);
  // The change log gives the home view the last day on any visit; the
  // page's sync sessions stand in on a server without one (daylog.js).
  const feed = useMemo(() => new HistoryFeed([liveSource, new ChangeLogSource(api, [syncSource])]), [liveSource, syncSource]);
  useEffect(() => {
    feed.start();
    setChanges([...feed.list]);
    const off = feed.subscribe((l) => setChanges([...l]));
    return () => { off(); feed.stop(); };
  }, [feed]);

  // ---- sessions named for a person --------------------------------------
  // A session is named by the agent its hooks said it runs in, and one that
  // wrote only the user graph by the project it is bound to, which kg tells
  // while the session lives (asked once each).
  const [sessionStats, setSessionStats] = useState({});
  const askedStats = useRef(new Set());
  useEffect(() => {
    for (const e of changes) {
      if (!e.session || askedStats.current.has(e.session)) continue;
      const id = e.session;
      askedStats.current.add(id);
      api.sessionStats(id).then((st) => setSessionStats((m) => ({ ...m, [id]: st })), () => {});
    }
  }, [changes]);

  // ---- the change log: asked once whether the server keeps one ----------
  useEffect(() => {
    api.history({ level: 'user' }, { limit: 1 }).then(
      () => setHistoryOn(true),
      // Not answering: not known yet, and the panel stays hidden; any other
      // error is the log's, shown where it is read.
      (e) => setHistoryOn(historyUnavailable(e) ? false : e?.offline ? null : true),
    );
  }, []);

  // ---- what needs a person (attention.js), per graph ----------------------
  const [attention, setAttention] = useState(() => new Map());
  const loadAttention = useCallback((scopes) => {
    for (const sc of scopes) {
      api.attention(sc).then(
        (a) => setAttention((m) => new Map(m).set(scopeKey(sc), attentionOf(a))),
        () => {}, // not answering, or a server without the route: nothing is said
      );
    }
  }, []);
  // After changes to the graph on screen, its attention is read again once they settle.
  const attentionTimer = useRef(0);
  const scheduleAttention = useCallback(() => {
    clearTimeout(attentionTimer.current);
    attentionTimer.current = setTimeout(() => loadAttention([scopeRef.current]), PLAN_DELAY);
  }, [loadAttention]);
  // A merge asked for from the home view waits for its graph to be read.
  const pendingMerge = useRef(null);

  // ---- the graph on screen -----------------------------------------------
  // Each change applied to the store is logged as a patch (graphstore.js);
  // the picture applies the log in place, the rest re-renders from the
  // store's version. A read starts a new log.
  const patchLog = useRef({ gen: 0, entries: [] });
  const flushTimer = useRef(0);
  const publish = useCallback(() => {
    flushTimer.current = 0;
    setDrawn({ version: storeRef.current.version });
  }, []);
  const queuePatch = useCallback((from, to, p) => {
    patchLog.current.entries.push({ from, to, patch: p });
    picture.current?.applyNow(storeRef.current, from, to, p); // at once, not after a render
    if (!flushTimer.current) flushTimer.current = setTimeout(publish, 0);
  }, [publish]);
  /** Applies one event to the graph on screen; true when it changed it. */
  const applyEvent = useCallback((ev) => {
    const st = storeRef.current;
    const from = st.version;
    const p = st.apply(ev);
    if (!p) return false;
    if (p.replace) return 'replace';
    queuePatch(from, st.version, p);
    return true;
  }, [queuePatch]);

  const markPlanStale = useCallback(() => setPlan((p) => (p && !p.stale ? { ...p, stale: true } : p)), []);

  // read reads the graph on screen (and the project list). The socket is
  // already open: the events of this graph heard meanwhile are applied
  // after the read, those it already holds skipped by seq.
  const retryTimer = useRef(0);
  const read = useCallback(async ({ keep = false } = {}) => {
    const s = scopeRef.current;
    const gen = ++generation.current;
    clearTimeout(retryTimer.current);
    reading.current = [];
    const [g, ps] = await Promise.all([
      api.graph(s).catch((e) => ({ error: e })),
      api.projects().catch(() => null),
    ]);
    if (gen !== generation.current) return;
    if (ps) setProjects(ps);
    const buffered = reading.current ?? [];
    reading.current = null;
    const st = keep && scopeKey(storeRef.current.scope) === scopeKey(s) ? storeRef.current : new GraphStore(s);
    if (g.error) {
      const p = explain(g.error);
      if (p.kind === 'offline') {
        setLoadError('kg is not answering — retrying…');
        retryTimer.current = setTimeout(() => read({ keep }), 2000);
      } else {
        setLoadError(`Could not read ${scopeLabel(s).toLowerCase()}: ${g.error.message}`);
      }
      st.load({ nodes: [], edges: [], meta: {} });
    } else {
      setLoadError('');
      st.load(g);
      for (const ev of buffered) st.apply(ev);
    }
    storeRef.current = st;
    patchLog.current = { gen: patchLog.current.gen + 1, entries: [] };
    setDrawn({ version: st.version });
    setLoaded(true);
    markPlanStale();
    if (!g.error) loadAttention([s]);
    if (focusAfterLoad.current) {
      if (st.nodes.has(focusAfterLoad.current)) setFocusKey((k) => k + 1);
      focusAfterLoad.current = null;
    }
    const pm = pendingMerge.current;
    if (pm && scopeKey(pm.scope) === scopeKey(s)) {
      pendingMerge.current = null;
      const n = st.nodes.get(pm.id);
      if (n) setDialog({ kind: 'merge', node: n, other: pm.other });
    }
  }, [markPlanStale, loadAttention]);

  // ---- the home view -----------------------------------------------------
  const homeTimer = useRef(0);
  const loadHome = useCallback(async () => {
    setHome((h) => ({ ...h, loading: true }));
    const [u, ps] = await Promise.all([
      api.graph({ level: 'user' }).catch((e) => ({ error: e })),
      api.projects().catch(() => null),
    ]);
    if (ps) setProjects(ps);
    const userScope = { level: 'user' };
    const graphs = [{
      scope: userScope, name: 'User graph', slug: 'user-graph', exportURL: api.exportURL(userScope),
      ...(u.error
        ? { unavailable: u.error.message }
        : {
          counts: { ...u.meta.stats }, tokens: u.meta.tokens, max: u.meta.max_tokens, target: u.meta.target_tokens,
        }),
    }];
    for (const p of ps ?? []) {
      const sc = { level: 'project', projectPath: p.project_path };
      graphs.push({
        scope: sc, name: scopeLabel(sc), path: p.project_path, slug: p.slug, exportURL: api.exportURL(sc),
        counts: { active: p.active, archived: p.archived, orphaned: p.orphaned, edges: p.edges },
        tokens: p.tokens, max: p.max_tokens, target: p.target_tokens, lastChange: p.last_change_ts,
      });
    }
    setHome({ graphs, loading: false });
    feed.refresh(graphs.map((g) => g.scope));
    loadAttention(graphs.filter((g) => !g.unavailable).map((g) => g.scope));
  }, [feed, loadAttention]);
  const scheduleHome = useCallback(() => {
    clearTimeout(homeTimer.current);
    homeTimer.current = setTimeout(() => { if (viewRef.current === 'home') loadHome(); }, 1500);
  }, [loadHome]);
  useEffect(() => { if (view === 'home') loadHome(); }, [view, loadHome]);

  // ---- live ----------------------------------------------------------------
  // The events heard since the last frame, applied together, in order: one
  // patch of the store, one picture update and one render for a burst
  // (frames.js). A graph_replaced among them reads the graph again, and the
  // events after it wait for that read, as they would one by one.
  const heard = useCallback((evs) => {
    const here = scopeKey(scopeRef.current);
    let mine = [];
    for (const ev of evs) {
      liveSource.event(ev);
      if (scopeKey(scopeOf(ev.level, ev.project)) === here) mine.push(ev);
    }
    if (viewRef.current === 'home') scheduleHome();
    let changed = false;
    while (mine.length) {
      if (reading.current) { reading.current.push(...mine); break; }
      const st = storeRef.current;
      if (scopeKey(st.scope) !== here) break;
      const r = st.applyAll(mine);
      if (r.patch) { queuePatch(r.from, r.to, r.patch); changed = true; }
      if (!r.replaced) break;
      read({ keep: true }); // reading.current is set at once: the rest waits for the read
      mine = r.rest;
    }
    if (changed) { markPlanStale(); scheduleAttention(); }
  }, [read, scheduleHome, liveSource, queuePatch, markPlanStale, scheduleAttention]);
  const live = useRef(null);
  const events = useRef(null); // the FrameQueue of the events heard
  useEffect(() => {
    const q = new FrameQueue(heard);
    events.current = q;
    const l = new Live(wsURL, {
      onState: (st) => { setConn(st); feed.connected(st.state === 'connected'); },
      onReconnect: () => {
        q.flush(); // what was heard before the connection was lost comes first
        read({ keep: true });
        if (viewRef.current === 'home') loadHome();
      },
      onEvent: (ev) => q.push(ev),
    });
    live.current = l;
    l.start();
    return () => { l.stop(); q.stop(); };
  }, [read, loadHome, heard, feed]);

  // The user graph's ids, while a project is on screen: a project's edge to one of them opens it there.
  const [userIds, setUserIds] = useState(null);
  useEffect(() => {
    if (scope.level !== 'project' || !loaded) return;
    api.graph({ level: 'user' }).then((g) => setUserIds(new Set(g.nodes.map((n) => n.id))), () => setUserIds(null));
  }, [key, loaded]); // eslint-disable-line react-hooks/exhaustive-deps

  // Another graph: nothing of this one stays picked.
  useEffect(() => { setPicked(new Set()); setBulkDone(null); }, [key]);

  // A graph chosen: read it.
  useEffect(() => {
    setLoaded(false);
    setPlan(null);
    read();
  }, [key]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => toHash(view, scope, selected), [view, scope, selected]);
  // An address typed or followed in this tab: go where it says.
  useEffect(() => {
    const onHash = () => {
      const h = fromHash();
      setView(h.view);
      if (scopeKey(h.scope) !== scopeKey(scopeRef.current)) { focusAfterLoad.current = h.node; setScope(h.scope); }
      if (h.node) { setSelected(h.node); setFocusKey((k) => k + 1); }
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  // ---- the compaction plan, read only when shown ------------------------
  const store = storeRef.current;
  const node = selected ? store.nodes.get(selected) ?? null : null;
  const needPlan = view === 'graph' && loaded && (tab === 'plan' || (tab === 'details' && !!node));
  const planTimer = useRef(0);
  useEffect(() => {
    if (!needPlan) return undefined;
    if (plan && plan.key === key && !plan.stale) return undefined;
    const s = scope;
    const fetchPlan = async () => {
      // Not stale while read: a change during the read marks it stale again.
      setPlan((p) => (p?.key === key ? { ...p, stale: false, state: 'loading' } : { key, data: null, stale: false, state: 'loading' }));
      try {
        const data = normalizePlan(await api.plan(s));
        if (scopeKey(scopeRef.current) === scopeKey(s)) setPlan({ key: scopeKey(s), data, stale: false, state: 'ok' });
      } catch (e) {
        if (scopeKey(scopeRef.current) === scopeKey(s)) setPlan({ key: scopeKey(s), data: null, stale: false, state: { error: explain(e).text } });
      }
    };
    // A first read at once; a read after changes once they settle.
    planTimer.current = setTimeout(fetchPlan, plan?.key === key ? PLAN_DELAY : 0);
    return () => clearTimeout(planTimer.current);
  }, [needPlan, key, plan?.stale, plan?.key]); // eslint-disable-line react-hooks/exhaustive-deps

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

  const say = (m) => setMessage(m);

  const noticeKey = useRef(0);
  /** Keeps what kg noticed about a write of the page (a secret redacted, possible duplicates). */
  const notice = (what, r) => {
    const add = noticesOf({ ...what, scopeKey: scopeKey(scopeRef.current) }, r).map((n) => ({ ...n, key: ++noticeKey.current }));
    // A new notice replaces the one of the same type about the same item.
    const same = (n) => n.kind === what.kind && n.id === what.id && add.some((a) => a.type === n.type);
    if (add.length) setNotices((ns) => [...add, ...ns.filter((n) => !same(n))]);
  };

  /** Selects a node; focus brings its local graph into view. */
  const select = (id, { focus = true } = {}) => {
    setSelected(id);
    setTab('details');
    if (focus) setFocusKey((k) => k + 1);
  };

  const chooseGraph = (s) => {
    if (scopeKey(s) === key) return;
    setSelected(null);
    setScope(s);
  };

  /**
   * Opens the merge of node from into node into, of any graph (the home
   * view's duplicates), once the graph is read: the dialog keeps into's id
   * unless the person picks the other.
   */
  const mergeIn = (s, into, from) => {
    const n = storeRef.current.nodes.get(from);
    if (scopeKey(s) === key && n) { setView('graph'); select(from); setDialog({ kind: 'merge', node: n, other: into }); return; }
    pendingMerge.current = { scope: s, id: from, other: into };
    openNode(s, from);
  };

  /** "Run compaction now", after its plan was shown: one run, then the plan read again. */
  const runCompaction = async () => {
    const r = await api.compact(scope);
    const n = (r?.moves ?? []).length;
    say(`Compaction ran: ${n ? `${n} move${n === 1 ? '' : 's'} made` : 'nothing to move'}.`);
    markPlanStale();
    return r;
  };

  /** Opens a node of any graph (a search hit, a change of the home view). */
  const openNode = (s, id) => {
    setView('graph');
    if (scopeKey(s) === key) { if (id) select(id); return; }
    setSelected(id ?? null);
    setTab('details');
    focusAfterLoad.current = id ?? null;
    setScope(s);
  };

  // Applies the answer of the page's own write at once, as its event would.
  const applyLocal = (ev) => {
    events.current?.flush(); // the events heard before this answer come first
    const s = scopeRef.current;
    if (applyEvent({ level: s.level, project: s.level === 'project' ? s.projectPath : null, ...ev })) markPlanStale();
  };

  const act = async (fn, done) => {
    setBusy(true);
    try {
      const r = await fn();
      setDialog(null);
      if (done) say(done(r));
      return r;
    } finally {
      setBusy(false);
    }
  };

  const saveNode = (editing) => (fields, expected) => act(
    async () => {
      const r = await api.putNode(scope, fields, expected);
      applyLocal({ type: 'node_updated', node: r.node });
      notice({ kind: 'node', id: fields.id }, r);
      return r;
    },
    () => { select(fields.id, { focus: !editing }); return `${editing ? 'Saved' : 'Created'} node ${fields.id}.`; },
  );
  const saveEdge = (editing) => (fields) => act(
    async () => {
      const r = await api.putEdge(scope, fields);
      applyLocal({ type: 'edge_updated', edge: r.edge });
      notice({ kind: 'edge', id: `${fields.from} ${fields.rel} ${fields.to}` }, r);
      return r;
    },
    () => `${editing ? 'Saved' : 'Created'} edge ${fields.from} ${fields.rel} ${fields.to}.`,
  );
  const recall = () => act(
    async () => {
      const r = await api.recall(scope, node.id);
      applyLocal({ type: 'node_recalled', node: r.node, rescued: r.rescued ?? [] });
      return r;
    },
    (r) => `Recalled ${node.id}: it is active again${r?.rescued?.length ? `; ${r.rescued.join(', ')} came back as archived` : ''}.`,
  ).catch((e) => say(`Could not recall ${node.id}: ${explain(e, { id: node.id }).text}`));

  const merged = (r) => {
    for (const ev of eventsOfMerge(r)) applyLocal(ev);
    notice({ kind: 'node', id: r.into }, r);
    // The merge stays undoable from its notice while the server keeps a change log.
    const undo = historyOn && r.seqs ? [{ type: 'merged', kind: 'node', id: r.into, from: r.from, range: r.seqs, scopeKey: key, key: ++noticeKey.current }] : [];
    setNotices((ns) => [...undo, ...ns.filter((n) => n.id !== r.from)]);
    setDialog(null);
    select(r.into);
    say(mergeSummary(r));
  };

  const doSearch = async (e, again) => {
    e?.preventDefault();
    const q = (again ?? query).trim();
    if (again) setQuery(again);
    if (!q) { setSearch(null); return; }
    setView('graph');
    try {
      const r = await api.searchAll(q);
      setSearch({ query: q, ...r });
    } catch (err) {
      setSearch({ query: q, hits: [], corrections: [], nearest: [], unavailable: [], error: explain(err, { what: 'The search' }).text });
    }
  };

  const projectPaths = projects.map((p) => p.project_path ?? p.path).filter(Boolean);
  if (scope.level === 'project' && !projectPaths.includes(scope.projectPath)) projectPaths.push(scope.projectPath);
  const graphName = (s) => (s.level === 'user' ? 'User graph' : scopeLabel(s));
  // What tells the projects apart comes first, so a narrow selector still shows it.
  const tails = distinctTails(projectPaths);
  const hitsHere = useMemo(() => (search
    ? search.hits.filter((h) => scopeKey(scopeOf(h.level, h.project)) === key).map((h) => h.id)
    : null), [search, key]);
  const rankData = plan?.key === key ? plan.data : null;
  // Sessions named for a person wherever an id would be shown (sessions.js).
  const sessionInfo = useMemo(() => sessionsOf(changes), [changes]);
  const nameSession = (id) => sessionName(withStats(sessionInfo.get(id), sessionStats[id]), id);
  // A node's history (History.jsx): a session's changes, or the write of an entry, to undo.
  const historyProps = {
    scope, api, historyOn, onHistoryOff: () => setHistoryOn(false), nameSession,
    onSession: (session) => setDialog({ kind: 'undo', session }),
    onUndoChange: (entry) => setDialog({ kind: 'undo', range: { from: entry.seq, to: entry.seq, write: true } }),
  };

  return (
    <div class={`app view-${view}`} data-loaded={loaded ? 'true' : 'false'} data-scope={key} data-view={view}
      data-history={historyOn === null ? 'unknown' : String(historyOn)}>
      <a class="skip" href={view === 'home' ? '#home-graphs-title' : '#node-list-panel'}>Skip to the content</a>
      <header class="top">
        <h1>kg <span class="sub">memory graph</span></h1>
        <nav class="views" aria-label="Views">
          <button type="button" aria-current={view === 'home' ? 'page' : undefined} onClick={() => setView('home')}>Home</button>
          <button type="button" aria-current={view === 'graph' ? 'page' : undefined} onClick={() => setView('graph')}>Graph</button>
        </nav>
        <div class="graph-pick">
          <label for="graph-select">Graph</label>
          <select id="graph-select" value={scope.level === 'user' ? 'user' : scope.projectPath}
            onChange={(e) => { const v = e.currentTarget.value; chooseGraph(v === 'user' ? { level: 'user' } : { level: 'project', projectPath: v }); setView('graph'); }}>
            <option value="user">User graph</option>
            {projectPaths.map((p) => <option key={p} value={p} title={p}>{projectOption(p, tails.get(p))}</option>)}
          </select>
        </div>
        <form role="search" class="search" onSubmit={doSearch}>
          <label for="search-input" class="visually-hidden">Search every graph</label>
          <input id="search-input" type="search" value={query} placeholder="Search every graph (press /)"
            onInput={(e) => setQuery(e.currentTarget.value)} maxLength={1000} />
          <button type="submit">Search</button>
        </form>
        <div class="top-actions">
          <button type="button" class="primary" onClick={() => { setView('graph'); setDialog({ kind: 'node' }); }}>New node</button>
          <button type="button" onClick={() => { setView('graph'); setDialog({ kind: 'edge', from: selected ?? '' }); }}>New edge</button>
          {auth && <form method="post" action="/ui/logout"><button type="submit">Log out</button></form>}
        </div>
        <Status conn={conn} onRetry={() => live.current?.restart()} />
      </header>
      {loadError && view === 'graph' && <p class="error banner" role="alert">{loadError}</p>}
      <Notices notices={notices.filter((n) => n.scopeKey === key)} isNode={(id) => store.nodes.has(id)}
        onOpen={(id) => { setView('graph'); select(id); }}
        onMerge={(id, other) => { const n = store.nodes.get(id); if (n) { setView('graph'); setDialog({ kind: 'merge', node: n, other }); } }}
        onUndo={(range) => setDialog({ kind: 'undo', range })}
        onDismiss={(k) => setNotices((ns) => ns.filter((n) => n.key !== k))} />
      {/* Both views stay mounted, one hidden, so the picture keeps its layout. */}
      <main class="body home-body" hidden={view !== 'home'}>
        {view === 'home' && <Attention graphs={home.graphs} attention={attention} onOpen={openNode} onMerge={mergeIn} />}
        {view === 'home' && (
            <Home graphs={home.graphs} loading={home.loading} changes={changes} day={historyOn !== false} nameSession={nameSession} onOpen={openNode} onRefresh={loadHome}
              onSession={historyOn ? (s, session) => setDialog({ kind: 'undo', session, scope: s }) : null}
              onImported={(g, r) => {
                say(`Imported into ${g.name}: ${r.nodes_written} nodes and ${r.edges_written} edges written, ${r.nodes_deleted} nodes deleted, ${r.unchanged} unchanged.`);
                loadHome();
                if (scopeKey(g.scope) === key) read({ keep: true });
              }} />
        )}
      </main>
      <main class="body graph-body" hidden={view !== 'graph'}>
            <div class="panel list-panel" id="node-list-panel" tabIndex={-1}>
              {search
                ? <SearchResults search={search} currentKey={key} graphName={graphName} selected={selected} onOpen={openNode} attention={attention}
                    onSearch={(q) => doSearch(null, q)}
                    onClear={() => { setSearch(null); setQuery(''); }} />
                : (
                  <>
                    {bulkDone && <BulkDone key={bulkDone.sessionID} result={bulkDone} scope={scope} api={api} onClose={() => setBulkDone(null)} />}
                    <BulkBar picked={picked} scope={scope} api={api} onClear={() => setPicked(new Set())}
                      onDone={(r) => { setPicked(new Set()); setBulkDone(r); }} />
                    <NodeList store={store} version={drawn.version} scope={scope} selected={selected} onSelect={(id) => select(id)}
                      picked={picked} onPick={(id, on) => setPicked((p) => { const n = new Set(p); if (on) n.add(id); else n.delete(id); return n; })} />
                  </>
                )}
            </div>
            <div class="panel graph-panel">
              <GraphView store={store} version={drawn.version} log={patchLog} selected={selected} focusKey={focusKey}
                hits={hitsHere} label={graphName(scope)} resetKey={key} phone={phone} pictureRef={picture}
                onSelect={(id) => select(id, { focus: false })} />
            </div>
            <aside class="panel side" aria-label="Selected node and compaction plan">
              <div role="tablist" class="tabs" aria-label="Side panel">
                <button type="button" role="tab" id="tab-details" aria-controls="panel-details" aria-selected={tab === 'details'} onClick={() => setTab('details')}>Node</button>
                <button type="button" role="tab" id="tab-plan" aria-controls="panel-plan" aria-selected={tab === 'plan'} onClick={() => setTab('plan')}>
                  Compaction plan{rankData?.moves?.length ? ` (${rankData.moves.length})` : ''}
                </button>
              </div>
              <div role="tabpanel" id="panel-details" aria-labelledby="tab-details" hidden={tab !== 'details'}>
                {selected && !node && loaded
                  ? (
                    <>
                      <p class="empty">Node {selected} is not in this graph (any more).</p>
                      {/* Its history says what became of it, and can undo its deletion. */}
                      <NodeHistory node={{ id: selected }} {...historyProps} />
                    </>
                  )
                  : (
                    <Details node={node} store={store} busy={busy}
                      rank={rankData?.ranking?.get(selected)} move={rankData?.moves?.find((m) => m.id === selected)}
                      rankState={plan?.key === key ? plan.state : 'loading'}
                      onSelect={(id) => select(id)}
                      onEdit={() => setDialog({ kind: 'node', node })}
                      onDelete={() => setDialog({ kind: 'delete-node', node })}
                      onRecall={recall}
                      onNewEdge={() => setDialog({ kind: 'edge', from: node.id })}
                      onMerge={() => setDialog({ kind: 'merge', node })}
                      userIds={userIds} onOpenUser={(id) => openNode({ level: 'user' }, id)}
                      attention={attention.get(key)} onMergeWith={(other) => setDialog({ kind: 'merge', node, other })}
                      {...historyProps}
                      onEditEdge={(edge) => setDialog({ kind: 'edge', edge })}
                      onDeleteEdge={(edge) => setDialog({ kind: 'delete-edge', edge })} />
                  )}
              </div>
              <div role="tabpanel" id="panel-plan" aria-labelledby="tab-plan" hidden={tab !== 'plan'}>
                {tab === 'plan' && (plan?.state?.error
                  ? <p class="error">The plan could not be read: {plan.state.error}</p>
                  : <Plan plan={rankData} ids={store.nodes} onSelect={(id) => select(id)} onRun={runCompaction} />)}
              </div>
            </aside>
      </main>
      <p class="message" role="status" aria-live="polite">{message}</p>

      {dialog?.kind === 'node' && (
        <NodeForm node={dialog.node} getCurrent={(id) => storeRef.current.nodes.get(id) ?? null}
          onSave={saveNode(dialog.node)} onOpen={(id) => select(id)} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === 'edge' && <EdgeForm edge={dialog.edge} from={dialog.from} ids={[...store.nodes.keys()].sort()} onSave={saveEdge(dialog.edge)} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'merge' && (
        <MergeDialog node={dialog.node} other={dialog.other} scope={scope} api={api}
          nodes={() => storeRef.current.nodes.values()} getNode={(id) => storeRef.current.nodes.get(id) ?? null}
          onMerged={merged} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === 'undo' && (
        <UndoDialog nameSession={nameSession} session={dialog.session} range={dialog.range} scope={dialog.scope ?? scope} api={api} onClose={() => setDialog(null)}
          onUndone={(r) => {
            setNotices((ns) => ns.filter((n) => !(n.type === 'merged' && n.range === dialog.range)));
            say(undoSummary(r));
          }} />
      )}
      {dialog?.kind === 'delete-node' && (
        <Confirm title={`Delete node ${dialog.node.id}?`} action="Delete node" id={dialog.node.id}
          message={`This deletes ${dialog.node.id} and every edge of this graph that touches it.${historyOn ? ' Its history stays, and can undo it.' : ' It cannot be undone here.'}`}
          onClose={() => setDialog(null)}
          onConfirm={() => act(async () => {
            const r = await api.deleteNode(scope, dialog.node.id);
            applyLocal({ type: 'node_deleted', node_id: dialog.node.id });
            return r;
          }, (r) => { if (!historyOn) setSelected(null); return `Deleted node ${dialog.node.id}${r?.edges_deleted ? ` and ${r.edges_deleted} edge${r.edges_deleted === 1 ? '' : 's'}` : ''}.`; })} />
      )}
      {dialog?.kind === 'delete-edge' && (
        <Confirm title="Delete this edge?" action="Delete edge"
          message={`${dialog.edge.from} ${dialog.edge.rel} ${dialog.edge.to}`}
          onClose={() => setDialog(null)}
          onConfirm={() => act(async () => {
            const r = await api.deleteEdge(scope, dialog.edge);
            applyLocal({ type: 'edge_deleted', from: dialog.edge.from, to: dialog.edge.to, rel: dialog.edge.rel });
            return r;
          }, () => `Deleted edge ${dialog.edge.from} ${dialog.edge.rel} ${dialog.edge.to}.`)} />
      )}
    </div>
  );
}
