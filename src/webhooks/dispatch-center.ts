// The front's side of dispatch. Deliveries reach the dispatcher threads two ways:
// - straight from intake: rows stored (leased) by a POST /v1/events (on the intake writer thread,
//   within the allowance the front gave its slice) or a POST /v1/inbound that just committed are
//   handed to their owner thread without being read back, as long as nothing older is waiting;
// - from the outbox: a poll hands out due rows (retries, manual redeliveries, everything at start,
//   anything intake could not hand straight over), oldest first, leasing them in one transaction.
// A lease keeps a row from being handed out twice; leases are cleared at start, so after kill -9
// every unfinished delivery goes out again. Results come back in batches and are written to the
// delivery log in one transaction per flush, with the retry policy deciding each next step. Test
// dispatches take the same path.
//
// A dispatcher thread that dies is replaced for the same partition of endpoints: its deliveries are
// taken back (their leases released, so they are read again from the outbox in order) and the new
// thread counts the requests the old one may have left running at the receivers against each
// endpoint's cap until they would have timed out. Restarts back off when a thread keeps dying.

import { Worker } from "node:worker_threads";
import type { Metrics } from "../http/metrics.js";
import type { StateDb } from "../store/state-db.js";
import { writeFailures } from "../store/write-failure.js";
import type { InboundStore } from "./inbound-store.js";
import { relaxedTransaction, type Delivery, type Outbox, type Outcome } from "./outbox.js";
import { ownerOf, type DispatcherWorkerData, type DispatchJob, type DispatchResult, type FromWorker, type ToWorker } from "./protocol.js";
import { RestartBackoff } from "./restart-backoff.js";
import { isSuccess, verdict } from "./retry.js";
import type { WebhookStore } from "./webhook-store.js";

/** due rows read per query */
const BATCH = 2000;
const POLL_MS = 200;
/** deliveries on their way at once (in memory here and in the threads); beyond that, rows wait in the outbox */
const MAX_HANDED = 20_000;
/**
 * Results are written at most this long after they arrive, in one transaction per flush: the
 * per-result cost of a flush falls from ~37 µs at 10 results to ~15 µs at 200 (pages written once
 * for many rows). A test dispatch's result is written at once (its caller is waiting).
 */
const FLUSH_MS = 25;
const FLUSH_MAX = 2000;

const RESTARTS_METRIC = "leidex_webhook_dispatcher_restarts_total";
const RESTARTS_HELP = "Dispatcher threads that died and were replaced.";

export interface DispatchCenterOptions {
  workers: number;
  workerData: Omit<DispatcherWorkerData, "partition">;
  scale: number;
  nowMs: () => number;
  /** the time "failing for 5 days" is judged by (a TrustedClock); default nowMs */
  decisionNowMs?: () => number;
  log: (line: string) => void;
  metrics: Metrics | null;
}

export interface TestOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  snippet: string;
}

/** Rows a committed intake transaction stored for dispatch; `direct` = stored leased, to be handed over now. */
export interface HandOff {
  rows: Delivery[];
  direct: boolean;
}

interface Handed {
  d: Delivery;
  token: number;
  part: number;
}
interface Test {
  token: number;
  part: number;
  eventType: string;
  eventId: string;
  webhookId: string;
  done: (r: TestOutcome) => void;
}
interface Partition {
  worker: Worker | null;
  restarts: RestartBackoff;
  queued: ToWorker[];
  restartTimer: NodeJS.Timeout | null;
}
type Returned = { kind: "delivery"; h: Handed; r: DispatchResult } | { kind: "test"; t: Test; r: DispatchResult };

