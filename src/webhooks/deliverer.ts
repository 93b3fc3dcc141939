// Runs inside a dispatcher worker: one FIFO queue per endpoint it owns, at most `cap` requests in
// flight per endpoint (first attempts therefore start in event order), each a signed POST through
// undici with the SSRF guard at connect time, a timeout, and no redirects.
//
// Connections are shared per receiver origin. Requests in flight to one origin are held near
// ORIGIN_SHARE, so a burst reuses connections instead of opening one per request (each a TLS
// handshake on both ends); but an endpoint with nothing in flight may send one more, up to
// ORIGIN_MAX, so a slow endpoint holding the whole share never starves another on the same
// host:port. ORIGIN_MAX is a hard bound: many endpoints on one receiver (1,000 tenants of one
// service) must not open a connection each at once, a storm of handshakes that the receiver, or
// this thread, cannot finish before the attempts time out and are retried on new connections.
// For the same reason the thread has at most THREAD_MAX requests in flight, whatever the origins
// (1,000 endpoints on 1,000 receivers), so the connections it opens at once can be set up well
// within the attempt timeout; endpoints waiting for a slot get one in turn (oldest first), one
// request each time, so endpoints that hang hold at most their caps and take their turn like the others.
// The pool itself has no connection limit: the endpoints' caps and these bounds limit what is in use.

import { readFileSync } from "node:fs";
import { createSecureContext, rootCertificates, type SecureContext } from "node:tls";
import { Agent, type Dispatcher } from "undici";
import type { DispatcherWorkerData, DispatchJob, DispatchResult } from "./protocol.js";
import { signedHeaders } from "./signing.js";
import { SNIPPET_BYTES, utf8Snippet } from "./snippet.js";
import { UrlGuard } from "./url-guard.js";

/** response bytes read (and dropped past the snippet) before the connection is cut instead of reused */
const DRAIN_BYTES = 64 * 1024;
const TIMED_OUT = new Error("attempt timed out");
const TOO_LARGE = new Error("response body too large");

interface Target {
  origin: string;
  path: string;
}

interface Queue {
  active: number;
  waiting: DispatchJob[];
  head: number;
}
/** requests in flight to one origin beyond which an endpoint that already has one in flight waits */
const ORIGIN_SHARE = 64;
/** requests in flight to one origin beyond which every endpoint waits */
const ORIGIN_MAX = 128;
/** requests in flight on this thread beyond which every endpoint waits */
const THREAD_MAX = 256;

export class Deliverer {
  private readonly queues = new Map<string, Queue>();
  private readonly guard: UrlGuard;
  private readonly agent: Agent;
  private readonly targets = new Map<string, Target | string>();
  private readonly originActive = new Map<string, number>();
  /** endpoints with queued jobs waiting for their origin's share, by origin */
  private readonly heldBack = new Map<string, Set<string>>();
  /** requests in flight on this thread */
  private active = 0;
  /** endpoints with queued jobs waiting for a slot of this thread, oldest first */
  private readonly waitingForSlot = new Set<string>();

  constructor(
    private readonly config: DispatcherWorkerData,
    private readonly report: (r: DispatchResult) => void,
  ) {
    this.guard = new UrlGuard(config.allowHosts);
    // One TLS context for every connection: handing `ca` to each connect builds a context per
    // connection, and parsing ~140 root certificates takes tens of ms of this thread each time.
    const secureContext: SecureContext = createSecureContext(
      config.caFile ? { ca: [...rootCertificates, readFileSync(config.caFile, "utf8")] } : {},
    );
    this.agent = new Agent({
      connect: { secureContext, lookup: this.guard.lookupFor(), timeout: config.timeoutMs } as object,
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
      connections: null, // no limit: the endpoints' caps bound what is in use (see above)
    });
  }

  enqueue(job: DispatchJob): void {
    const q = this.queue(job.webhookId);
    q.waiting.push(job);
    this.pump(job.webhookId, q);
  }

  /** `slots` requests of the endpoint may still be running elsewhere: count them against the cap for `forMs`. */
  hold(webhookId: string, slots: number, forMs: number): void {
    const q = this.queue(webhookId);
    q.active += slots;
    setTimeout(() => {
      q.active -= slots;
      this.pump(webhookId, q);
    }, forMs).unref();
  }

  private queue(id: string): Queue {
    let q = this.queues.get(id);
    if (!q) {
      q = { active: 0, waiting: [], head: 0 };
      this.queues.set(id, q);
    }
    return q;
  }

  /** Starts queued jobs (at most `max`) while the endpoint is under its cap, its origin under its share and the thread under its bound (see the header). */
  private pump(id: string, q: Queue, max = Infinity): void {
    for (let started = 0; started < max && q.head < q.waiting.length && q.active < Math.max(1, q.waiting[q.head].cap); started++) {
      if (this.active >= THREAD_MAX) {
        this.waitingForSlot.add(id);
        return;
      }
      const target = this.target(q.waiting[q.head].url);
      const origin = typeof target === "string" ? null : target.origin;
      const inFlight = origin === null ? 0 : (this.originActive.get(origin) ?? 0);
      if (origin !== null && (inFlight >= ORIGIN_MAX || (q.active > 0 && inFlight >= ORIGIN_SHARE))) {
        let held = this.heldBack.get(origin);
        if (!held) {
          held = new Set();
          this.heldBack.set(origin, held);
        }
        held.add(id);
        return;
      }
      const job = q.waiting[q.head++];
      q.active++;
      this.active++;
      if (origin !== null) this.originActive.set(origin, inFlight + 1);
      void this.attempt(job).then((result) => {
        q.active--;
        this.active--;
        if (origin !== null) this.originDone(origin);
        this.report(result);
        // while others wait for a slot of the thread, this endpoint's next request waits behind them
        if (this.waitingForSlot.size > 0 && q.head < q.waiting.length) this.waitingForSlot.add(id);
        else this.pump(id, q);
        this.slotFree();
      });
    }
    // a head index instead of shift() keeps a long queue O(1) per job; compact once drained
    if (q.head === q.waiting.length) {
      q.waiting = [];
      q.head = 0;
      if (q.active === 0) this.queues.delete(id);
    }
  }

