// The change log on the page (changelog.js): a node's history in the side
// panel, and a session's changes in a dialog with an undo that is previewed
// (dry run) before it is made. Both read GET /api/history; the undo is
// POST /api/undo, whose writes come back as ordinary events. A server that
// keeps no change log answers 404, and the page then shows none of this.
import { useEffect, useState } from 'preact/hooks';
import { Dialog, Problem } from './Dialog.jsx';
import { explain } from '../errors.js';
import { formatTime } from '../format.js';
import { CHANGE_WINDOW, changeRange, diffRows, entriesOf, entryAction, historyUnavailable, itemName, undoStep, undoSummary } from '../changelog.js';

const when = (t) => (typeof t === 'string' ? t.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC') : formatTime(t));

const bareName = (id) => `session ${id.slice(0, 8)}`;

function Entry({ e, showItem, onSession, onUndo, nameSession = bareName }) {
  const rows = diffRows(e);
  return (
    <li class="history-entry" data-seq={e.seq} data-op={e.op}>
      <div class="history-line">
        <time>{when(e.time)}</time>{' '}
        {showItem && <span class="item">{itemName(e)} </span>}
        <strong>{entryAction(e)}</strong>
        {e.detail && <span class="hint"> ({e.detail})</span>}
        {e.session_id
          ? <> by{' '}<button type="button" class="link session-link" onClick={() => onSession(e.session_id)}
              title={`session ${e.session_id}`} aria-label={`Changes of session ${e.session_id}`}>{nameSession(e.session_id)}</button></>
          : <span class="hint"> without a session</span>}
        {e.principal && <span class="hint"> ({e.principal})</span>}
        {onUndo && e.op !== 'move' && (
          <>{' '}<button type="button" class="small" onClick={() => onUndo(e)} aria-label={`Undo change ${e.seq}…`}>Undo…</button></>
        )}
      </div>
      {rows.length > 0 && (
        <table class="diff">
          <tbody>
            {rows.map((r, i) => (
              <tr key={i} data-field={r.field}>
                <th scope="row">{r.field}</th>
                <td class="before">{r.before}</td>
                <td class="after">{r.after}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}

/**
 * Reads a page of the change log: {state: 'loading'|'ok'|'off'|{error},
 * entries, next}. While the same item (of) is read again after a change,
 * its entries stay on screen; another item's are never shown for it.
 */
function useHistory(api, scope, query, deps, { of = '', onUnavailable, skip = false } = {}) {
  const [h, setH] = useState({ state: 'loading', entries: [], of });
  useEffect(() => {
    if (skip) return undefined;
    let live = true;
    setH((cur) => (cur.of === of ? { ...cur, state: 'loading' } : { state: 'loading', entries: [], of }));
    api.history(scope, query).then(
      (r) => { if (live) setH({ state: 'ok', entries: entriesOf(r), next: r?.next_before_seq ?? null, of }); },
      (err) => {
        if (!live) return;
        if (historyUnavailable(err)) { setH({ state: 'off', entries: [], of }); onUnavailable?.(); return; }
        setH({ state: { error: explain(err, { what: 'Reading the history' }).text }, entries: [], of });
      },
    );
    return () => { live = false; };
  }, deps); // eslint-disable-line react-hooks/exhaustive-deps
  return h.of === of ? h : { state: 'loading', entries: [], of };
}

const undoTitle = (session, asked, nameSession) => {
  if (session) return `Changes of ${nameSession ? nameSession(session) : `session ${session}`}`;
  return asked.write || asked.from === asked.to ? `Undo change ${asked.from}` : `Undo changes ${asked.from}–${asked.to}`;
};

/** The side panel's section: what changed in the node, newest first. */
export function NodeHistory({ node, scope, api, historyOn, onHistoryOff, onSession, onUndoChange, nameSession }) {
  const key = `${scope.level}|${scope.projectPath ?? ''}|${node.id}`;
  const h = useHistory(api, scope, { id: node.id, limit: 20 }, [key, node.seq, historyOn], { of: key, onUnavailable: onHistoryOff });
  if (historyOn !== true || h.state === 'off') return null;
  return (
    <section aria-labelledby="history-title" class="history-section">
      <h3 id="history-title">History</h3>
      {h.state === 'loading' && !h.entries.length && <p class="empty">Reading the history…</p>}
      {h.state?.error && <p class="error">{h.state.error}</p>}
      {h.state === 'ok' && !h.entries.length && <p class="empty">No change of this node is in the log.</p>}
      {h.entries.length > 0 && (
        <ol class="history" data-testid="node-history">
          {h.entries.map((e) => (
            <Entry key={e.seq} e={e} showItem={e.item !== 'node' || e.id !== node.id} onSession={onSession} onUndo={onUndoChange} nameSession={nameSession} />
          ))}
        </ol>
      )}
    </section>
  );
}

/** What an undo dialog reads: a session's entries, or the log around a seq range. */
function undoQuery(session, range) {
  if (session) return { sessionID: session, limit: 200 };
  const from = range.write ? Math.max(1, range.from - CHANGE_WINDOW) : range.from;
  const to = range.write ? range.to + CHANGE_WINDOW : range.to;
  return { sinceSeq: from - 1, beforeSeq: to + 1, limit: Math.min(500, to - from + 1) };
}

/**
 * An undo, previewed then made, of a session's changes (session), or of a
 * seq range (range: {from, to}, a merge's), or of the whole write an entry
 * belongs to (range: {from: seq, to: seq, write: true}): each listed from
 * the log first.
 */
export function UndoDialog({ session, range: asked, scope, api, onUndone, onClose, nameSession }) {
  const of = session ?? `${asked.from}-${asked.to}`;
  const read = useHistory(api, scope, undoQuery(session, asked), [of], { of });
  const range = session || !asked.write ? asked : (changeRange(read.entries, asked.from) ?? asked);
  const h = session ? read : { ...read, entries: read.entries.filter((e) => e.seq >= range.from && e.seq <= range.to) };
  const [plan, setPlan] = useState(null);
  const [done, setDone] = useState(null);
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);

  const run = async (dryRun) => {
    setBusy(true);
    setProblem(null);
    try {
      const r = await api.undo(scope, session ? { sessionID: session } : { seqRange: { from: range.from, to: range.to } }, dryRun);
      if (dryRun) setPlan(r); else { setDone(r); onUndone(r); }
    } catch (err) {
      setProblem(explain(err, { what: 'The undo' }));
    } finally {
      setBusy(false);
    }
  };
  const steps = (r) => (
    <>
      {r.applied?.length > 0 && <ul class="undo-applied" data-testid="undo-applied">{r.applied.map((s, i) => <li key={i}>{undoStep(s)}</li>)}</ul>}
      {r.skipped?.length > 0 && (
        <>
          <h4>Left as they are</h4>
          <ul class="undo-skipped" data-testid="undo-skipped">{r.skipped.map((s, i) => <li key={i}>{itemName(s)}: {s.reason}</li>)}</ul>
        </>
      )}
    </>
  );
  return (
    <Dialog title={undoTitle(session, asked, nameSession)} onClose={onClose}>
      {asked?.write && read.state === 'ok' && range.to > range.from && (
        <p data-testid="undo-write">The same write changed {h.entries.length} items (changes {range.from}–{range.to}); all of them are undone together.</p>
      )}
      {h.state === 'loading' && <p class="empty">Reading the session's changes…</p>}
      {h.state?.error && <p class="error">{h.state.error}</p>}
      {h.state === 'ok' && !h.entries.length && <p class="empty">No such change is in the log of this graph.</p>}
      {plan && !done && (
        <section class="undo-plan" aria-label="What the undo does" data-testid="undo-plan">
          <p>{undoSummary(plan)}</p>
          {steps(plan)}
        </section>
      )}
      {done && (
        <section class="undo-done" aria-label="What the undo did" data-testid="undo-done">
          <p role="status">{undoSummary(done)}</p>
          {steps(done)}
        </section>
      )}
      <Problem problem={problem} />
      <div class="form-actions">
        {!plan && !done && (
          <button type="button" class="danger" disabled={busy || !h.entries.length} onClick={() => run(true)}>
            {session ? "Undo this session's changes…" : asked.write || asked.from === asked.to ? 'Undo this change…' : 'Undo these changes…'}
          </button>
        )}
        {plan && !done && <button type="button" class="danger" disabled={busy || !plan.applied?.length} onClick={() => run(false)}>Undo</button>}
        <button type="button" onClick={onClose}>{done ? 'Close' : 'Cancel'}</button>
      </div>
      {/* The changes last: a long list never pushes the undo out of reach. */}
      {h.entries.length > 0 && (
        <ol class="history" data-testid="session-history">
          {h.entries.map((e) => <Entry key={e.seq} e={e} showItem onSession={() => {}} nameSession={nameSession} />)}
        </ol>
      )}
    </Dialog>
  );
}
