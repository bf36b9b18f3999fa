// Bulk actions on the nodes picked in the list (bulk.js): export them,
// archive them, merge them into one, delete them — each write under a session of its own,
// so the change log records the action as one session and one undo puts it
// all back. What was done, and its Undo, stay on screen until dismissed.
import { useState } from 'preact/hooks';
import { Dialog, Problem } from './Dialog.jsx';
import { explain } from '../errors.js';
import { pickedDocument, pickedFileName, runArchive, runBulk } from '../bulk.js';
import { undoSummary } from '../changelog.js';

function download(name, doc) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The confirmation of a delete or a merge of the picked nodes. */
function BulkDialog({ kind, ids, scope, api, onDone, onClose }) {
  const [keep, setKeep] = useState(ids[0]);
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);
  const go = async () => {
    setBusy(true);
    setProblem(null);
    try {
      const r = kind === 'delete'
        ? await runBulk(api, scope, ids, (id, sid) => api.deleteNode(scope, id, sid))
        : await runBulk(api, scope, ids.filter((id) => id !== keep), (id, sid) => api.mergeNodes(scope, { into: keep, from: id, sessionID: sid }, false));
      onDone({ kind, keep, ...r });
    } catch (err) {
      setProblem(explain(err, { what: kind === 'delete' ? 'The delete' : 'The merge' }));
      setBusy(false);
    }
  };
  const title = kind === 'delete' ? `Delete ${ids.length} nodes` : `Merge ${ids.length} nodes into one`;
  return (
    <Dialog title={title} onClose={onClose}>
      {kind === 'delete'
        ? <p>Delete {ids.join(', ')} and their edges? The change log keeps them: one undo puts them all back.</p>
        : (
          <>
            <label>Keep
              <select value={keep} onChange={(e) => setKeep(e.currentTarget.value)} aria-label="The node to keep">
                {ids.map((id) => <option key={id} value={id}>{id}</option>)}
              </select>
            </label>
            <p>The others ({ids.filter((id) => id !== keep).join(', ')}) are merged into {keep} one after another: their notes
              and touches united, their edges rewired, then deleted. One undo puts them all back.</p>
          </>
        )}
      <Problem problem={problem} />
      <div class="form-actions">
        <button type="button" class="danger" onClick={go} disabled={busy}>{kind === 'delete' ? 'Delete' : 'Merge'}</button>
        <button type="button" onClick={onClose}>Cancel</button>
      </div>
    </Dialog>
  );
}

/** The bar over the list while nodes are picked. */
export function BulkBar({ picked, scope, api, onClear, onDone }) {
  const [dialog, setDialog] = useState(null);
  const [problem, setProblem] = useState(null);
  const ids = [...picked];
  if (!ids.length) return null;
  const archive = async () => {
    setProblem(null);
    try {
      onDone({ kind: 'archive', ...(await runArchive(api, scope, ids)) });
    } catch (err) {
      setProblem(explain(err, { what: 'The archive' }));
    }
  };
  const exportPicked = async () => {
    setProblem(null);
    try {
      download(pickedFileName(scope, ids.length), pickedDocument(await api.exportDoc(scope), ids));
    } catch (err) {
      setProblem(explain(err, { what: 'The export' }));
    }
  };
  return (
    <div class="bulk-bar" role="region" aria-label="Picked nodes">
      <strong>{ids.length} picked</strong>
      <button type="button" class="small" onClick={exportPicked}>Export</button>
      <button type="button" class="small" onClick={archive}>Archive</button>
      {ids.length > 1 && <button type="button" class="small" onClick={() => setDialog('merge')}>Merge…</button>}
      <button type="button" class="small danger" onClick={() => setDialog('delete')}>Delete…</button>
      <button type="button" class="small" onClick={onClear}>Clear</button>
      <Problem problem={problem} />
      {dialog && <BulkDialog kind={dialog} ids={ids} scope={scope} api={api} onClose={() => setDialog(null)}
        onDone={(r) => { setDialog(null); onDone(r); }} />}
    </div>
  );
}

const did = (r) => {
  switch (r.kind) {
    case 'delete': return `Deleted ${r.done.join(', ')}`;
    case 'archive': return `Archived ${r.done.join(', ') || 'nothing'}${r.unmoved?.length ? ` (${r.unmoved.join(', ')} not active: left as they were)` : ''}`;
    default: return `Merged ${r.done.join(', ')} into ${r.keep}`;
  }
};

/** What a bulk action did, with its Undo (POST /api/undo of its session). */
export function BulkDone({ result, scope, api, onClose }) {
  const [undone, setUndone] = useState(null);
  const [problem, setProblem] = useState(null);
  const undo = async () => {
    try {
      setUndone(await api.undo(scope, { sessionID: result.sessionID }, false));
    } catch (err) {
      setProblem(explain(err, { what: 'The undo' }));
    }
  };
  return (
    <div class="bulk-done" role="status" data-testid="bulk-done">
      <span>{did(result)}.{result.failed ? ` Stopped at ${result.failed.id}: ${explain(result.failed.error).text}` : ''}</span>{' '}
      {undone
        ? <span data-testid="bulk-undone">{undoSummary(undone)}</span>
        : <button type="button" class="small" onClick={undo} disabled={!result.done.length}>Undo</button>}
      {' '}<button type="button" class="small" onClick={onClose} aria-label="Dismiss">×</button>
      <Problem problem={problem} />
    </div>
  );
}