  /** Requests ended: endpoints waiting for a slot of this thread go on in turn, one request each (the next waits at the back). */
  private slotFree(): void {
    for (const id of this.waitingForSlot) {
      if (this.active >= THREAD_MAX) return;
      this.waitingForSlot.delete(id);
      const q = this.queues.get(id);
      if (!q) continue;
      // one request now; if it has more to send, it waits for its next turn behind the others
      const before = this.active;
      this.pump(id, q, 1);
      if (this.active > before && q.head < q.waiting.length) this.waitingForSlot.add(id);
    }
  }

  /** A request to `origin` ended: the endpoints waiting for its share may go on. */
  private originDone(origin: string): void {
    const left = (this.originActive.get(origin) ?? 1) - 1;
    if (left === 0) this.originActive.delete(origin);
    else this.originActive.set(origin, left);
    const held = this.heldBack.get(origin);
    if (!held) return;
    this.heldBack.delete(origin);
    for (const id of held) {
      const q = this.queues.get(id);
      if (q) this.pump(id, q);
    }
  }

  private async attempt(job: DispatchJob): Promise<DispatchResult> {
    const started = performance.now();
    const base = { key: job.key, token: job.token, webhookId: job.webhookId, retryAfter: null };
    const target = this.target(job.url);
    if (typeof target === "string") return { ...base, statusCode: null, error: `blocked: ${target}`, durationMs: 0, snippet: "" };
    try {
      const headers = signedHeaders(job.secret, job.eventType, job.eventId, job.body, Math.floor(Date.now() / 1000));
      const r = await this.post(target, headers, job.body);
      return {
        ...base,
        statusCode: r.statusCode,
        error: null,
        durationMs: Math.round(performance.now() - started),
        snippet: r.snippet,
        retryAfter: (r.statusCode === 429 || r.statusCode === 503) && r.retryAfter !== null ? r.retryAfter : null,
      };
    } catch (err) {
      const e = err as Error & { cause?: Error };
      const message = e === TIMED_OUT ? `timeout after ${this.config.timeoutMs} ms` : (e.cause?.message ?? e.message);
      return { ...base, statusCode: null, error: message, durationMs: Math.round(performance.now() - started), snippet: "" };
    }
  }

  /** The static SSRF verdict and the parsed URL, remembered per URL (a thread serves few endpoints). */
  private target(url: string): Target | string {
    let t = this.targets.get(url);
    if (t === undefined) {
      const problem = this.guard.problem(url);
      if (problem) t = problem;
      else {
        const u = new URL(url);
        t = { origin: u.origin, path: `${u.pathname}${u.search}` };
      }
      if (this.targets.size >= 10_000) this.targets.clear();
      this.targets.set(url, t);
    }
    return t;
  }

  /**
   * One POST through undici's dispatch API: no stream objects per response, only the first 1 KB of
   * the body kept (the rest read and dropped so the connection can be reused, up to 64 KB), and one
   * deadline for the whole attempt. Redirects are not followed (no redirect interceptor).
   */
  private post(
    target: Target,
    headers: Record<string, string>,
    body: string,
  ): Promise<{ statusCode: number; retryAfter: string | null; snippet: string }> {
    return new Promise((resolve, reject) => {
      let controller: Dispatcher.DispatchController | null = null;
      let settled = false;
      let statusCode = 0;
      let retryAfter: string | null = null;
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (err: Error | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err && !(err === TOO_LARGE && statusCode >= 200)) {
          reject(err);
          return;
        }
        resolve({ statusCode, retryAfter, snippet: utf8Snippet(Buffer.concat(chunks)) });
      };
      const timer = setTimeout(() => {
        controller?.abort(TIMED_OUT);
        finish(TIMED_OUT);
      }, this.config.timeoutMs);
      this.agent.dispatch(
        { origin: target.origin, path: target.path, method: "POST", headers, body },
        {
          onRequestStart: (c) => {
            controller = c;
            if (settled) c.abort(TIMED_OUT);
          },
          onResponseStart: (_c, status, h) => {
            if (status < 200) return; // 1xx
            statusCode = status;
            const ra = h["retry-after"];
            retryAfter = ra === undefined ? null : String(ra);
          },
          onResponseData: (c, chunk) => {
            if (size < SNIPPET_BYTES) chunks.push(chunk);
            size += chunk.length;
            if (size > DRAIN_BYTES) {
              c.abort(TOO_LARGE);
              finish(TOO_LARGE);
            }
          },
          onResponseEnd: () => finish(null),
          onResponseError: (_c, err) => finish(err),
        },
      );
    });
  }
}
