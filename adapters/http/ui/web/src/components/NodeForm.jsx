// Create or edit a node. Editing sends the version that was read
// (expected_version), so a change made meanwhile by an agent is not
// overwritten: the form says so and offers to show their version or to
// overwrite it. Creating sends expected_version 0: it never overwrites a
// node that exists (and re-creates a deleted one). While kg is not
// answering, the save is tried again until it answers.
import { useRef, useState } from 'preact/hooks';
import { Dialog, Problem } from './Dialog.jsx';
import { NotesField } from './NotesField.jsx';
import { explain, retrying } from '../errors.js';

const same = (a, b) => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/** The input a field of an error names: "notes[1]" → {name: 'notes', index: 1}; none: {}. */
function fieldOf(field) {
  const m = /^(id|gist|notes|touches)(?:\[(\d+)\])?$/.exec(field ?? '');
  return m ? { name: m[1], index: m[2] === undefined ? -1 : Number(m[2]) } : {};
}

export function NodeForm({ node, getCurrent, onSave, onOpen, onClose }) {
  const editing = !!node;
  const [id, setId] = useState(node?.id ?? '');
  const [gist, setGist] = useState(node?.gist ?? '');
  const [notes, setNotes] = useState(node?.notes?.length ? [...node.notes] : []);
  const [touches, setTouches] = useState((node?.touches ?? []).join('\n'));
  const [base, setBase] = useState(editing ? (node.version ?? 0) : 0); // the version the fields came from
  const [problem, setProblem] = useState(null);
  const [field, setField] = useState('');
  const [busy, setBusy] = useState(false);
  const cancelled = useRef(false);

  const fields = () => ({
    id: id.trim(),
    gist,
    notes: notes.filter((n) => n.trim() !== ''),
    touches: touches.split('\n').map((t) => t.trim()).filter(Boolean),
  });

  const save = async (expected) => {
    const f = fields();
    setBusy(true);
    setProblem(null);
    setField('');
    let tries = 0;
    try {
      await retrying(() => { tries++; return onSave(f, expected); }, {
        onWait: () => setProblem(explain({ offline: true })),
        stop: () => cancelled.current,
      });
    } catch (err) {
      if (cancelled.current) return;
      // A save retried after kg came back may have gone through the first
      // time: if the node now holds what was sent, it did.
      const cur = getCurrent(f.id);
      if (tries > 1 && err?.kind === 'conflict' && cur && cur.gist === f.gist.trim() && same(cur.notes, f.notes) && same(cur.touches, f.touches)) {
        return;
      }
      const p = explain(err, { id: f.id, creating: !editing || expected === 0 });
      if (p.kind === 'changed' && !cur) p.text = `“${f.id}” was deleted since you opened it — save to create it again, or cancel.`;
      setProblem(p);
      setField(err?.field ?? '');
      setBusy(false);
    }
  };

  const submit = (e) => { e.preventDefault(); save(editing ? base : 0); };

  const seeTheirs = () => {
    const cur = getCurrent(node.id);
    if (!cur) return;
    setGist(cur.gist ?? '');
    setNotes([...(cur.notes ?? [])]);
    setTouches((cur.touches ?? []).join('\n'));
    setBase(cur.version ?? 0);
    setProblem({ kind: 'info', text: `Their version (v${cur.version}) is in the form now; change it and save, or cancel.` });
  };
  const overwrite = () => {
    const cur = getCurrent(node.id);
    save(cur ? cur.version : 0);
  };
  const close = () => { cancelled.current = true; onClose(); };

  const actions = (
    <>
      {problem?.kind === 'changed' && getCurrent(node?.id) && (
        <>
          <button type="button" onClick={seeTheirs}>See their version</button>
          <button type="button" class="danger" onClick={overwrite}>Overwrite with mine</button>
        </>
      )}
      {problem?.kind === 'changed' && editing && !getCurrent(node?.id) && (
        <button type="button" onClick={() => save(0)}>Create it again</button>
      )}
      {problem?.kind === 'exists' && (
        <button type="button" onClick={() => { onClose(); onOpen(fields().id); }}>Open {fields().id}</button>
      )}
      {problem?.kind === 'offline' && busy && <button type="button" onClick={close}>Stop trying</button>}
    </>
  );
  const invalid = (f) => (field === f || field.startsWith(`${f}[`) ? { 'aria-invalid': 'true', 'aria-describedby': 'form-error' } : {});
  // A problem is shown at the field it names (a secret in note 2, a gist
  // over its limit), else under the form. Blank notes are not sent, so the
  // server's notes[k] is the k-th note that is not blank.
  const at = fieldOf(field);
  const noteIndex = at.name === 'notes' && at.index >= 0
    ? notes.map((n, i) => [n, i]).filter(([n]) => n.trim() !== '')[at.index]?.[1] ?? -1
    : -1;
  const here = (name) => at.name === name && (name !== 'notes' || noteIndex < 0);
  const problemHere = <Problem problem={problem}>{actions}</Problem>;
  return (
    <Dialog title={editing ? `Edit node ${node.id}` : 'New node'} onClose={close}>
      <form onSubmit={submit} class="form">
        <label for="f-id">Id</label>
        <input id="f-id" name="id" value={id} onInput={(e) => setId(e.currentTarget.value)} required
          readOnly={editing} pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" maxLength={128} autofocus={!editing}
          aria-describedby="f-id-help" {...invalid('id')} />
        <small id="f-id-help">Letters, digits, “.”, “_” and “-”; kebab-case is usual.{editing ? ' The id cannot change.' : ''}</small>
        {here('id') && problemHere}
        <label for="f-gist">Gist</label>
        <input id="f-gist" name="gist" value={gist} onInput={(e) => setGist(e.currentTarget.value)} required maxLength={1000}
          autofocus={editing} {...invalid('gist')} />
        {here('gist') && problemHere}
        <NotesField notes={notes} setNotes={setNotes} idPrefix="f" invalid={invalid('notes')}
          problemIndex={noteIndex} problem={noteIndex >= 0 ? problemHere : null} />
        {here('notes') && problemHere}
        <label for="f-touches">Touches (one file or reference a line)</label>
        <textarea id="f-touches" rows={3} value={touches} onInput={(e) => setTouches(e.currentTarget.value)} {...invalid('touches')} />
        {here('touches') && problemHere}
        {!at.name && problemHere}
        <div class="form-actions">
          <button type="submit" class="primary" disabled={busy}>{editing ? 'Save' : 'Create'}</button>
          <button type="button" onClick={close}>Cancel</button>
        </div>
      </form>
    </Dialog>
  );
}
