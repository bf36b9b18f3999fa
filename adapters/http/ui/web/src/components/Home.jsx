// The home view: every graph with its counts per tier and its token meter
// (estimate against budget and target), export and import, and the last 24
// hours of changes by session — each session named for a person
// (sessions.js), each change linking to its node; by agents and by
// compaction runs (daylog.js and history.js say where they come from).
import { useState } from 'preact/hooks';
import { scopeKey, scopeOf } from '../api.js';
import { formatTime } from '../format.js';
import { ImportForm } from './ImportForm.jsx';
import { lastDay } from '../daylog.js';

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

const GRAPH_OPS = { project_mv: 'moved with its project', migrate: 'migrated' };

function What({ e, onOpen }) {
  switch (e.kind) {
    case 'node': return <>wrote node <NodeLink e={e} id={e.id} onOpen={onOpen} />{e.version ? ` (v${e.version})` : ''}</>;
    case 'recalled': return <>recalled <NodeLink e={e} id={e.id} onOpen={onOpen} />{e.rescued?.length ? <>, bringing back <Ids e={e} ids={e.rescued} onOpen={onOpen} /></> : ''}</>;
    case 'edge': return <>linked <NodeLink e={e} id={e.edge.from} onOpen={onOpen} /> <span class="rel">{e.edge.rel}</span> {e.edge.to}</>;
    case 'deleted_node': return <>deleted node <strong>{e.id}</strong>{e.edges ? ` and ${e.edges} edge${e.edges === 1 ? '' : 's'}` : ''}</>;
    case 'deleted_edge': return <>deleted the edge {e.edge.from} <span class="rel">{e.edge.rel}</span> {e.edge.to}</>;
    case 'replaced': return <>changed {e.count} items at once (an import)</>;
    case 'undone': return <>put back {e.item === 'edge' && e.edge ? <>the edge {e.edge.from} <span class="rel">{e.edge.rel}</span> {e.edge.to}</> : <>node <NodeLink e={e} id={e.id} onOpen={onOpen} /></>} (an undo)</>;
    case 'graph': return <>{GRAPH_OPS[e.op] ?? e.op}{e.detail ? ` (${e.detail})` : ''}</>;
    case 'removed': return <>removed the project's memory ({e.nodes} node{e.nodes === 1 ? '' : 's'}, {e.edges} edge{e.edges === 1 ? '' : 's'})</>;
    case 'archived': return <>archived <Ids e={e} ids={e.ids} onOpen={onOpen} /> by hand</>;
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

const SHOWN = 20; // changes listed per session; the rest are behind its "Changes and undo…"

/**
 * The changes by session, the session with the latest change first; the
 * changes without a session (a compaction run of the server's, an import)
 * are a group of their own.
 */
function bySession(changes) {
  const groups = new Map();
  for (const e of changes) {
    const k = e.session ?? '';
    if (!groups.has(k)) groups.set(k, { session: e.session ?? null, list: [] });
    groups.get(k).list.push(e);
  }
  return [...groups.values()];
}

function SessionGroup({ g, nameSession, names, onOpen, onSession }) {
  const e0 = g.list[0];
  const name = g.session ? nameSession(g.session) : 'Without a session (compaction runs, imports, the server)';
  const shown = g.list.slice(0, SHOWN);
  return (
    <section class="session-group" data-session={g.session ?? ''} aria-label={name}>
      <header class="session-head">
        <h3 class="session-name" title={g.session ? `session ${g.session}` : undefined}>{name}</h3>
        <span class="hint">{g.list.length} change{g.list.length === 1 ? '' : 's'}, the latest at {clock(e0.ts)}</span>
        {g.session && onSession && (
          <button type="button" class="small" onClick={() => onSession(scopeOf(e0.level, e0.project), g.session)}
            aria-label={`Changes and undo of ${name}`}>Changes and undo…</button>
        )}
      </header>
      <ol class="changes">
        {shown.map((e) => (
          <li key={e.key} class={`change change-${e.kind}`} data-kind={e.kind}>
            <time dateTime={new Date(e.ts * 1000).toISOString()}>{clock(e.ts)}</time>
            <span class="graph-name">{names(e)}</span>
            <span class="what"><What e={e} onOpen={onOpen} /></span>
          </li>
        ))}
        {g.list.length > shown.length && <li class="hint">and {g.list.length - shown.length} more</li>}
      </ol>
    </section>
  );
}

const clock = (ts) => new Date(ts * 1000).toISOString().slice(11, 19);

function Changes({ changes, day, nameSession, names, onOpen, onSession }) {
  if (!changes.length) {
    return day
      ? <p class="empty" data-testid="no-changes">Nothing changed in the last 24 hours.</p>
      : <p class="empty" data-testid="no-changes">No changes heard yet. Changes agents make while this page is open, or since your last visit, are listed here.</p>;
  }
  return bySession(changes).map((g) => (
    <SessionGroup key={g.session ?? ''} g={g} nameSession={nameSession} names={names} onOpen={onOpen} onSession={onSession} />
  ));
}

export function Home({ graphs, loading, changes, day, nameSession, onOpen, onImported, onRefresh, onSession }) {
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
        <h2 id="home-changes-title">{day ? 'The last 24 hours, by session' : 'Latest changes, by session'}</h2>
        <Changes changes={day ? lastDay(changes) : changes} day={day} nameSession={nameSession} names={names} onOpen={onOpen} onSession={onSession} />
      </section>
      {importing && (
        <ImportForm graph={importing} onClose={() => setImporting(null)}
          onDone={(r) => { setImporting(null); onImported(importing, r); }} />
      )}
    </div>
  );
}
