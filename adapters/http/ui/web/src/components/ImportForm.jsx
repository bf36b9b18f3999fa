// Import a kg-graph document (what Export gives) into one graph. Merge keeps
// what the document lacks; replace deletes it, so it asks twice. The
// server checks the whole document before changing anything.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { explain } from '../errors.js';
import { Dialog } from './Dialog.jsx';

export function ImportForm({ graph, onClose, onDone }) {
  const [file, setFile] = useState(null);
  const [mode, setMode] = useState('merge');
  const [sure, setSure] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    if (!file) { setError('Choose a file exported from kg first.'); return; }
    setBusy(true);
    setError('');
    try {
      const text = await file.text();
      const r = await api.import(graph.scope, text, mode);
      onDone(r);
    } catch (err) {
      setError(explain(err, { what: 'The import' }).text);
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Import into ${graph.name}`} onClose={onClose}>
      <form class="form" onSubmit={submit}>
        <label for="imp-file">A document exported from kg (.json)</label>
        <input id="imp-file" type="file" accept=".json,application/json" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        <fieldset>
          <legend>What to do with nodes the document lacks</legend>
          <label class="check"><input type="radio" name="mode" value="merge" checked={mode === 'merge'} onChange={() => setMode('merge')} /> Keep them (merge)</label>
          <label class="check"><input type="radio" name="mode" value="replace" checked={mode === 'replace'} onChange={() => { setMode('replace'); setSure(false); }} /> Delete them (replace)</label>
        </fieldset>
        {mode === 'replace' && (
          <label class="check warn">
            <input type="checkbox" checked={sure} onChange={(e) => setSure(e.currentTarget.checked)} />
            I know that replace deletes every node and edge of {graph.name} that the document does not have.
          </label>
        )}
        {error && <p class="error" role="alert" id="form-error">{error}</p>}
        <div class="form-actions">
          <button type="submit" class="primary" disabled={busy || (mode === 'replace' && !sure)}>Import</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Dialog>
  );
}
