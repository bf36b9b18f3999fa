// What kg noticed about the page's own writes (notices.js): a secret it
// redacted, and the nodes a new node may duplicate, each with a link to the
// other node and a way to merge them; a merge, with a way to undo it. A
// notice stays until dismissed.
import { itemName, likeness, redactedText } from '../notices.js';

function Notice({ n, isNode, onOpen, onMerge, onUndo, onDismiss }) {
  return (
    <li class={`notice notice-${n.type}`} data-type={n.type} data-id={n.id}>
      {n.type === 'redacted' && (
        <p><strong>Saved {itemName(n)}</strong> — {redactedText(n.items)}. The secret is not in memory; rotate it if it was real.</p>
      )}
      {n.type === 'merged' && (
        <p>
          <strong>Merged {n.from} into {n.id}.</strong>{' '}
          <button type="button" class="small" onClick={() => onUndo(n.range)}>Undo the merge…</button>
        </p>
      )}
      {n.type === 'duplicates' && (
        <p>
          <strong>Saved {itemName(n)}.</strong> Possible duplicates:{' '}
          {n.items.map((d, i) => (
            <span key={d.id} class="dup" data-id={d.id}>
              {i > 0 && ', '}
              {isNode(d.id)
                ? <button type="button" class="link" onClick={() => onOpen(d.id)}>{d.id}</button>
                : <span>{d.id}</span>}
              {' '}({likeness(d)})
              {isNode(d.id) && isNode(n.id) && (
                <>{' '}<button type="button" class="small" onClick={() => onMerge(n.id, d.id)}
                  aria-label={`Merge ${n.id} and ${d.id}…`}>merge…</button></>
              )}
            </span>
          ))}
        </p>
      )}
      <button type="button" class="small dismiss" onClick={() => onDismiss(n.key)} aria-label={`Dismiss the notice about ${itemName(n)}`}>Dismiss</button>
    </li>
  );
}

export function Notices({ notices, isNode, onOpen, onMerge, onUndo, onDismiss }) {
  if (!notices.length) return null;
  return (
    <section class="notices" aria-label="Notices">
      <ul>
        {notices.map((n) => <Notice key={n.key} n={n} isNode={isNode} onOpen={onOpen} onMerge={onMerge} onUndo={onUndo} onDismiss={onDismiss} />)}
      </ul>
    </section>
  );
}
