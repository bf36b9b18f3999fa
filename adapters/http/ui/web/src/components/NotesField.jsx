// A list of notes edited one field per note, so that a note holding blank
// lines stays one note (nodes and edges alike). A problem with one note
// (problemIndex, e.g. a secret the scanner found in it) is shown under that
// note, and only that note is marked invalid.
export function NotesField({ notes, setNotes, idPrefix, invalid, problemIndex = -1, problem = null }) {
  const marked = (i) => (problemIndex < 0 || problemIndex === i ? invalid : {});
  return (
    <fieldset>
      <legend>Notes</legend>
      {notes.map((n, i) => (
        <div class="note-row" key={i}>
          <label for={`${idPrefix}-note-${i}`} class="visually-hidden">Note {i + 1}</label>
          <textarea id={`${idPrefix}-note-${i}`} rows={Math.min(8, Math.max(2, n.split('\n').length))} value={n}
            onInput={(e) => { const v = e.currentTarget.value; setNotes((ns) => ns.map((x, j) => (j === i ? v : x))); }}
            {...marked(i)} />
          <button type="button" onClick={() => setNotes((ns) => ns.filter((_, j) => j !== i))} aria-label={`Remove note ${i + 1}`}>Remove</button>
          {problemIndex === i && problem}
        </div>
      ))}
      <button type="button" onClick={() => setNotes((ns) => [...ns, ''])}>Add a note</button>
    </fieldset>
  );
}
