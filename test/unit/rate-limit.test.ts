// The per-IP token buckets (src/http/rate-limit.ts): weights, a client's own limit (a licence's
// entitlement) and the difference it grants at once, with an injected clock.

import t from "tap";
import { RateLimiter } from "../../src/http/rate-limit.js";

t.test("a weight spends that many tokens; more than the bucket spends the whole bucket", async (t) => {
  let now = 0;
  const limiter = new RateLimiter(10, 10, () => now);
  t.same(limiter.take("a", 4), { allowed: true, limit: 10, remaining: 6, retryAfterSeconds: 0 });
  const refused = limiter.take("a", 7);
  t.equal(refused.allowed, false, "7 with 6 left");
  t.equal(refused.remaining, 6, "a refusal spends nothing");
  t.equal(refused.retryAfterSeconds, 1, "1 token a second: 1 s for the one missing");
  now = 4000;
  t.equal(limiter.take("a", 50).allowed, true, "refilled to 10: a weight of 50 costs the whole bucket");
  t.equal(limiter.take("a").allowed, false, "and leaves nothing");
  t.equal(limiter.take("b", 3).remaining, 7, "another address has its own bucket");
});

t.test("a client's own limit: its bucket, its refill rate, and a new grant added at once", async (t) => {
  let now = 0;
  const limiter = new RateLimiter(5, 10, () => now);
  let granted: number | null = null;
  limiter.limitFor = (ip) => (ip === "partner" ? granted : null);
  t.equal(limiter.take("partner", 4).remaining, 1, "no grant yet: the default 5");
  granted = 100;
  const after = limiter.take("partner");
  t.equal(after.limit, 100);
  t.equal(after.remaining, 95, "1 left + the 95 the grant adds - 1 spent");
  t.equal(limiter.take("other").limit, 5, "an unlisted client keeps the default");
  limiter.take("partner", 95);
  now = 1000;
  t.equal(limiter.take("partner").remaining, 9, "refills at 100 per 10 s: 10 in a second, 1 spent");
  granted = null;
  const back = limiter.take("partner");
  t.same([back.allowed, back.limit], [false, 5], "the grant gone: down to the default, the excess taken away");
});
