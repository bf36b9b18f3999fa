// The compaction plan: what a run would do to this graph now, each move
// with its reason (GET /api/compaction/plan changes nothing), ties with the
// tie-break stated (plan.js), and "Run compaction now" — the plan shown is
// the dry run, confirmed before the run.
import { useState } from 'preact/hooks';
import { tieNotes } from '../plan.js';
import { explain } from '../errors.js';

function RunNow({ moves, onRun }) {
  const [state, setState] = useState('idle'); // idle | asking | running | {error}
  if (!onRun) return null;
  if (state === 'idle' || state?.error) {
    return (
      <p class="run-now">
        <button type="button" onClick={() => setState('asking')}>Run compaction now…</button>
        {state?.error && <span class="error"> {state.error}</span>}
      </p>
    );
  }
  const run = async () => {
    setState('running');
    try { await onRun(); setState('idle'); } catch (err) { setState({ error: explain(err, { what: 'The run' }).text }); }
  };
  return (
    <p class="run-now" role="group" aria-label="Run compaction now">
      {moves.length
        ? `A run now makes the ${moves.length} move${moves.length === 1 ? '' : 's'} listed below (this is its dry run). `
        : 'A run now would move nothing. '}
      <button type="button" class="danger" onClick={run} disabled={state === 'running'}>Run it</button>{' '}
      <button type="button" onClick={() => setState('idle')}>Cancel</button>
    </p>
  );
}

export function Plan({ plan, onSelect, ids, onRun }) {
  if (!plan) return <p class="empty">Loading the plan…</p>;
  const { moves } = plan;
  const ties = tieNotes(moves);
  return (
    <section class="plan" aria-labelledby="plan-title">
      <h2 id="plan-title">Compaction plan</h2>
      {typeof plan.estimateBefore === 'number' && (
        <p class="estimate" data-testid="estimate">
          Token estimate {plan.estimateBefore}
          {typeof plan.estimateAfter === 'number' && plan.estimateAfter !== plan.estimateBefore ? ` → ${plan.estimateAfter} after the run` : ''}
          {typeof plan.max === 'number' ? ` (budget ${plan.max}${typeof plan.target === 'number' ? `, target ${plan.target}` : ''})` : ''}.
          {plan.overBudget ? ' Still over budget: what is left is in grace.' : ''}
        </p>
      )}
      <RunNow moves={moves} onRun={onRun} />
      {moves.length === 0
        ? <p data-testid="plan-empty">A run now would move nothing.</p>
        : (
          <ol class="moves">
            {moves.map((m, i) => (
              <li key={i} class={`move move-${m.pass}`} data-id={m.id}>
                <span class="move-what">
                  {m.pruned ? 'delete ' : `${m.pass} `}
                  {ids.has(m.id) ? <button type="button" class="link" onClick={() => onSelect(m.id)}>{m.id}</button> : <strong>{m.id}</strong>}
                  {!m.pruned && m.from && m.to ? ` (${m.from} → ${m.to})` : ''}
                </span>
                <span class="move-why">{m.reason}{ties.has(m.id) ? <span class="tie" data-testid="tie">; {ties.get(m.id)}</span> : null}</span>
              </li>
            ))}
          </ol>
        )}
    </section>
  );
}
