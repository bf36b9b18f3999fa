// Asks before a delete.
import { useState } from 'preact/hooks';
import { Dialog, FormError } from './Dialog.jsx';

export function Confirm({ title, message, action, onConfirm, onClose }) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const go = async () => {
    setBusy(true);
    try { await onConfirm(); } catch (err) { setError(err); setBusy(false); }
  };
  return (
    <Dialog title={title} onClose={onClose} describedBy="confirm-message">
      <p id="confirm-message">{message}</p>
      <FormError error={error} />
      <div class="form-actions">
        <button type="button" class="danger" onClick={go} disabled={busy}>{action}</button>
        <button type="button" onClick={onClose} autofocus>Cancel</button>
      </div>
    </Dialog>
  );
}
