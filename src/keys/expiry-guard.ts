// Autodelete destroys a key, and expires_at is wall-clock data: a forward step of the system
// clock (a bad time source, a VM resumed with a stale offset, a typo) made keys look expired
// early, and housekeeping deleted them. Refusing an expired key stays a wall-clock matter (it
// undoes itself when the clock is put right); deleting one waits until the monotonic clock agrees:
// the key must also be expired by the wall time of start-up plus the monotonic time since, which
// no step moves, or have been seen expired for an hour of monotonic time (so keys still go, an
// hour late at most, when the clock was behind at start-up and was then put right).

import { TrustedClock } from "../time/trusted-clock.js";

export interface Expiring {
  id: number;
  expiresAt: number;
}

export const STEP_GRACE_MS = 3_600_000;

export class ExpiryGuard {
  private readonly clock: TrustedClock;
  /** keys the wall clock calls expired: the monotonic time each was first seen so */
  private seenExpired = new Map<number, number>();

  constructor(
    wallMs: () => number = Date.now,
    private readonly monoMs: () => number = () => performance.now(),
  ) {
    this.clock = new TrustedClock(wallMs, monoMs);
  }

  /** Of the keys the wall clock calls expired now, the ids that may be deleted. */
  confirm(expired: readonly Expiring[]): number[] {
    const mono = this.monoMs();
    const steadySeconds = Math.floor(this.clock.now() / 1000);
    const seen = new Map<number, number>();
    const confirmed: number[] = [];
    for (const key of expired) {
      const since = this.seenExpired.get(key.id) ?? mono;
      seen.set(key.id, since);
      if (steadySeconds > key.expiresAt || mono - since >= STEP_GRACE_MS) confirmed.push(key.id);
    }
    // a key no longer expired (the clock was stepped back) starts over if it is seen expired again
    this.seenExpired = seen;
    return confirmed;
  }
}
