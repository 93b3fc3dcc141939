// A clock for recorded times that later decide a deletion (when a delivery finished, when an
// attempt was made, since when an endpoint fails): the wall time, but never less than the wall
// time at start plus the monotonic time since (a SteadyClock). A backward step of the wall clock
// is not followed: what is recorded meanwhile keeps its real age, and is not pruned early once
// the clock is put right. A forward step is followed while it lasts: a row recorded then looks
// younger than it is, and is kept longer, never shorter. Judged against a TrustedClock (which
// never runs ahead of that same steady time), a recorded time makes a row look its age or younger.

import { SteadyClock } from "./steady-clock.js";

export class RecordClock {
  private readonly steady: SteadyClock;

  constructor(
    private readonly wallNow: () => number = () => Date.now(),
    monoNow: () => number = () => performance.now(),
  ) {
    this.steady = new SteadyClock(wallNow, monoNow);
  }

  /** ms since the epoch: the wall time, never less than the steady time. */
  now(): number {
    return Math.max(this.wallNow(), this.steady.now());
  }
}
