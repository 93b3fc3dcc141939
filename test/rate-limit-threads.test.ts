// The per-IP rate limit across front threads: 4 worker threads, each with its own RateLimiter over
// the lead's shared buffer, take from the same addresses at once, started together. Every address
// must be granted exactly its limit in total: none over (a bucket per thread) and none lost (a
// spending overwritten by another thread's).

import t from "tap";
import { Worker } from "node:worker_threads";
import { ROOT } from "./helpers/server.js";

const url = (p: string): string => new URL(`dist/src/${p}`, `file://${ROOT}/`).href;
interface Limiter {
  take(ip: string, weight?: number): { allowed: boolean; remaining: number };
  readonly sharedBuffer: SharedArrayBuffer;
}
const { RateLimiter } = (await import(url("http/rate-limit.js"))) as {
  RateLimiter: new (limit: number, windowSeconds: number, now?: () => number, shared?: SharedArrayBuffer) => Limiter;
};
const { SharedBuckets } = (await import(url("http/shared-buckets.js"))) as {
  SharedBuckets: { create(slots?: number): SharedArrayBuffer };
};

const LIMIT = 1000;
const WINDOW = 1e9; // seconds: refill during the test stays far below one token
const THREADS = 4;

// Each thread waits for the start signal, then takes round-robin over the addresses and reports
// how many takes (and tokens) each address was granted.
const workerCode = `
const { workerData, parentPort } = require("node:worker_threads");
(async () => {
  const { RateLimiter } = await import(workerData.url);
  const limiter = new RateLimiter(${LIMIT}, ${WINDOW}, undefined, workerData.buffer);
  const start = new Int32Array(workerData.start);
  Atomics.add(start, 1, 1);
  Atomics.notify(start, 1);
  Atomics.wait(start, 0, 0);
  const granted = workerData.ips.map(() => 0);
  for (let round = 0; round < workerData.rounds; round++) {
    for (let i = 0; i < workerData.ips.length; i++) {
      const weight = workerData.weights[i];
      if (limiter.take(workerData.ips[i], weight).allowed) granted[i] += weight;
    }
  }
  parentPort.postMessage(granted);
})();
`;

async function race(buffer: SharedArrayBuffer, ips: string[], weights: number[], rounds: number): Promise<number[]> {
  const start = new Int32Array(new SharedArrayBuffer(8));
  const workers = Array.from(
    { length: THREADS },
    () =>
      new Worker(workerCode, {
        eval: true,
        workerData: { url: url("http/rate-limit.js"), buffer, start: start.buffer, ips, weights, rounds },
      }),
  );
  const results = workers.map(
    (w) =>
      new Promise<number[]>((resolve, reject) => {
        w.once("message", resolve);
        w.once("error", reject);
      }),
  );
  // every thread ready and waiting, then all released at once
  while (Atomics.load(start, 1) < THREADS) await new Promise((r) => setTimeout(r, 5));
  Atomics.store(start, 0, 1);
  Atomics.notify(start, 0);
  const granted = await Promise.all(results);
  await Promise.all(workers.map((w) => w.terminate()));
  return ips.map((_, i) => granted.reduce((sum, g) => sum + g[i], 0));
}

t.test("one address hit from 4 threads at once gets exactly its limit", async (t) => {
  const lead = new RateLimiter(LIMIT, WINDOW);
  const total = await race(lead.sharedBuffer, ["203.0.113.7"], [1], 5 * LIMIT);
  t.equal(total[0], LIMIT, "granted across the threads: the limit, no more, no less");
  const next = lead.take("203.0.113.7");
  t.same([next.allowed, next.remaining], [false, 0], "and the lead's limiter sees it spent");
});

t.test("several addresses in one contended set, weights too: each gets exactly its limit", async (t) => {
  const buffer = SharedBuckets.create(8); // one set of 8 ways: every take contends for one lock
  const ips = ["203.0.113.1", "203.0.113.2", "2001:db8::1", "2001:db8::2", "198.51.100.9"];
  const weights = [1, 1, 1, 3, 7];
  const total = await race(buffer, ips, weights, 2 * LIMIT);
  t.same(
    total,
    weights.map((w) => w * Math.floor(LIMIT / w)),
    "each address: its limit, in whole weights",
  );
  const lead = new RateLimiter(LIMIT, WINDOW, undefined, buffer);
  ips.forEach((ip, i) => {
    const next = lead.take(ip, weights[i]);
    t.same([next.allowed, next.remaining], [false, LIMIT - total[i]], `${ip}: the lead's view has the same balance left`);
  });
});
