// Merge two nodes (docs/design/trust.md#merging-two-nodes): pick the other
// node, which id to keep and which gist, see what the merge would write —
// the server's dry run: the united notes and touches, each edge rewired,
// joined or dropped — and confirm. The merge sends the versions the preview
// was made from, so a node an agent changed meanwhile is not merged unseen:
// the preview is made again and the person confirms again.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Dialog, Problem } from './Dialog.jsx';
import { explain } from '../errors.js';
import { describeEdge, mergeCandidates } from '../merge.js';

const PREVIEW_DELAY = 250; // ms after the last keystroke in an edited gist

function Pick({ self, nodes, onPick }) {
  const [q, setQ] = useState('');
  const hits = useMemo(() => mergeCandidates(nodes(), self, q), [q, self, nodes]);
  return (
    <div class="merge-pick">
      <label for="merge-search">Other node</label>
      <input id="merge-search" type="search" value={q} autofocus placeholder="Search this graph by id or gist"
        onInput={(e) => setQ(e.currentTarget.value)} aria-describedby="merge-search-help" />
      <small id="merge-search-help">The node to merge with {self}; you choose which id is kept next.</small>
      {q.trim() && !hits.length && <p class="empty">No other node of this graph matches.</p>}
      {hits.length > 0 && (
        <ul class="merge-hits" aria-label="Matching nodes">
          {hits.map((n) => (
            <li key={n.id}>
              <button type="button" class="link" onClick={() => onPick(n.id)} data-id={n.id}>{n.id}</button>
              <span class="hint"> — {n.gist}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function List({ title, items, testid }) {
  return (
    <>
      <h4>{title}</h4>
      {items.length
        ? <ul class="notes" data-testid={testid}>{items.map((t, i) => <li key={i}>{t}</li>)}</ul>
        : <p class="empty">None.</p>}
    </>
  );
}

function Preview({ plan }) {
  return (
    <section class="merge-preview" aria-label="What the merge writes" data-testid="merge-preview">
      <h3>{plan.into} after the merge</h3>
      <p class="gist" data-testid="merge-gist">{plan.merged.gist}</p>
      <List title="Notes (both nodes', each once)" items={plan.merged.notes} testid="merge-notes" />
      <List title="Touches" items={plan.merged.touches} testid="merge-touches" />
      <h4>Edges of {plan.from}</h4>
      {plan.edges.length === 0
        ? <p class="empty">None.</p>
        : (
          <ul class="merge-edges" data-testid="merge-edges">
            {plan.edges.map((e) => {
              const d = describeEdge(e);
              return (
                <li key={d.was} data-action={e.action}>
                  <code>{d.was}</code>{d.now ? <> → <code>{d.now}</code></> : null} <span class="hint">{d.say}</span>
                  {e.action === 'dropped' && e.notes.length > 0 && <span class="warn"> (its notes go with it: {e.notes.join('; ')})</span>}
                </li>
              );
            })}
          </ul>
        )}
      {plan.redacted?.length > 0 && (
        <p class="warn" data-testid="merge-redacted">Stored with {plan.redacted.length === 1 ? 'a secret' : `${plan.redacted.length} secrets`} redacted:{' '}
          {plan.redacted.map((r) => `${r.field} ${r.kind}`).join(', ')}</p>
      )}
      <p class="hint">{plan.from} is then deleted.</p>
    </section>
  );
}

export function MergeDialog({ node, other: initialOther, scope, api, nodes, getNode, onMerged, onClose }) {
  const [other, setOther] = useState(initialOther ?? null);
  // Merging a new node into the one it may repeat keeps the older id.
  const [keep, setKeep] = useState(initialOther ? 'other' : 'self');
  const [gistOf, setGistOf] = useState('into'); // into | from | edit
  const [edited, setEdited] = useState('');
  const [plan, setPlan] = useState(null);
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);
  const asked = useRef(0);
  const form = useRef(null);
  // Once the other node is picked, the choices take the focus the search had.
  useEffect(() => { if (other) form.current?.querySelector('input[name="keep"]:checked')?.focus(); }, [other]);

  const into = keep === 'self' ? node.id : other;
  const from = keep === 'self' ? other : node.id;
  const gist = () => {
    if (gistOf === 'from') return getNode(from)?.gist ?? '';
    if (gistOf === 'edit') return edited;
    return undefined; // the kept node's own
  };

  // The choices a plan was made for: a plan for others is not shown or merged.
  const choice = JSON.stringify([into, from, gist() ?? null]);
  const preview = async () => {
    if (!other) return;
    const n = ++asked.current;
    const made = choice;
    setProblem(null);
    try {
      const r = await api.mergeNodes(scope, { into, from, gist: gist() }, true);
      if (n === asked.current) setPlan({ ...r, choice: made });
    } catch (err) {
      if (n !== asked.current) return;
      setPlan(null);
      setProblem(explain(err, { id: err.field === 'into' ? into : from, what: 'The preview' }));
    }
  };
  useEffect(() => {
    if (!other) return undefined;
    const t = setTimeout(preview, gistOf === 'edit' ? PREVIEW_DELAY : 0);
    return () => clearTimeout(t);
    // choice: the nodes and the gist, which an agent's write to the node
    // whose gist is chosen changes too.
  }, [choice]); // eslint-disable-line react-hooks/exhaustive-deps

  const merge = async (e) => {
    e.preventDefault();
    if (!fresh) return;
    setBusy(true);
    setProblem(null);
    try {
      const r = await api.mergeNodes(scope, { into, from, gist: gist(), intoVersion: fresh.into_version, fromVersion: fresh.from_version }, false);
      onMerged(r);
    } catch (err) {
      setBusy(false);
      if (err?.kind === 'conflict') {
        await preview();
        setProblem({ kind: 'changed', text: `${err.field === 'into_version' ? into : from} changed since the preview; the preview shows it now — look again and merge.` });
        return;
      }
      setProblem(explain(err, { id: err.field === 'into' ? into : from, what: 'The merge' }));
    }
  };

  const fresh = plan?.choice === choice ? plan : null;
  const a = getNode(into);
  const b = getNode(from);
  return (
    <Dialog title={`Merge ${node.id} with another node`} onClose={onClose}>
      {!other
        ? <Pick self={node.id} nodes={nodes} onPick={(id) => setOther(id)} />
        : (
          <form class="form merge-form" onSubmit={merge} ref={form}>
            <fieldset>
              <legend>Keep the id</legend>
              {[['self', node.id, other], ['other', other, node.id]].map(([k, kept, gone]) => (
                <label key={k} class="choice">
                  <input type="radio" name="keep" value={k} checked={keep === k} onChange={() => setKeep(k)} />
                  {' '}{kept} <span class="hint">({gone} is merged into it and deleted)</span>
                </label>
              ))}
            </fieldset>
            <fieldset>
              <legend>Gist</legend>
              <label class="choice"><input type="radio" name="gist" value="into" checked={gistOf === 'into'} onChange={() => setGistOf('into')} />
                {' '}{into}'s: <span class="hint">{a?.gist}</span></label>
              <label class="choice"><input type="radio" name="gist" value="from" checked={gistOf === 'from'} onChange={() => setGistOf('from')} />
                {' '}{from}'s: <span class="hint">{b?.gist}</span></label>
              <label class="choice"><input type="radio" name="gist" value="edit" checked={gistOf === 'edit'}
                onChange={() => { setGistOf('edit'); if (!edited) setEdited(a?.gist ?? ''); }} /> another</label>
              {gistOf === 'edit' && (
                <>
                  <label for="merge-gist" class="visually-hidden">Merged gist</label>
                  <input id="merge-gist" value={edited} maxLength={1000} onInput={(e) => setEdited(e.currentTarget.value)}
                    aria-invalid={problem && plan === null && problem.text.startsWith('Gist') ? 'true' : undefined} />
                </>
              )}
            </fieldset>
            {fresh ? <Preview plan={fresh} /> : !problem && <p class="empty">Reading the preview…</p>}
            <Problem problem={problem} />
            <div class="form-actions">
              <button type="submit" class="primary" disabled={busy || !fresh}>Merge</button>
              <button type="button" onClick={() => { setOther(null); setPlan(null); setProblem(null); }}>Pick another node</button>
              <button type="button" onClick={onClose}>Cancel</button>
            </div>
          </form>
        )}
    </Dialog>
  );
}
