// The page's live connection to /ws (docs/api.md#websocket-ws). It reports
// its state — connected, reconnecting, disconnected — and retries a lost
// connection with exponential backoff, forever, so that a restarted server
// is found again. After a reconnect the page re-reads, since events sent
// while it was away are not replayed. The close code of the last socket is
// kept: 1001 says the server stopped on purpose.

/** Delay before retry number attempt (1, 2, …): 0.5 s doubling to 8 s, ±20 %. */
export function backoff(attempt, random = Math.random) {
  const base = Math.min(8000, 500 * 2 ** (attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** After this many failed attempts in a row the state says disconnected. */
const FAILURES_BEFORE_DISCONNECTED = 2;

export class Live {
  /**
   * @param {() => string} url the address to connect to, asked at each attempt
   * @param {{onEvent, onState, onReconnect}} handlers
   */
  constructor(url, { onEvent, onState, onReconnect }) {
    this.url = url;
    this.onEvent = onEvent;
    this.onState = onState;
    this.onReconnect = onReconnect;
    this.failures = 0;
    this.everConnected = false;
    this.timer = null;
    this.socket = null;
    this.closed = false;
  }

  start() { this.connect(); }

  /** Drops the connection and opens a new one now (a new subscription, or "Retry now"). */
  restart() {
    clearTimeout(this.timer);
    const s = this.socket;
    this.socket = null;
    if (s) { s.onclose = null; s.close(); }
    this.failures = 0;
    this.connect();
  }

  stop() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.socket) { this.socket.onclose = null; this.socket.close(); }
  }

  state(name, extra = {}) { this.onState({ state: name, ...extra }); }

  connect() {
    if (this.closed) return;
    this.state(this.failures >= FAILURES_BEFORE_DISCONNECTED ? 'disconnected' : this.everConnected || this.failures ? 'reconnecting' : 'connecting', { retrying: true, closeCode: this.lastClose });
    let socket;
    try {
      socket = new WebSocket(this.url());
    } catch {
      this.retry();
      return;
    }
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      const wasLost = this.everConnected || this.failures > 0;
      this.failures = 0;
      this.everConnected = true;
      this.state('connected');
      if (wasLost) this.onReconnect();
    };
    socket.onmessage = (m) => {
      let ev;
      try { ev = JSON.parse(m.data); } catch { return; }
      if (ev && ev.type !== 'connected' && ev.type !== 'pong') this.onEvent(ev);
    };
    socket.onclose = (ev) => {
      if (this.socket !== socket) return;
      this.socket = null;
      // 1001: the server is stopping; 1008: too far behind; 1006: cut.
      if (opened) this.lastClose = ev?.code ?? 0;
      if (!opened) this.failures++;
      this.retry();
    };
  }

  retry() {
    if (this.closed) return;
    const attempt = Math.max(1, this.failures);
    const delay = backoff(attempt);
    const state = this.failures >= FAILURES_BEFORE_DISCONNECTED ? 'disconnected' : 'reconnecting';
    this.state(state, { retryAt: Date.now() + delay, closeCode: this.lastClose });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }
}
