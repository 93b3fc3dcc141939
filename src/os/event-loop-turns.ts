// Background work on a thread that also answers requests (the main thread: the change feed's
// comparison, the watchlist events' consumer, the outbox pruner) lets the event loop have a turn
// at least every TURN_MS of its work. Awaiting a promise that is already settled is no such turn
// (only microtasks run), and a load's comparison holding the thread for seconds stalled every
// request of the main front behind it.

/** The longest a background job holds the thread between two turns of its event loop. */
export const TURN_MS = 4;

/** Resolves once the event loop has had a turn (I/O, timers, requests). */
export const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** A job's share of the thread: pause() gives the event loop a turn once TURN_MS have gone by. */
export class Turns {
  private since = performance.now();

  /** undefined (no await needed) while the job has time left; else a turn of the event loop. */
  pause(): Promise<void> | undefined {
    if (performance.now() - this.since < TURN_MS) return undefined;
    return nextTurn().then(() => {
      this.since = performance.now();
    });
  }
}
