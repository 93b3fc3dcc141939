// The retry policy: the first attempt at once, then retries after 5 s, 5 min, 30 min, 2 h, 5 h,
// 10 h and 10 h (eight attempts), each delay stretched by up to 10 % jitter. Retry-After on 429
// and 503 is honoured (never retried sooner, at most a day; never scaled). A 410 disables the endpoint, and so
// do five days of failures without a success. `scale` divides every delay (a test-only knob,
// LEIDEX_WEBHOOK_TIME_SCALE) so that tests see the whole schedule in seconds.

export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const DISABLE_AFTER_MS = 5 * 86_400_000;
const MAX_RETRY_AFTER_MS = 86_400_000;

export type Verdict = { kind: "delivered" } | { kind: "retry"; atMs: number } | { kind: "failed" } | { kind: "disable"; reason: string };

/** Retry-After as delta-seconds or an HTTP date, in ms from now; null when unreadable. */
/** Only a 2xx answer counts as a delivery (a redirect is not followed, so it fails). */
export const isSuccess = (statusCode: number | null): boolean => statusCode !== null && statusCode >= 200 && statusCode < 300;

export function retryAfterMs(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.min(Math.max(0, t - nowMs), MAX_RETRY_AFTER_MS);
}

/**
 * `nowMs` is the retry clock (a SteadyClock: no step of the wall clock moves it): the next attempt
 * is due `atMs` on that clock, compared against it again when due rows are looked for, so a retry
 * waits its backoff in real time whatever the wall clock does. `wallNowMs` (default nowMs) only
 * reads a Retry-After given as an HTTP date. `decisionNowMs` (a TrustedClock reading, default
 * nowMs) judges "failing for 5 days", so that a forward clock step cannot disable endpoints.
 */
export function verdict(opts: {
  statusCode: number | null;
  attempt: number;
  retryAfter: string | null;
  nowMs: number;
  failingSinceMs: number | null;
  scale: number;
  random?: () => number;
  decisionNowMs?: number;
  wallNowMs?: number;
}): Verdict {
  const { statusCode, attempt, nowMs, scale } = opts;
  if (isSuccess(statusCode)) return { kind: "delivered" };
  if (statusCode === 410) return { kind: "disable", reason: "receiver answered 410 Gone" };
  if (opts.failingSinceMs !== null && (opts.decisionNowMs ?? nowMs) - opts.failingSinceMs >= DISABLE_AFTER_MS / scale) {
    return { kind: "disable", reason: "failing for 5 days" };
  }
  if (attempt >= MAX_ATTEMPTS) return { kind: "failed" };
  const base = RETRY_DELAYS_MS[attempt - 1] ?? RETRY_DELAYS_MS[RETRY_DELAYS_MS.length - 1];
  let delay = (base * (1 + 0.1 * (opts.random ?? Math.random)())) / scale;
  // the receiver's own wish is in real seconds and is never scaled
  const asked = statusCode === 429 || statusCode === 503 ? retryAfterMs(opts.retryAfter, opts.wallNowMs ?? nowMs) : null;
  if (asked !== null) delay = Math.max(delay, asked);
  return { kind: "retry", atMs: nowMs + Math.round(delay) };
}
