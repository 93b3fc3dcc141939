// Per-IP token buckets: `limit` tokens refilled evenly over `window` seconds, so a client may
// burst up to the limit and then sustains limit/window per second. Buckets live in a fixed-size
// table in shared memory (shared-buckets.ts): a flood of distinct addresses costs bounded memory,
// and every front thread's limiter over the same buffer spends from the same buckets. Refills are
// timed by the monotonic clock, the same in every thread: with the wall clock, a
// backward step refused known clients for the length of the step. With several nodes
// (shared-rate-limits.ts), each node's spending is counted for the others, which charge it to
// their own buckets.

import { SharedBuckets } from "./shared-buckets.js";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterSeconds: number;
}

// The monotonic clock every thread reads alike (process.hrtime's, in ms): performance.now() counts
// from this thread's start, so its offset is read once. (performance.timeOrigin would carry the wall
// clock as it stood at each thread's start, a step between two starts setting them apart.)
const offset = Number(process.hrtime.bigint()) / 1e6 - performance.now();
const sharedClock = (): number => offset + performance.now();

export class RateLimiter {
  /** allocated at first use: a limiter that never takes costs no table */
  private table: SharedBuckets | null;
  private readonly perMs: number;
  /** A client's own limit per window where it has one (a licence's entitlement), else null. */
  limitFor: ((ip: string) => number | null) | null = null;
  /** tokens spent per address since the last drainSpent(), kept only while other nodes read them */
  private spent: Map<string, number> | null = null;

  constructor(
    readonly limit: number,
    readonly windowSeconds: number,
    private readonly now: () => number = sharedClock,
    /** another thread's sharedBuffer (a limiter with the same limit and window): spend from its buckets */
    shared?: SharedArrayBuffer,
  ) {
    this.perMs = limit / (windowSeconds * 1000);
    this.table = shared ? new SharedBuckets(shared) : null;
  }

  /** The buckets' buffer, for another thread's `new RateLimiter(limit, windowSeconds, undefined, buffer)`. */
  get sharedBuffer(): SharedArrayBuffer {
    return this.buckets.buffer;
  }

  private get buckets(): SharedBuckets {
    return (this.table ??= new SharedBuckets(SharedBuckets.create()));
  }

  get enabled(): boolean {
    return this.limit > 0;
  }

  /** Spends `weight` tokens (a batch weighs its size; more than the bucket holds weighs the whole bucket). */
  take(ip: string, weight = 1): RateDecision {
    const own = this.limitFor?.(ip) ?? null;
    const limit = own ?? this.limit;
    const perMs = own === null ? this.perMs : own / (this.windowSeconds * 1000);
    const cost = Math.min(weight, limit);
    const tokens = this.buckets.take(ip, limit, perMs, cost, this.now());
    if (tokens >= cost) {
      this.addSpent(ip, cost);
      return { allowed: true, limit, remaining: Math.floor(tokens - cost), retryAfterSeconds: 0 };
    }
    return {
      allowed: false,
      limit,
      remaining: Math.max(0, Math.floor(tokens)),
      retryAfterSeconds: Math.max(1, Math.ceil((cost - tokens) / perMs / 1000)),
    };
  }

  /** Counts tokens spent here for the other nodes, once drainSpent() has started the count. */
  addSpent(ip: string, tokens: number): void {
    this.spent?.set(ip, (this.spent.get(ip) ?? 0) + tokens);
  }

  /** The tokens each address spent here since the last call (the first call starts the count). */
  drainSpent(): Map<string, number> {
    const spent = this.spent ?? new Map<string, number>();
    this.spent = new Map();
    return spent;
  }

  /** Tokens an address spent on another node: taken from its bucket here, into debt if need be. */
  charge(ip: string, tokens: number): void {
    this.buckets.charge(ip, tokens, this.limitFor?.(ip) ?? this.limit, this.now());
  }
}
