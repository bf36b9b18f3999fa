// Create an edge, or edit the notes of one (its identity is from, to, rel).
// Ends may be node ids, file paths, URLs or ids not created yet.
import { useState } from 'preact/hooks';
import { Dialog, FormError } from './Dialog.jsx';

export function EdgeForm({ edge, from: fromDefault, ids, onSave, onClose }) {
  const editing = !!edge;
  const [from, setFrom] = useState(edge?.from ?? fromDefault ?? '');
  const [to, setTo] = useState(edge?.to ?? '');
  const [rel, setRel] = useState(edge?.rel ?? '');
  const [notes, setNotes] = useState((edge?.notes ?? []).join('\n\n'));
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSave({
        from: from.trim(), to: to.trim(), rel: rel.trim(),
        notes: notes.split(/\n\s*\n/).map((n) => n.trim()).filter(Boolean),
      });
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const invalid = (f) => (error?.field === f ? { 'aria-invalid': 'true', 'aria-describedby': 'form-error' } : {});
  return (
    <Dialog title={editing ? `Edit edge ${edge.from} ${edge.rel} ${edge.to}` : 'New edge'} onClose={onClose}>
      <form onSubmit={submit} class="form">
        <datalist id="node-ids">{ids.map((id) => <option key={id} value={id} />)}</datalist>
        <label for="e-from">From</label>
        <input id="e-from" list="node-ids" value={from} onInput={(e) => setFrom(e.currentTarget.value)} required readOnly={editing} {...invalid('from')} />
        <label for="e-rel">Relation</label>
        <input id="e-rel" value={rel} onInput={(e) => setRel(e.currentTarget.value)} required readOnly={editing}
          pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" maxLength={64} placeholder="e.g. depends-on" {...invalid('rel')} />
        <label for="e-to">To</label>
        <input id="e-to" list="node-ids" value={to} onInput={(e) => setTo(e.currentTarget.value)} required readOnly={editing}
          aria-describedby="e-to-help" {...invalid('to')} />
        <small id="e-to-help">A node id, a file path, a URL, or an id not created yet.</small>
        <label for="e-notes">Notes (a blank line between notes)</label>
        <textarea id="e-notes" rows={4} value={notes} onInput={(e) => setNotes(e.currentTarget.value)} autofocus={editing} {...invalid('notes')} />
        <FormError error={error} />
        <div class="form-actions">
          <button type="submit" class="primary" disabled={busy}>{editing ? 'Save' : 'Create'}</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Dialog>
  );
}
