// The home view: every graph with its counts per tier and its token meter
// (estimate against budget and target), export and import, and the latest
// changes — by agents and by compaction runs, each naming its session and
// linking to the node (history.js says where they come from).
import { useState } from 'preact/hooks';
import { scopeKey, scopeOf } from '../api.js';
import { formatTime } from '../format.js';
import { ImportForm } from './ImportForm.jsx';

const fmt = (n) => (typeof n === 'number' ? n.toLocaleString('en') : '—');

function Meter({ tokens, max, target }) {
  if (typeof tokens !== 'number' || !max) return <p class="meter-none">No token figures.</p>;
  const pct = (v) => `${Math.min(100, (v / max) * 100).toFixed(1)}%`;
  const over = tokens > max;
  return (
    <div class="tokens">
      <div class={`meter${over ? ' over' : tokens > target ? ' high' : ''}`} role="meter" aria-label="Token estimate"
        aria-valuemin={0} aria-valuemax={max} aria-valuenow={tokens} aria-valuetext={`${tokens} of ${max} tokens`}>
        <span class="meter-fill" style={{ width: pct(tokens) }} />
        {target ? <span class="meter-target" style={{ left: pct(target) }} title={`target ${target}`} /> : null}
      </div>
      <p class="meter-text" data-testid="tokens">
        <strong>{fmt(tokens)}</strong> of {fmt(max)} tokens{target ? `, target ${fmt(target)}` : ''}
        {over ? ' — over budget: the next write compacts it' : ''}
      </p>
    </div>
  );
}

function GraphCard({ g, onOpen, onImport }) {
  const c = g.counts ?? {};
  return (
    <li class="card" data-graph={scopeKey(g.scope)}>
      <header class="card-head">
        <h3>{g.name}</h3>
        {g.path && <code class="card-path">{g.path}</code>}
      </header>
      {g.unavailable
        ? <p class="error" role="alert">Could not read it: {g.unavailable}</p>
        : (
          <>
            <dl class="counts">
              <div><dt>active</dt><dd data-testid="count-active">{fmt(c.active)}</dd></div>
              <div><dt>archived</dt><dd data-testid="count-archived">{fmt(c.archived)}</dd></div>
              <div><dt>orphaned</dt><dd data-testid="count-orphaned">{fmt(c.orphaned)}</dd></div>
              <div><dt>edges</dt><dd data-testid="count-edges">{fmt(c.edges)}</dd></div>
            </dl>
            <Meter tokens={g.tokens} max={g.max} target={g.target} />
            {g.lastChange ? <p class="card-last">Last change {formatTime(g.lastChange)}</p> : null}
          </>
        )}
      <div class="card-actions">
        <button type="button" class="primary" onClick={() => onOpen(g.scope)}>Open</button>
        <a class="button" href={g.exportURL} download={`${g.slug || 'user-graph'}.kg.json`}>Export</a>
        <button type="button" onClick={() => onImport(g)}>Import…</button>
      </div>
    </li>
  );
}

const who = (s) => (s ? <span class="who" title={`session ${s}`}>session {s.slice(0, 8)}</span> : <span class="who">no session</span>);

/** The session of a change: a button to its changes and their undo, when the server keeps a change log. */
function Who({ e, onSession }) {
  if (!e.session || !onSession) return who(e.session);
  return (
    <button type="button" class="link who" title={`session ${e.session}: its changes, and undo`}
      onClick={() => onSession(scopeOf(e.level, e.project), e.session)}>session {e.session.slice(0, 8)}</button>
  );
}

function NodeLink({ e, id, onOpen }) {
  return <button type="button" class="link" onClick={() => onOpen(scopeOf(e.level, e.project), id)}>{id}</button>;
}

function Ids({ e, ids, onOpen }) {
  const shown = ids.slice(0, 12);
  return (
    <>
      {shown.map((id, i) => <span key={id}>{i ? ', ' : ''}<NodeLink e={e} id={id} onOpen={onOpen} /></span>)}
      {ids.length > shown.length ? ` and ${ids.length - shown.length} more` : ''}
    </>
  );
}

