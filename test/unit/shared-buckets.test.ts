// The shared token-bucket table (src/http/shared-buckets.ts) on one thread: a full set gives up its
// least recently touched way, addresses keep apart, refill, debt and a changed limit; and
// RateLimiter over a buffer another limiter hands it.

import t from "tap";
import { SharedBuckets, WAYS } from "../../src/http/shared-buckets.js";
import { RateLimiter } from "../../src/http/rate-limit.js";

t.test("a full set gives up its least recently touched way", async (t) => {
  const table = new SharedBuckets(SharedBuckets.create(WAYS)); // one set: every address in it
  t.equal(table.sets, 1);
  const ips = Array.from({ length: WAYS }, (_, i) => `192.0.2.${i}`);
  for (const ip of ips) table.take(ip, 10, 0, 3, 0);
  table.take(ips[0], 10, 0, 3, 0); // 0 is now the most recent; 1 the least
  table.take("198.51.100.1", 10, 0, 1, 0);
  t.equal(table.peek(ips[1]), null, "the least recently touched address lost its bucket");
  t.equal(table.peek(ips[0]), 4, "the one touched again kept its bucket (two spendings of 3)");
  for (const ip of ips.slice(2)) t.equal(table.peek(ip), 7, `${ip} kept its bucket`);
  t.equal(table.peek("198.51.100.1"), 9, "the newcomer took the freed way, full");
  t.equal(table.take(ips[1], 10, 0, 1, 0), 10, "the evicted address starts again full");
  t.equal(table.peek(ips[2]), null, "and pushed out the next least recently touched");
});

t.test("distinct addresses never share a bucket", async (t) => {
  const table = new SharedBuckets(SharedBuckets.create(65_536)); // roomy: no set fills
  const ips = Array.from({ length: 500 }, (_, i) => `2001:db8::${i.toString(16)}`);
  ips.forEach((ip, i) => table.take(ip, 1000, 0, i, 0));
  t.same(
    ips.map((ip) => table.peek(ip)),
    ips.map((_, i) => 1000 - i),
    "each address's balance is its own spending",
  );
});

t.test("refill over time, up to the limit; a refusal spends nothing", async (t) => {
  const table = new SharedBuckets(SharedBuckets.create(64));
  const perMs = 10 / 10_000; // 10 tokens per 10 s
  t.equal(table.take("a", 10, perMs, 10, 0), 10, "a new bucket is full");
  t.equal(table.take("a", 10, perMs, 1, 0), 0, "empty: refused");
  t.equal(table.peek("a"), 0);
  t.equal(table.take("a", 10, perMs, 1, 2500), 2.5, "2.5 s later: 2.5 tokens");
  t.equal(table.peek("a"), 1.5);
  t.equal(table.take("a", 10, perMs, 1, 2000), 1.5, "a clock a hair behind the last stamp refills nothing");
  t.equal(table.take("a", 10, perMs, 1, 1_000_000), 10, "never past the limit");
});

t.test("a charge goes into debt, and refill pays it back first", async (t) => {
  const table = new SharedBuckets(SharedBuckets.create(64));
  const perMs = 10 / 10_000;
  table.charge("new", 4, 10, 0);
  t.equal(table.peek("new"), 6, "an unknown address: a full bucket, charged");
  table.charge("new", 15, 10, 0);
  t.equal(table.peek("new"), -9, "into debt");
  t.equal(table.take("new", 10, perMs, 1, 9000), 0, "9 s of refill only pays the debt: refused");
  t.equal(table.take("new", 10, perMs, 1, 10_000), 1, "one more second: one token");
});

t.test("a bucket filled for another limit gains or loses the difference at once", async (t) => {
  const table = new SharedBuckets(SharedBuckets.create(64));
  table.take("p", 5, 0, 4, 0);
  t.equal(table.take("p", 100, 0, 1, 0), 96, "1 left + 95 granted");
  t.equal(table.take("p", 5, 0, 1, 0), 0, "back to 5: 95 - 95 taken away, refused");
  t.equal(table.take("q", 5, 0, 5, 0), 5);
  t.equal(table.take("q", 3, 0, 1, 0), 0, "a lower limit never leaves a negative balance");
});

t.test("RateLimiter over another limiter's buffer spends from the same buckets", async (t) => {
  let now = 0;
  const lead = new RateLimiter(10, 10, () => now);
  const other = new RateLimiter(10, 10, () => now, lead.sharedBuffer);
  t.equal(lead.take("a", 4).remaining, 6);
  t.equal(other.take("a", 6).remaining, 0, "the other thread's limiter sees the 4 spent");
  t.equal(lead.take("a").allowed, false);
  other.charge("a", 5);
  now = 9000;
  t.same(lead.take("a"), { allowed: true, limit: 10, remaining: 3, retryAfterSeconds: 0 }, "9 refilled - 5 charged - 1");
  t.equal(new RateLimiter(10, 10, () => now).take("a").remaining, 9, "a limiter of its own has its own table");
  t.throws(() => new RateLimiter(10, 10, undefined, new SharedArrayBuffer(100)), RangeError, "a foreign buffer is refused");
});
