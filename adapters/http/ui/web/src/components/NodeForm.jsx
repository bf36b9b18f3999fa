// Create or edit a node. Editing sends the version that was read
// (expected_version), so a change made meanwhile by an agent is not
// overwritten: the server answers 409 and the form says so.
import { useState } from 'preact/hooks';
import { Dialog, FormError } from './Dialog.jsx';

export function NodeForm({ node, onSave, onClose }) {
  const editing = !!node;
  const [id, setId] = useState(node?.id ?? '');
  const [gist, setGist] = useState(node?.gist ?? '');
  const [notes, setNotes] = useState(node?.notes?.length ? [...node.notes] : []);
  const [touches, setTouches] = useState((node?.touches ?? []).join('\n'));
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSave({
        id: id.trim(),
        gist,
        notes: notes.filter((n) => n.trim() !== ''),
        touches: touches.split('\n').map((t) => t.trim()).filter(Boolean),
      });
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const invalid = (f) => (error?.field === f ? { 'aria-invalid': 'true', 'aria-describedby': 'form-error' } : {});
  return (
    <Dialog title={editing ? `Edit node ${node.id}` : 'New node'} onClose={onClose}>
      <form onSubmit={submit} class="form">
        <label for="f-id">Id</label>
        <input id="f-id" name="id" value={id} onInput={(e) => setId(e.currentTarget.value)} required
          readOnly={editing} pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" maxLength={128} autofocus={!editing}
          aria-describedby="f-id-help" {...invalid('id')} />
        <small id="f-id-help">Letters, digits, “.”, “_” and “-”; kebab-case is usual.{editing ? ' The id cannot change.' : ''}</small>
        <label for="f-gist">Gist</label>
        <input id="f-gist" name="gist" value={gist} onInput={(e) => setGist(e.currentTarget.value)} required maxLength={1000}
          autofocus={editing} {...invalid('gist')} />
        <fieldset>
          <legend>Notes</legend>
          {notes.map((n, i) => (
            <div class="note-row" key={i}>
              <label for={`f-note-${i}`} class="visually-hidden">Note {i + 1}</label>
              <textarea id={`f-note-${i}`} rows={2} value={n}
                onInput={(e) => { const v = e.currentTarget.value; setNotes((ns) => ns.map((x, j) => (j === i ? v : x))); }}
                {...invalid('notes')} />
              <button type="button" onClick={() => setNotes((ns) => ns.filter((_, j) => j !== i))} aria-label={`Remove note ${i + 1}`}>Remove</button>
            </div>
          ))}
          <button type="button" onClick={() => setNotes((ns) => [...ns, ''])}>Add a note</button>
        </fieldset>
        <label for="f-touches">Touches (one file or reference a line)</label>
        <textarea id="f-touches" rows={3} value={touches} onInput={(e) => setTouches(e.currentTarget.value)} {...invalid('touches')} />
        <FormError error={error} />
        <div class="form-actions">
          <button type="submit" class="primary" disabled={busy}>{editing ? 'Save' : 'Create'}</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Dialog>
  );
}