function What({ e, onOpen }) {
  switch (e.kind) {
    case 'node': return <>wrote node <NodeLink e={e} id={e.id} onOpen={onOpen} />{e.version ? ` (v${e.version})` : ''}</>;
    case 'recalled': return <>recalled <NodeLink e={e} id={e.id} onOpen={onOpen} />{e.rescued?.length ? <>, bringing back <Ids e={e} ids={e.rescued} onOpen={onOpen} /></> : ''}</>;
    case 'edge': return <>linked <NodeLink e={e} id={e.edge.from} onOpen={onOpen} /> <span class="rel">{e.edge.rel}</span> {e.edge.to}</>;
    case 'deleted_node': return <>deleted node <strong>{e.id}</strong>{e.edges ? ` and ${e.edges} edge${e.edges === 1 ? '' : 's'}` : ''}</>;
    case 'deleted_edge': return <>deleted the edge {e.edge.from} <span class="rel">{e.edge.rel}</span> {e.edge.to}</>;
    case 'replaced': return <>changed {e.count} items at once (an import)</>;
    case 'removed': return <>removed the project's memory ({e.nodes} node{e.nodes === 1 ? '' : 's'}, {e.edges} edge{e.edges === 1 ? '' : 's'})</>;
    case 'compacted': {
      if (e.counts) {
        const parts = Object.entries(e.counts).filter(([, n]) => n).map(([k, n]) => `${k} ${n}`);
        return <>compaction: {parts.join(', ')}</>;
      }
      const m = e.moves;
      const parts = [['archived', m.archived], ['restored', m.restored], ['orphaned', m.orphaned], ['deleted', m.deleted]].filter(([, l]) => l.length);
      const total = parts.reduce((n, [, l]) => n + l.length, 0);
      return (
        <>compaction {parts.map(([k, l], i) => <span key={k}>{i ? '; ' : ''}{k} <Ids e={e} ids={l} onOpen={onOpen} /></span>)}
          {e.why?.length
            ? (
              <ul class="why" aria-label="Why compaction moved them">
                {e.why.map((w) => (
                  <li key={w.id} data-id={w.id}>
                    <NodeLink e={e} id={w.id} onOpen={onOpen} /> {w.from} → {w.to}: <span class="reason">{w.reason}</span>
                  </li>
                ))}
                {total > e.why.length && <li>and {total - e.why.length} more</li>}
              </ul>
            )
            : <span class="hint"> — select a node to see why it ranks where it does</span>}</>
      );
    }
    default: return <>{e.kind}</>;
  }
}

function day(ts) {
  const d = new Date(ts * 1000);
  const today = new Date();
  const y = new Date(today); y.setDate(today.getDate() - 1);
  if (d.toDateString() === today.toDateString()) return 'Today';
  if (d.toDateString() === y.toDateString()) return 'Yesterday';
  return d.toISOString().slice(0, 10);
}

function Changes({ changes, names, onOpen, onSession }) {
  if (!changes.length) {
    return <p class="empty" data-testid="no-changes">No changes heard yet. Changes agents make while this page is open, or since your last visit, are listed here.</p>;
  }
  const groups = [];
  for (const e of changes.slice(0, 120)) {
    const d = day(e.ts);
    if (!groups.length || groups[groups.length - 1].day !== d) groups.push({ day: d, list: [] });
    groups[groups.length - 1].list.push(e);
  }
  return groups.map((g) => (
    <section key={g.day} aria-label={g.day}>
      <h3 class="day">{g.day}</h3>
      <ol class="changes">
        {g.list.map((e) => (
          <li key={e.key} class={`change change-${e.kind}`} data-kind={e.kind}>
            <time dateTime={new Date(e.ts * 1000).toISOString()}>{new Date(e.ts * 1000).toISOString().slice(11, 19)}</time>
            <span class="graph-name">{names(e)}</span>
            <Who e={e} onSession={onSession} />
            <span class="what"><What e={e} onOpen={onOpen} /></span>
          </li>
        ))}
      </ol>
    </section>
  ));
}

export function Home({ graphs, loading, changes, onOpen, onImported, onRefresh, onSession }) {
  const [importing, setImporting] = useState(null);
  const names = (e) => {
    const k = scopeKey(scopeOf(e.level, e.project));
    return graphs.find((g) => scopeKey(g.scope) === k)?.name ?? (e.level === 'user' ? 'User graph' : e.project);
  };
  return (
    <div class="home" data-loading={loading ? 'true' : 'false'}>
      <section class="home-graphs" aria-labelledby="home-graphs-title">
        <div class="section-head">
          <h2 id="home-graphs-title">Graphs</h2>
          <button type="button" class="small" onClick={onRefresh}>Refresh</button>
        </div>
        <ul class="cards">
          {graphs.map((g) => <GraphCard key={scopeKey(g.scope)} g={g} onOpen={onOpen} onImport={setImporting} />)}
        </ul>
      </section>
      <section class="home-changes" aria-labelledby="home-changes-title">
        <h2 id="home-changes-title">Latest changes</h2>
        <Changes changes={changes} names={names} onOpen={onOpen} onSession={onSession} />
      </section>
      {importing && (
        <ImportForm graph={importing} onClose={() => setImporting(null)}
          onDone={(r) => { setImporting(null); onImported(importing, r); }} />
      )}
    </div>
  );
}
