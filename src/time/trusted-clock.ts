// Wall time for destructive decisions (pruning, disabling an endpoint), guarded against clock
// steps. Timestamps stored as data stay wall time; but "has this been old for 30 days" must not
// turn true because the system clock was stepped forward. The trusted time is the wall clock,
// never ahead of the wall time seen at start plus the monotonic time elapsed since: a forward step
// is ignored (until the next start), a backward step makes decisions later, never earlier.

import { SteadyClock } from "./steady-clock.js";

export class TrustedClock {
  private readonly steady: SteadyClock;

  constructor(
    private readonly wallNow: () => number = () => Date.now(),
    monoNow: () => number = () => performance.now(),
  ) {
    this.steady = new SteadyClock(wallNow, monoNow);
  }

  /** ms since the epoch, for deciding whether something is old enough to delete or give up on. */
  now(): number {
    return Math.min(this.wallNow(), this.steady.now());
  }
}
