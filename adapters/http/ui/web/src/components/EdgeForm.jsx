// Create an edge, or edit the notes of one (its identity is from, to, rel).
// Ends may be node ids, file paths, URLs or ids not created yet; an end
// that names no node and looks like a mistyped id is asked about before a
// reference is made of it. Notes are edited one field per note, so a note
// with blank lines in it stays one note.
import { useRef, useState } from 'preact/hooks';
import { Dialog, Problem } from './Dialog.jsx';
import { NotesField } from './NotesField.jsx';
import { explain, retrying } from '../errors.js';
import { closest, looksLikeReference } from '../ends.js';

export function EdgeForm({ edge, from: fromDefault, ids, onSave, onClose }) {
  const editing = !!edge;
  const [from, setFrom] = useState(edge?.from ?? fromDefault ?? '');
  const [to, setTo] = useState(edge?.to ?? '');
  const [rel, setRel] = useState(edge?.rel ?? '');
  const [notes, setNotes] = useState(edge?.notes?.length ? [...edge.notes] : []);
  const [ask, setAsk] = useState(null); // {end: 'from'|'to', value, suggestion}
  const [accepted, setAccepted] = useState(() => new Set());
  const [problem, setProblem] = useState(null);
  const [field, setField] = useState('');
  const [busy, setBusy] = useState(false);
  const cancelled = useRef(false);
  const idSet = new Set(ids);

  const save = async (ends) => {
    const [[, f], [, t]] = ends;
    setBusy(true);
    setProblem(null);
    setField('');
    try {
      await retrying(() => onSave({ from: f, to: t, rel: rel.trim(), notes: notes.filter((n) => n.trim() !== '') }), {
        onWait: () => setProblem(explain({ offline: true })),
        stop: () => cancelled.current,
      });
    } catch (err) {
      if (cancelled.current) return;
      setProblem(explain(err, { what: 'Saving the edge' }));
      setField(err?.field ?? '');
      setBusy(false);
    }
  };

  // Asks about the first end that names no node, or saves.
  const check = (ends, acc) => {
    if (!editing) {
      for (const [end, value] of ends) {
        if (!value || idSet.has(value) || acc.has(value) || looksLikeReference(value)) continue;
        setAsk({ end, value, suggestion: closest(value, ids) });
        return;
      }
    }
    save(ends);
  };
  const submit = (e) => {
    e.preventDefault();
    check([['from', from.trim()], ['to', to.trim()]], accepted);
  };
  const use = (value) => {
    const ends = [['from', ask.end === 'from' ? value : from.trim()], ['to', ask.end === 'to' ? value : to.trim()]];
    if (ask.end === 'from') setFrom(value); else setTo(value);
    setAsk(null);
    check(ends, accepted);
  };
  const keep = () => {
    const acc = new Set([...accepted, ask.value]);
    setAccepted(acc);
    setAsk(null);
    check([['from', from.trim()], ['to', to.trim()]], acc);
  };
  const close = () => { cancelled.current = true; onClose(); };

  const invalid = (f) => (field === f || field.startsWith(`${f}[`) ? { 'aria-invalid': 'true', 'aria-describedby': 'form-error' } : {});
  return (
    <Dialog title={editing ? `Edit edge ${edge.from} ${edge.rel} ${edge.to}` : 'New edge'} onClose={close}>
      <form onSubmit={submit} class="form">
        <datalist id="node-ids">{ids.slice(0, 2000).map((id) => <option key={id} value={id} />)}</datalist>
        <label for="e-from">From</label>
        <input id="e-from" list="node-ids" value={from} onInput={(e) => setFrom(e.currentTarget.value)} required readOnly={editing} {...invalid('from')} />
        <label for="e-rel">Relation</label>
        <input id="e-rel" value={rel} onInput={(e) => setRel(e.currentTarget.value)} required readOnly={editing}
          pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" maxLength={64} placeholder="e.g. depends-on" {...invalid('rel')} />
        <label for="e-to">To</label>
        <input id="e-to" list="node-ids" value={to} onInput={(e) => setTo(e.currentTarget.value)} required readOnly={editing}
          aria-describedby="e-to-help" {...invalid('to')} />
        <small id="e-to-help">A node id, a file path, a URL, or an id not created yet.</small>
        <NotesField notes={notes} setNotes={setNotes} idPrefix="e" invalid={invalid('notes')} />
        {ask && (
          <div class="problem problem-ask" role="alert" id="form-error" data-kind="ask">
            <p>
              “{ask.value}” names no node of this graph.
              {ask.suggestion ? ` Did you mean “${ask.suggestion}”?` : ''} Saving makes it a reference: an end that is not a node.
            </p>
            <div class="problem-actions">
              {ask.suggestion && <button type="button" class="primary" onClick={() => use(ask.suggestion)}>Use {ask.suggestion}</button>}
              <button type="button" onClick={keep}>Keep “{ask.value}” as a reference</button>
            </div>
          </div>
        )}
        <Problem problem={problem}>
          {problem?.kind === 'offline' && busy && <button type="button" onClick={close}>Stop trying</button>}
        </Problem>
        <div class="form-actions">
          <button type="submit" class="primary" disabled={busy}>{editing ? 'Save' : 'Create'}</button>
          <button type="button" onClick={close}>Cancel</button>
        </div>
      </form>
    </Dialog>
  );
}
