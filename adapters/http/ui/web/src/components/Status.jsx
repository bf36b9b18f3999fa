// The state of the live connection, always visible: connected,
// reconnecting, or disconnected (still retrying, with a button to retry now).
import { useEffect, useState } from 'preact/hooks';

const text = {
  connecting: 'Connecting…',
  connected: 'Live: connected',
  reconnecting: 'Reconnecting…',
  disconnected: 'Disconnected',
};

export function Status({ conn, onRetry }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!conn.retryAt) return undefined;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [conn.retryAt]);
  const wait = conn.retryAt ? Math.max(0, Math.ceil((conn.retryAt - now) / 1000)) : 0;
  return (
    <div class={`conn conn-${conn.state}`} data-state={conn.state} data-close-code={conn.closeCode ?? ''}>
      <span class="conn-dot" aria-hidden="true" />
      <span role="status" class="conn-text">
        {text[conn.state]}{conn.state !== 'connected' && conn.closeCode === 1001 ? ' (kg stopped)' : ''}
        {conn.state !== 'connected' && conn.retryAt && wait > 0 ? ` — retrying in ${wait} s` : ''}
      </span>
      {(conn.state === 'disconnected' || conn.state === 'reconnecting') && (
        <button type="button" class="small" onClick={onRetry}>Retry now</button>
      )}
    </div>
  );
}
