// Asks before a delete; says in plain language why it failed.
import { useState } from 'preact/hooks';
import { Dialog, Problem } from './Dialog.jsx';
import { explain } from '../errors.js';

export function Confirm({ title, message, action, id, onConfirm, onClose }) {
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);
  const go = async () => {
    setBusy(true);
    try { await onConfirm(); } catch (err) { setProblem(explain(err, { id, what: action })); setBusy(false); }
  };
  return (
    <Dialog title={title} onClose={onClose} describedBy="confirm-message">
      <p id="confirm-message">{message}</p>
      <Problem problem={problem} />
      <div class="form-actions">
        <button type="button" class="danger" onClick={go} disabled={busy}>{action}</button>
        <button type="button" onClick={onClose} autofocus>Cancel</button>
      </div>
    </Dialog>
  );
}
