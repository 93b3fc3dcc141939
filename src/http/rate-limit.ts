// Per-IP token buckets: `limit` tokens refilled evenly over `window` seconds, so a client may
// burst up to the limit and then sustains limit/window per second. Buckets live in an LRU, so a
// flood of distinct addresses costs bounded memory. Refills are timed by the monotonic clock:
// with the wall clock, a backward step refused known clients for the length of the step.

import { LRUCache } from "lru-cache";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new LRUCache<string, Bucket>({ max: 200_000 });
  private readonly perMs: number;

  constructor(
    readonly limit: number,
    windowSeconds: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.perMs = limit / (windowSeconds * 1000);
  }

  get enabled(): boolean {
    return this.limit > 0;
  }

  /** Spends `weight` tokens (a batch weighs its size; more than the bucket holds weighs the whole bucket). */
  take(ip: string, weight = 1): RateDecision {
    const cost = Math.min(weight, this.limit);
    const now = this.now();
    let b = this.buckets.get(ip);
    if (!b) {
      b = { tokens: this.limit, at: now };
      this.buckets.set(ip, b);
    } else {
      b.tokens = Math.min(this.limit, b.tokens + (now - b.at) * this.perMs);
      b.at = now;
    }
    if (b.tokens >= cost) {
      b.tokens -= cost;
      return { allowed: true, limit: this.limit, remaining: Math.floor(b.tokens), retryAfterSeconds: 0 };
    }
    return {
      allowed: false,
      limit: this.limit,
      remaining: Math.floor(b.tokens),
      retryAfterSeconds: Math.max(1, Math.ceil((cost - b.tokens) / this.perMs / 1000)),
    };
  }
}
