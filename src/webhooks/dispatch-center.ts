// The front's side of dispatch: hands due outbox rows to the dispatcher worker that owns their
// endpoint (a lease flag keeps them from being handed out twice; leases are cleared at start, so
// after kill -9 every unfinished delivery goes out again), records each result in the delivery
// log and decides the next step with the retry policy. Test dispatches take the same path.

import { Worker } from "node:worker_threads";
import type { StateDb } from "../store/state-db.js";
import type { InboundStore } from "./inbound-store.js";
import type { Delivery, Outbox } from "./outbox.js";
import { ownerOf, type DispatcherWorkerData, type DispatchJob, type DispatchResult, type FromWorker, type ToWorker } from "./protocol.js";
import { verdict } from "./retry.js";
import type { WebhookStore } from "./webhook-store.js";

const BATCH = 2000;
const POLL_MS = 200;

export interface DispatchCenterOptions {
  workers: number;
  workerData: DispatcherWorkerData;
  scale: number;
  nowMs: () => number;
  log: (line: string) => void;
}

export interface TestOutcome { statusCode: number | null; error: string | null; durationMs: number; snippet: string }

export class DispatchCenter {
  private readonly workers: Worker[] = [];
  private readonly tests = new Map<string, { eventType: string; done: (r: DispatchResult) => void }>();
  private readonly handed = new Map<string, Delivery>();
  private timer: NodeJS.Timeout | null = null;
  private kicked = false;
  private stopped = false;

  constructor(
    private readonly db: StateDb, private readonly outbox: Outbox, private readonly webhooks: WebhookStore,
    private readonly inbound: InboundStore, private readonly opts: DispatchCenterOptions,
  ) {
    db.exec("UPDATE deliveries SET leased = 0 WHERE leased = 1");
  }

  start(): void {
    for (let i = 0; i < this.opts.workers; i++) {
      const w = new Worker(new URL("../../workers/dispatcher.js", import.meta.url), { workerData: this.opts.workerData });
      w.on("message", (m: FromWorker) => { if (m.type === "result") this.onResult(m.result); });
      w.on("error", (err) => this.opts.log(`dispatcher ${i} failed: ${err.message}`));
      w.unref();
      this.workers.push(w);
    }
    this.timer = setInterval(() => this.pump(), POLL_MS);
    this.timer.unref();
    this.pump();
  }

  /** New rows are due: hand them out soon. */
  kick(): void {
    if (this.kicked) return;
    this.kicked = true;
    setImmediate(() => { this.kicked = false; this.pump(); });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private send(job: DispatchJob): void {
    const message: ToWorker = { type: "job", job };
    this.workers[ownerOf(job.webhookId, this.workers.length)].postMessage(message);
  }

  private pump(): void {
    if (this.stopped) return;
    for (;;) {
      const due = this.outbox.due(this.opts.nowMs(), BATCH);
      if (due.length === 0) return;
      const lease = this.db.prepare("UPDATE deliveries SET leased = 1 WHERE id = ?");
      const fail = this.db.prepare("UPDATE deliveries SET status = 'failed' WHERE id = ?");
      const jobs: DispatchJob[] = [];
      this.db.transaction(() => {
        for (const d of due) {
          const w = this.endpoint(d.webhook_id);
          if (!w) { fail.run(d.id); continue; }
          lease.run(d.id);
          this.handed.set(d.id, d);
          jobs.push({ key: d.id, webhookId: w.id, url: w.url, secret: w.secret, eventType: d.event_type, eventId: d.event_id, body: d.body, cap: w.max_concurrency });
        }
      })();
      for (const job of jobs) this.send(job);
      if (due.length < BATCH) return;
    }
  }

  /** Where a delivery goes: an enabled webhook or an inbound route (both signed the same way). */
  private endpoint(id: string): { id: string; url: string; secret: string; max_concurrency: number } | null {
    const w = this.webhooks.byIdAnyTenant(id);
    if (w) return w.status === "enabled" ? w : null;
    return this.inbound.byIdAnyTenant(id);
  }

  /** One signed attempt of a sample body, through the endpoint's worker (and so under its cap). */
  test(webhookId: string, eventType: string, body: string, eventId: string): Promise<TestOutcome> {
    const w = this.webhooks.byIdAnyTenant(webhookId)!;
    const key = `test_${eventId}`;
    return new Promise((resolve) => {
      this.tests.set(key, { eventType, done: (r) => resolve({ statusCode: r.statusCode, error: r.error, durationMs: r.durationMs, snippet: r.snippet }) });
      this.send({ key, webhookId, url: w.url, secret: w.secret, eventType, eventId, body, cap: w.max_concurrency });
    });
  }

  private onResult(r: DispatchResult): void {
    const now = this.opts.nowMs();
    const ok = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
    const test = this.tests.get(r.key);
    if (test) {
      this.tests.delete(r.key);
      this.outbox.record({
        delivery_id: r.key, webhook_id: r.webhookId, event_id: r.key.slice(5), event_type: test.eventType, attempt: 1, trigger: "test",
        status_code: r.statusCode, error: r.error, duration_ms: r.durationMs, response_snippet: r.snippet, attempted_at: now,
        next_attempt_at: null, outcome: ok ? "success" : "failure",
      }, "delivered", 0);
      test.done(r);
      return;
    }
    const d = this.handed.get(r.key);
    if (!d) return;
    this.handed.delete(r.key);
    const attempt = d.attempts + 1;
    let w = this.webhooks.byIdAnyTenant(r.webhookId);
    const v = verdict({ statusCode: r.statusCode, attempt, retryAfter: r.retryAfter, nowMs: now, failingSinceMs: w?.failing_since ?? null, scale: this.opts.scale });
    const status = v.kind === "delivered" ? "delivered" : v.kind === "retry" ? "pending" : "failed";
    const next = v.kind === "retry" ? v.atMs : null;
    this.outbox.record({
      delivery_id: d.id, webhook_id: d.webhook_id, event_id: d.event_id, event_type: d.event_type, attempt, trigger: d.trigger,
      status_code: r.statusCode, error: r.error, duration_ms: r.durationMs, response_snippet: r.snippet, attempted_at: now,
      next_attempt_at: next, outcome: ok ? "success" : "failure",
    }, status, next ?? 0);
    if (!w) return;
    if (v.kind === "delivered") {
      if (w.failing_since !== null) this.webhooks.update(w, { failing_since: null });
    } else if (v.kind === "disable") {
      w = this.webhooks.update(w, { status: "disabled", disabled_reason: v.reason });
      this.outbox.failPending(w.id);
      this.opts.log(`webhook ${w.id} disabled: ${v.reason}`);
    } else if (w.failing_since === null) {
      this.webhooks.update(w, { failing_since: now });
    }
  }
}
