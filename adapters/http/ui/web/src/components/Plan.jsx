// The compaction plan: what a run would do to this graph now, each move
// with its reason (GET /api/compaction/plan changes nothing).
export function Plan({ plan, onSelect, ids }) {
  if (!plan) return <p class="empty">Loading the plan…</p>;
  const { moves } = plan;
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
                <span class="move-why">{m.reason}</span>
              </li>
            ))}
          </ol>
        )}
    </section>
  );
}
