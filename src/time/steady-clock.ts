// A clock for due times: the wall time at start plus the monotonic time since, so no step of the
// system clock moves it, forward or back. Retries are scheduled and found due on it: a retry
// waits its backoff in real time whatever the wall clock does meanwhile. It is anchored once, at
// start, so a process started with its wall clock wrong keeps that error for its run (its own
// schedule stays consistent; due times written by another run or node may then be early or late).

export class SteadyClock {
  private readonly anchor: number;
  private readonly monoAtStart: number;

  constructor(
    wallNow: () => number = () => Date.now(),
    private readonly monoNow: () => number = () => performance.now(),
  ) {
    this.anchor = wallNow();
    this.monoAtStart = monoNow();
  }

  /** ms since the epoch, as the wall clock said at start, advanced by the monotonic clock. */
  now(): number {
    return Math.round(this.anchor + (this.monoNow() - this.monoAtStart));
  }
}
