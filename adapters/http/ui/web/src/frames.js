// Events of /ws arrive one message at a time, and an import or a compaction
// run sends hundreds of them in a burst. Drawing each one on its own costs a
// picture update, a layout patch and a render per event; instead the page
// queues them and applies what arrived once per animation frame, in the
// order heard (docs/design/http.md#events-applied-in-place).

/** After this long without a frame (a hidden tab has none) the queue is run anyway. */
const FALLBACK_MS = 250;

function browserClock() {
  return {
    frame: (f) => requestAnimationFrame(f),
    cancelFrame: (h) => cancelAnimationFrame(h),
    timer: (f, ms) => setTimeout(f, ms),
    cancelTimer: (h) => clearTimeout(h),
  };
}

export class FrameQueue {
  /**
   * @param {(items: any[]) => void} run called with what was queued, oldest first
   * @param {{frame, cancelFrame, timer, cancelTimer}} clock the browser's, unless a test gives its own
   */
  constructor(run, clock = browserClock()) {
    this.run = run;
    this.clock = clock;
    this.items = [];
    this.frameHandle = null;
    this.timerHandle = null;
  }

  get size() { return this.items.length; }

  /** Queues an item; the first of a burst asks for the next frame. */
  push(item) {
    this.items.push(item);
    if (this.frameHandle !== null) return;
    this.frameHandle = this.clock.frame(() => this.flush());
    this.timerHandle = this.clock.timer(() => this.flush(), FALLBACK_MS);
  }

  /**
   * Runs what is queued now (the frame came, or something must see every
   * event heard so far first, such as the answer of the page's own write).
   * Items queued while it runs wait for the next frame.
   */
  flush() {
    this.cancel();
    if (!this.items.length) return;
    const items = this.items;
    this.items = [];
    this.run(items);
  }

  /** Drops what is queued (the page is going away). */
  stop() {
    this.cancel();
    this.items = [];
  }

  cancel() {
    if (this.frameHandle !== null) this.clock.cancelFrame(this.frameHandle);
    if (this.timerHandle !== null) this.clock.cancelTimer(this.timerHandle);
    this.frameHandle = null;
    this.timerHandle = null;
  }
}