export class DispatchCenter {
  private readonly parts: Partition[] = [];
  private readonly tests = new Map<string, Test>();
  private readonly handed = new Map<string, Handed>();
  private returned: Returned[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private timer: NodeJS.Timeout | null = null;
  private tokens = 0;
  /** due rows may be waiting in the outbox: intake must not hand newer rows past them */
  private backlog = true;
  private kicked = false;
  private stopped = false;

  constructor(
    private readonly db: StateDb,
    private readonly outbox: Outbox,
    private readonly webhooks: WebhookStore,
    private readonly inbound: InboundStore,
    private readonly opts: DispatchCenterOptions,
  ) {
    outbox.clearLeases();
    opts.metrics?.increment(RESTARTS_METRIC, RESTARTS_HELP, 0);
    for (let i = 0; i < opts.workers; i++)
      this.parts.push({ worker: null, restarts: new RestartBackoff(), queued: [], restartTimer: null });
  }

  start(): void {
    for (let i = 0; i < this.parts.length; i++) this.spawn(i);
    this.timer = setInterval(() => this.pump(), POLL_MS);
    this.timer.unref();
    this.pump();
  }

  /** Deliveries on their way (handed to a thread, result not yet written). */
  get inFlight(): number {
    return this.handed.size;
  }

  /**
   * How many new rows may be stored leased and handed straight over by handOff: asked by the
   * intake writer's front before each slice (the slice's own rows count against it on the
   * writer's side) and by POST /v1/inbound before it stores its row. 0 while older due rows wait
   * in the outbox (first attempts keep event order) or too many are on their way; rows refused
   * wait in the outbox for the poll.
   */
  directAllowance(): number {
    if (this.stopped || this.backlog) return 0;
    return Math.max(0, MAX_HANDED - this.handed.size);
  }

  /** After intake committed: hands its rows over, or has the poll look for them soon. */
  handOff(h: HandOff): void {
    if (h.rows.length === 0) return;
    // rows stored unleased wait in the outbox: nothing newer may pass them until the poll has them
    if (!h.direct) this.backlog = true;
    if (!h.direct || this.stopped) {
      this.kick();
      return;
    }
    const failed = this.handOut(h.rows);
    if (failed.length > 0) this.outbox.fail(failed, this.opts.nowMs());
  }

  /**
   * The intake writer died during a slice: rows after `afterSeq` it may have stored leased (and
   * committed) were never handed over. Releases every lease after it that is not on its way.
   */
  releaseAfter(afterSeq: number): void {
    const onTheirWay: number[] = [];
    for (const h of this.handed.values()) if (h.d.seq > afterSeq) onTheirWay.push(h.d.seq);
    this.outbox.releaseAfter(afterSeq, onTheirWay);
    this.backlog = true;
    this.kick();
  }

  /** New rows are due: hand them out soon. */
  kick(): void {
    if (this.kicked) return;
    this.kicked = true;
    setImmediate(() => {
      this.kicked = false;
      this.pump();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.flush();
    for (const p of this.parts) if (p.restartTimer) clearTimeout(p.restartTimer);
    await Promise.all(this.parts.map((p) => p.worker?.terminate()));
  }

  private spawn(part: number): void {
    const p = this.parts[part];
    const w = new Worker(new URL("../../workers/dispatcher.js", import.meta.url), {
      workerData: { ...this.opts.workerData, partition: part } satisfies DispatcherWorkerData,
    });
    p.worker = w;
    p.restarts.started();
    w.on("message", (m: FromWorker) => {
      if (m.type === "results") this.onResults(m.results);
    });
    w.on("error", (err) => this.opts.log(`dispatcher ${part} failed: ${err.message}`));
    w.on("exit", (code) => this.onExit(part, w, code));
    w.unref();
    for (const m of p.queued) w.postMessage(m);
    p.queued = [];
  }

  private post(part: number, message: ToWorker): void {
    const p = this.parts[part];
    if (p.worker) p.worker.postMessage(message);
    else p.queued.push(message); // the partition's thread is being replaced
  }

  /** Where a delivery goes: an enabled webhook or an inbound route (both signed the same way). */
  private endpoint(id: string): { id: string; url: string; secret: string; max_concurrency: number } | null {
    const w = this.webhooks.byIdAnyTenant(id);
    if (w) return w.status === "enabled" ? w : null;
    return this.inbound.byIdAnyTenant(id);
  }

  /** Sends rows to their owner threads (one message per thread); returns the seqs of rows whose endpoint is gone. */
  private handOut(rows: Delivery[]): number[] {
    const failed: number[] = [];
    const jobs = new Map<number, DispatchJob[]>();
    for (const d of rows) {
      const e = this.endpoint(d.webhook_id);
      if (!e) {
        failed.push(d.seq);
        continue;
      }
      const part = ownerOf(e.id, this.parts.length);
      const token = ++this.tokens;
      this.handed.set(d.id, { d, token, part });
      let list = jobs.get(part);
      if (!list) jobs.set(part, (list = []));
      list.push({
        key: d.id,
        token,
        webhookId: e.id,
        url: e.url,
        secret: e.secret,
        eventType: d.event_type,
        eventId: d.event_id,
        body: d.body,
        cap: e.max_concurrency,
      });
    }
    for (const [part, list] of jobs) this.post(part, { type: "jobs", jobs: list });
    return failed;
  }

  private pump(): void {
    if (this.stopped) return;
    try {
      this.pumpOnce();
    } catch (err) {
      // a failing disk must not take the server down from a timer; the next poll tries again
      if (!writeFailures.note("webhook hand-out", err)) this.opts.log(`handing out webhook deliveries failed: ${(err as Error).message}`);
    }
  }

  private pumpOnce(): void {
    for (;;) {
      const room = Math.min(BATCH, MAX_HANDED - this.handed.size);
      if (room <= 0) {
        this.backlog = true;
        return;
      }
      const due = this.outbox.due(this.opts.nowMs(), room);
      if (due.length > 0) {
        // lease first: if the write fails nothing is handed out
        this.outbox.lease(
          due.map((d) => d.seq),
          true,
        );
        const failed = this.handOut(due);
        if (failed.length > 0) this.outbox.fail(failed, this.opts.nowMs());
      }
      if (due.length < room) {
        this.backlog = false;
        return;
      }
    }
  }

  /** One signed attempt of a sample body, through the endpoint's worker (and so under its cap). */
  test(webhookId: string, eventType: string, body: string, eventId: string): Promise<TestOutcome> {
    const w = this.webhooks.byIdAnyTenant(webhookId)!;
    const key = `test_${eventId}`;
    const part = ownerOf(webhookId, this.parts.length);
    const token = ++this.tokens;
    return new Promise((resolve) => {
      this.tests.set(key, { token, part, eventType, eventId, webhookId, done: resolve });
      this.post(part, {
        type: "jobs",
        jobs: [{ key, token, webhookId, url: w.url, secret: w.secret, eventType, eventId, body, cap: w.max_concurrency }],
      });
    });
  }

  private onResults(results: DispatchResult[]): void {
    let urgent = false;
    for (const r of results) {
      const t = this.tests.get(r.key);
      if (t) {
        if (t.token === r.token) {
          this.tests.delete(r.key);
          this.returned.push({ kind: "test", t, r });
          urgent = true;
        }
        continue;
      }
      const h = this.handed.get(r.key);
      // stale: taken back when its thread died, and perhaps handed out again since
      if (!h || h.token !== r.token) continue;
      this.handed.delete(r.key);
      this.returned.push({ kind: "delivery", h, r });
    }
    if (urgent || this.returned.length >= FLUSH_MAX) this.flush();
    else if (!this.flushTimer && this.returned.length > 0) this.flushTimer = setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Writes the returned results (attempts, delivery states, endpoint health) in one transaction. */
  private flush(): void {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = null;
    }
    if (this.returned.length === 0) return;
    const batch = this.returned;
    this.returned = [];
    let written: { disabled: { id: string; reason: string }[]; tests: { t: Test; r: DispatchResult }[] };
    try {
      // no fsync: a result lost to a power cut only means the delivery goes out again (at least
      // once), and an endpoint health change lost with it is made again by the next answer
      written = relaxedTransaction(this.db, () => this.write(batch, this.opts.nowMs()));
    } catch (err) {
      // the disk refused (full, I/O error): keep the results and try again in a second rather
      // than take the server down; their rows stay leased, so nothing is sent twice meanwhile
      if (!writeFailures.note("webhook results", err))
        this.opts.log(`writing ${batch.length} webhook results failed, retrying: ${(err as Error).message}`);
      this.returned = batch.concat(this.returned);
      this.flushTimer ??= setTimeout(() => this.flush(), 1000);
      return;
    }
    for (const x of written.disabled) this.opts.log(`webhook ${x.id} disabled: ${x.reason}`);
    for (const { t, r } of written.tests)
      t.done({ statusCode: r.statusCode, error: r.error, durationMs: r.durationMs, snippet: r.snippet });
    // room was made: rows waiting in the outbox can go
    if (this.backlog) this.kick();
  }

  /** The body of a flush's transaction: verdicts, the delivery log, delivery states, endpoint health. */
  private write(batch: Returned[], now: number): { disabled: { id: string; reason: string }[]; tests: { t: Test; r: DispatchResult }[] } {
    const outcomes: Outcome[] = [];
    const disabled: { id: string; reason: string }[] = [];
    const tests: { t: Test; r: DispatchResult }[] = [];
    for (const item of batch) {
      const r = item.r;
      const ok = isSuccess(r.statusCode);
      const common = {
        webhook_id: r.webhookId,
        status_code: r.statusCode,
        error: r.error,
        duration_ms: r.durationMs,
        response_snippet: r.snippet,
        attempted_at: now,
        outcome: ok ? ("success" as const) : ("failure" as const),
      };
      if (item.kind === "test") {
        tests.push(item);
        outcomes.push({
          seq: 0,
          attempt: {
            ...common,
            delivery_id: r.key,
            event_id: item.t.eventId,
            event_type: item.t.eventType,
            attempt: 1,
            trigger: "test",
            next_attempt_at: null,
          },
          status: "delivered",
          nextAttemptAt: 0,
        });
        continue;
      }
      const d = item.h.d;
      const attempt = d.attempts + 1;
      let w = this.webhooks.byIdAnyTenant(r.webhookId);
      const v = verdict({
        statusCode: r.statusCode,
        attempt,
        retryAfter: r.retryAfter,
        nowMs: now,
        failingSinceMs: w?.failing_since ?? null,
        scale: this.opts.scale,
        decisionNowMs: this.opts.decisionNowMs?.(),
      });
      // an endpoint disabled or deleted while this attempt was on its way gets no retry: its
      // pending deliveries were failed, and this one must not come back to life
      const retry = v.kind === "retry" && this.endpoint(r.webhookId) !== null;
      const next = retry ? v.atMs : null;
      outcomes.push({
        seq: d.seq,
        attempt: {
          ...common,
          delivery_id: d.id,
          event_id: d.event_id,
          event_type: d.event_type,
          attempt,
          trigger: d.trigger,
          next_attempt_at: next,
        },
        status: v.kind === "delivered" ? "delivered" : retry ? "pending" : "failed",
        nextAttemptAt: next ?? 0,
      });
      if (!w) continue;
      if (v.kind === "delivered") {
        if (w.failing_since !== null) this.webhooks.update(w, { failing_since: null });
      } else if (v.kind === "disable") {
        if (w.status === "enabled") {
          w = this.webhooks.update(w, { status: "disabled", disabled_reason: v.reason });
          disabled.push({ id: w.id, reason: v.reason });
        }
      } else if (w.failing_since === null) {
        this.webhooks.update(w, { failing_since: now });
      }
    }
    this.outbox.record(outcomes, now);
    // after the outcomes, so that a retry recorded in this batch cannot revive a disabled endpoint's row
    for (const x of disabled) this.outbox.failPending(x.id, now);
    return { disabled, tests };
  }

  private onExit(part: number, w: Worker, code: number): void {
    const p = this.parts[part];
    if (this.stopped || p.worker !== w) return;
    p.worker = null;
    this.opts.metrics?.increment(RESTARTS_METRIC, RESTARTS_HELP);
    const delay = p.restarts.died();
    // take back everything the thread held; the outbox hands it out again in order
    const back: Handed[] = [];
    for (const h of this.handed.values()) if (h.part === part) back.push(h);
    const perEndpoint = new Map<string, number>();
    for (const h of back) {
      this.handed.delete(h.d.id);
      perEndpoint.set(h.d.webhook_id, (perEndpoint.get(h.d.webhook_id) ?? 0) + 1);
    }
    for (const [key, t] of this.tests) {
      if (t.part !== part) continue;
      this.tests.delete(key);
      perEndpoint.set(t.webhookId, (perEndpoint.get(t.webhookId) ?? 0) + 1);
      t.done({ statusCode: null, error: "dispatcher thread died during the attempt", durationMs: 0, snippet: "" });
    }
    try {
      this.outbox.lease(
        back.map((h) => h.d.seq),
        false,
      );
    } catch (err) {
      // still leased: they go out again at the next start (at least once), not before
      this.opts.log(`releasing the deliveries of dispatcher ${part} failed: ${(err as Error).message}`);
    }
    this.backlog = true;
    // the new thread's first messages: what may still be running at each receiver counts against its cap
    for (const [webhookId, n] of perEndpoint) {
      const cap = this.endpoint(webhookId)?.max_concurrency ?? n;
      p.queued.push({ type: "hold", webhookId, slots: Math.min(n, cap), forMs: this.opts.workerData.timeoutMs });
    }
    this.opts.log(
      `dispatcher ${part} exited (code ${code}); ${back.length} deliveries go out again from the outbox; restarting it${delay ? ` in ${delay} ms` : ""}`,
    );
    p.restartTimer = setTimeout(() => {
      p.restartTimer = null;
      if (this.stopped) return;
      this.spawn(part);
      this.pump();
    }, delay);
  }
}
