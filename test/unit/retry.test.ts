// The webhook retry policy (src/webhooks/retry.ts): delays with jitter, Retry-After honoured on
// 429 and 503 only, 410 and five failing days disable, the eighth attempt is the last.

import t from "tap";
import { DISABLE_AFTER_MS, MAX_ATTEMPTS, RETRY_DELAYS_MS, retryAfterMs, verdict } from "../../src/webhooks/retry.js";

const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const base = { retryAfter: null, nowMs: NOW, failingSinceMs: null, scale: 1, random: () => 0 };

t.test("Retry-After: seconds or an HTTP date, capped at a day; anything else null", async (t) => {
  t.equal(retryAfterMs("120", NOW), 120_000);
  t.equal(retryAfterMs(" 7 ", NOW), 7_000);
  t.equal(retryAfterMs(new Date(NOW + 90_000).toUTCString(), NOW), 90_000);
  t.equal(retryAfterMs(new Date(NOW - 90_000).toUTCString(), NOW), 0, "a date in the past: at once");
  t.equal(retryAfterMs("999999", NOW), 86_400_000, "at most a day");
  t.equal(retryAfterMs("soon", NOW), null);
  t.equal(retryAfterMs(null, NOW), null);
});

t.test("verdicts", async (t) => {
  t.same(verdict({ ...base, statusCode: 204, attempt: 1 }), { kind: "delivered" });
  t.same(verdict({ ...base, statusCode: 302, attempt: 1 }), { kind: "retry", atMs: NOW + RETRY_DELAYS_MS[0] }, "a redirect is a failure");
  t.same(verdict({ ...base, statusCode: 410, attempt: 1 }).kind, "disable");
  t.same(verdict({ ...base, statusCode: 500, attempt: 3 }), { kind: "retry", atMs: NOW + RETRY_DELAYS_MS[2] });
  t.same(verdict({ ...base, statusCode: 500, attempt: 1, random: () => 1 }), { kind: "retry", atMs: NOW + 5_500 }, "10 % jitter at most");
  t.same(verdict({ ...base, statusCode: 500, attempt: MAX_ATTEMPTS }), { kind: "failed" }, "the last attempt");
  t.same(
    verdict({ ...base, statusCode: null, attempt: 2, scale: 100 }),
    { kind: "retry", atMs: NOW + RETRY_DELAYS_MS[1] / 100 },
    "scaled for tests",
  );
});

t.test("Retry-After counts on 429 and 503 only, never sooner than the schedule", async (t) => {
  t.same(verdict({ ...base, statusCode: 429, attempt: 1, retryAfter: "60" }), { kind: "retry", atMs: NOW + 60_000 });
  t.same(verdict({ ...base, statusCode: 503, attempt: 1, retryAfter: "1" }), { kind: "retry", atMs: NOW + 5_000 }, "not sooner than 5 s");
  t.same(verdict({ ...base, statusCode: 500, attempt: 1, retryAfter: "60" }), { kind: "retry", atMs: NOW + 5_000 }, "ignored on a 500");
});

t.test("five days failing disable, judged by the trusted clock", async (t) => {
  const since = NOW - DISABLE_AFTER_MS;
  t.equal(verdict({ ...base, statusCode: 500, attempt: 2, failingSinceMs: since }).kind, "disable");
  t.equal(verdict({ ...base, statusCode: 500, attempt: 2, failingSinceMs: since + 1 }).kind, "retry");
  t.equal(
    verdict({ ...base, statusCode: 500, attempt: 2, failingSinceMs: since, decisionNowMs: NOW - 1 }).kind,
    "retry",
    "a wall clock stepped forward does not",
  );
});
