// Per-IP token buckets: `limit` tokens refilled evenly over `window` seconds, so a client may
// burst up to the limit and then sustains limit/window per second. Buckets live in an LRU, so a
// flood of distinct addresses costs bounded memory. Refills are timed by the monotonic clock:
// with the wall clock, a backward step refused known clients for the length of the step. With
// several nodes (shared-rate-limits.ts), each node's spending is counted for the others, which
// charge it to their own buckets.

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
  /** the limit the bucket was filled for: a client granted a higher one gets the difference at once */
  limit: number;
}

export class RateLimiter {
  private readonly buckets = new LRUCache<string, Bucket>({ max: 200_000 });
  private readonly perMs: number;
  /** A client's own limit per window where it has one (a licence's entitlement), else null. */
  limitFor: ((ip: string) => number | null) | null = null;
  /** tokens spent per address since the last drainSpent(), kept only while other nodes read them */
  private spent: Map<string, number> | null = null;

  constructor(
    readonly limit: number,
    readonly windowSeconds: number,
    private readonly now: () => number = () => performance.now(),
    _shared?: SharedArrayBuffer,
  ) {
    this.perMs = limit / (windowSeconds * 1000);
  }

  get sharedBuffer(): SharedArrayBuffer | null {
    return null;
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
    const now = this.now();
    let b = this.buckets.get(ip);
    if (!b) {
      b = { tokens: limit, at: now, limit };
      this.buckets.set(ip, b);
    } else {
      if (b.limit !== limit) {
        b.tokens = Math.max(0, b.tokens + limit - b.limit);
        b.limit = limit;
      }
      b.tokens = Math.min(limit, b.tokens + (now - b.at) * perMs);
      b.at = now;
    }
    if (b.tokens >= cost) {
      b.tokens -= cost;
      this.addSpent(ip, cost);
      return { allowed: true, limit, remaining: Math.floor(b.tokens), retryAfterSeconds: 0 };
    }
    return {
      allowed: false,
      limit,
      remaining: Math.max(0, Math.floor(b.tokens)),
      retryAfterSeconds: Math.max(1, Math.ceil((cost - b.tokens) / perMs / 1000)),
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
    const limit = this.limitFor?.(ip) ?? this.limit;
    const b = this.buckets.get(ip);
    if (b) b.tokens -= tokens;
    else this.buckets.set(ip, { tokens: limit - tokens, at: this.now(), limit });
  }
}
