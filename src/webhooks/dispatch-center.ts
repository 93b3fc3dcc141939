// The front's side of dispatch, on either store (its DispatchQueue). Deliveries reach the
// dispatcher threads two ways:
// - straight from intake (state.db only): rows stored leased by a POST /v1/events (on the intake
//   writer thread, within the rooms the front gave its slice) or a POST /v1/inbound that just
//   committed are handed to their owner thread without being read back, as long as nothing older
//   of their endpoint is waiting;
// - from the outbox: a poll claims due rows (retries, manual redeliveries, everything at start,
//   anything intake did not hand straight over; on PostgreSQL every row, of the endpoints this
//   node holds), leasing them as they are read.
// Dispatch is fair (fair-share.ts): each endpoint has at most its hand-out bound on its way (a
// small multiple of its concurrency cap), and when the global bound leaves room for fewer rows
// than are waiting, the room is shared equally by tenant, then by endpoint. A dead endpoint's
// backlog thus holds only its own bound, never the room of the others.
// A lease keeps a row from being handed out twice; after kill -9 every unfinished delivery goes
// out again (state.db clears its leases at start; on PostgreSQL the next holder of an endpoint
// clears them). Results come back in batches, are judged here (the retry policy, endpoint health)
// and written by the queue in one transaction per flush. Test dispatches take the same path.
//
// A dispatcher thread that dies is replaced for the same partition of endpoints: its deliveries are
// taken back (their leases released, so they are read again from the outbox in order) and the new
// thread counts the requests the old one may have left running at the receivers against each
// endpoint's cap until they would have timed out. Restarts back off when a thread keeps dying.

import { Worker } from "node:worker_threads";
import type { Metrics } from "../http/metrics.js";
import { writeFailures } from "../store/write-failure.js";
import type { Delivery, Outcome } from "./outbox.js";
import { fairShare, handBound, type Want } from "./fair-share.js";
import type { DirectRooms } from "./intake-protocol.js";
import { ownerOf, type DispatcherWorkerData, type DispatchJob, type DispatchResult, type FromWorker, type ToWorker } from "./protocol.js";
import { RestartBackoff } from "../os/restart-backoff.js";
import { isSuccess, verdict } from "./retry.js";
import type { DispatchQueue, HealthChange, InboundRoutes, WebhookChange, Webhooks } from "./webhook-state.js";
import type { Webhook } from "./webhook-store.js";

/** due rows read per claim */
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
  /** the retry clock (a SteadyClock): due times are written and compared on it, so no wall-clock step fires a retry early or holds it back */
  nowMs: () => number;
  /** the time "failing for 5 days" is judged by (a TrustedClock); default nowMs */
  decisionNowMs?: () => number;
  /** recorded times (attempted_at, finished_at, failing_since; a RecordClock, never behind the steady time); default Date.now */
  recordNowMs?: () => number;
  log: (line: string) => void;
  metrics: Metrics | null;
}

export interface TestOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  snippet: string;
}

/** Rows a committed intake transaction stored for dispatch; `direct` = stored leased, to be handed over now (all rows, or row by row). */
export interface HandOff {
  rows: Delivery[];
  direct: boolean | readonly boolean[];
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
  /** deliveries on their way, per endpoint */
  private readonly handedOf = new Map<string, number>();
  private returned: Returned[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private timer: NodeJS.Timeout | null = null;
  private tokens = 0;
  /** any endpoint's due rows may be waiting in the outbox (at start, after a lost slice): intake hands nothing straight over */
  private backlogAll = true;
  /** endpoints whose due rows may be waiting in the outbox: intake must not hand their newer rows past them */
  private backlogOf = new Set<string>();
  /** rotates who gets the odd rows of a fair share */
  private turn = 0;
  private kicked = false;
  private pumping = false;
  private pumpAgain = false;
  private flushing = false;
  private stopped = false;

  constructor(
    private readonly queue: DispatchQueue,
    private readonly webhooks: Webhooks,
    private readonly inbound: InboundRoutes,
    private readonly opts: DispatchCenterOptions,
  ) {
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

  /** Endpoints with deliveries on their way from this node. */
  busyEndpoints(): Set<string> {
    return new Set(this.handedOf.keys());
  }

  /** Deliveries on their way (handed to a thread, result not yet written). */
  get inFlight(): number {
    return this.handed.size;
  }

  /**
   * Which new rows may be stored leased and handed straight over by handOff, asked by the intake
   * writer's front before each slice (the slice's own rows count against it on the writer's
   * side): what the global bound leaves, and per endpoint with something on its way what its
   * hand-out bound leaves, none for an endpoint whose older due rows wait in the outbox (first
   * attempts keep event order). Rows refused wait in the outbox for the poll. A pump while the
   * slice is written may fill the same room: an endpoint can briefly hold up to twice its bound.
   */
  directRooms(): DirectRooms {
    const of = new Map<string, number>();
    if (this.stopped || this.backlogAll) return { total: 0, of };
    for (const id of this.backlogOf) of.set(id, 0);
    for (const [id, n] of this.handedOf) if (!of.has(id)) of.set(id, Math.max(0, this.boundOf(id) - n));
    return { total: Math.max(0, MAX_HANDED - this.handed.size), of };
  }

  /** Whether one new row of the endpoint may be stored leased and handed straight over (POST /v1/inbound). */
  mayHandStraight(endpointId: string): boolean {
    if (this.stopped || this.backlogAll || this.backlogOf.has(endpointId) || this.handed.size >= MAX_HANDED) return false;
    return (this.handedOf.get(endpointId) ?? 0) < this.boundOf(endpointId);
  }

  /** After intake committed: hands its rows over, or has the poll look for them soon. */
  handOff(h: HandOff): void {
    if (h.rows.length === 0) return;
    const direct: Delivery[] = [];
    let waiting = false;
    h.rows.forEach((d, i) => {
      if (!this.stopped && (h.direct === true || (h.direct !== false && h.direct[i]))) direct.push(d);
      else {
        // stored unleased, it waits in the outbox: nothing newer of its endpoint may pass it until the poll has it
        this.backlogOf.add(d.webhook_id);
        waiting = true;
      }
    });
    if (direct.length > 0) this.failGone(this.handOut(direct));
    if (waiting) this.kick();
  }

  /**
   * The intake writer died during a slice: rows after `afterSeq` it may have stored leased (and
   * committed) were never handed over. `release` is given the rows after it that are on their way,
   * to release every other lease after it.
   */
  releaseAfter(afterSeq: number, release: (onTheirWay: number[]) => void): void {
    const onTheirWay: number[] = [];
    for (const h of this.handed.values()) if (h.d.seq > afterSeq) onTheirWay.push(h.d.seq);
    release(onTheirWay);
    this.backlogAll = true;
    this.kick();
  }

  /**
   * This node may no longer hold what it was given (its leases could not be renewed in time):
   * every dispatcher thread is replaced, which cuts their requests and takes back their rows.
   */
  abandon(): void {
    for (const p of this.parts) void p.worker?.terminate();
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
    await this.flush();
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

  /** How many deliveries of the endpoint may be on their way at once (an endpoint gone: the smallest bound, to fail its rows). */
  private boundOf(id: string): number {
    return handBound(this.endpoint(id)?.max_concurrency ?? 1);
  }

  private count(endpointId: string, by: number): void {
    const n = (this.handedOf.get(endpointId) ?? 0) + by;
    if (n > 0) this.handedOf.set(endpointId, n);
    else this.handedOf.delete(endpointId);
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
      this.count(d.webhook_id, 1);
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

  /** Rows whose endpoint is gone: failed (a failure to say so leaves them leased until the next start). */
  private failGone(seqs: number[]): void {
    if (seqs.length === 0) return;
    const note = (err: unknown): void =>
      this.opts.log(`failing ${seqs.length} deliveries of removed endpoints failed: ${(err as Error).message}`);
    try {
      void Promise.resolve(this.queue.fail(seqs, this.recordNow())).catch(note);
    } catch (err) {
      note(err);
    }
  }

  private recordNow(): number {
    return this.opts.recordNowMs?.() ?? Date.now();
  }

  /** One pump at a time (a store may answer later); a pump asked for meanwhile runs right after. */
  private pump(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    this.pumpOnce()
      .catch((err: unknown) => {
        // a failing store must not take the server down from a timer; the next poll tries again
        if (!writeFailures.note("webhook hand-out", err)) this.opts.log(`handing out webhook deliveries failed: ${(err as Error).message}`);
      })
      .finally(() => {
        this.pumping = false;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.pump();
        }
      });
  }

  /**
   * Hands out what waits in the outbox, fairly: the endpoints with due rows, each up to its
   * hand-out bound, the global bound shared by tenant then endpoint (fairShare), claimed in
   * rounds until every endpoint has what it may take or nothing is left.
   */
  private async pumpOnce(): Promise<void> {
    const now = this.opts.nowMs();
    // what waits now; rows stored later come with their hand-off, which marks their endpoint
    const waiting = new Set(await this.queue.waiting(now));
    if (this.stopped) return;
    this.backlogOf = waiting;
    this.backlogAll = false;
    for (;;) {
      const total = Math.min(BATCH, MAX_HANDED - this.handed.size);
      if (total <= 0) return;
      const wants: Want[] = [];
      for (const id of waiting) {
        const room = this.boundOf(id) - (this.handedOf.get(id) ?? 0);
        if (room > 0) wants.push({ id, tenant: this.tenantOf(id), room });
      }
      if (wants.length === 0) return;
      const share = fairShare(total, wants, this.turn++);
      // leased as they are read: if the write fails nothing is handed out
      const due = await this.queue.claim(now, share);
      if (this.stopped) return;
      if (due.length > 0) this.failGone(this.handOut(due));
      const got = new Map<string, number>();
      for (const d of due) got.set(d.webhook_id, (got.get(d.webhook_id) ?? 0) + 1);
      // an endpoint that got less than it asked for has nothing more waiting
      for (const [id, n] of share) if ((got.get(id) ?? 0) < n) waiting.delete(id);
      if (due.length === 0) return;
    }
  }

  /** The tenant an endpoint belongs to ("" when it is gone). */
  private tenantOf(id: string): string {
    return this.webhooks.byIdAnyTenant(id)?.tenant_id ?? this.inbound.byIdAnyTenant(id)?.tenant_id ?? "";
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
      this.count(h.d.webhook_id, -1);
      this.returned.push({ kind: "delivery", h, r });
    }
    if (urgent || this.returned.length >= FLUSH_MAX) void this.flush();
    else if (!this.flushTimer && this.returned.length > 0) this.flushTimer = setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes the returned results (attempts, delivery states, endpoint health) in one transaction; one flush at a time. */
  private async flush(): Promise<void> {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = null;
    }
    if (this.returned.length === 0 || this.flushing) return;
    const batch = this.returned;
    this.returned = [];
    this.flushing = true;
    const now = this.recordNow();
    const plan = this.judge(batch, now);
    try {
      await this.queue.record(
        plan.outcomes,
        plan.health,
        plan.disabled.map((x) => x.id),
        now,
      );
    } catch (err) {
      // the store refused (a full disk, a database away): keep the results and try again in a
      // second rather than take the server down; their rows stay leased, so nothing is sent twice meanwhile
      if (!writeFailures.note("webhook results", err))
        this.opts.log(`writing ${batch.length} webhook results failed, retrying: ${(err as Error).message}`);
      this.returned = batch.concat(this.returned);
      this.flushTimer ??= setTimeout(() => void this.flush(), 1000);
      return;
    } finally {
      this.flushing = false;
    }
    for (const x of plan.disabled) this.opts.log(`webhook ${x.id} disabled: ${x.reason}`);
    for (const { t, r } of plan.tests) t.done({ statusCode: r.statusCode, error: r.error, durationMs: r.durationMs, snippet: r.snippet });
    // results that came meanwhile; and room was made, so rows waiting in the outbox can go
    if (this.returned.length > 0 && !this.flushTimer) this.flushTimer = setTimeout(() => void this.flush(), FLUSH_MS);
    if (this.backlogAll || this.backlogOf.size > 0) this.kick();
  }

  /**
   * What a batch of results comes to: verdicts, the delivery log, delivery states, endpoint health.
   * `now` is the recorded time; a retry's due time is on the retry clock (the row's
   * next_attempt_at), and the log shows it as the recorded time plus the delay.
   */
  private judge(
    batch: Returned[],
    now: number,
  ): { outcomes: Outcome[]; health: HealthChange[]; disabled: { id: string; reason: string }[]; tests: { t: Test; r: DispatchResult }[] } {
    const scheduleNow = this.opts.nowMs();
    const wallNow = Date.now();
    const outcomes: Outcome[] = [];
    const disabled: { id: string; reason: string }[] = [];
    const tests: { t: Test; r: DispatchResult }[] = [];
    // each endpoint as this batch leaves it: a later result of the batch sees what an earlier one changed
    const judged = new Map<string, { w: Webhook; change: WebhookChange }>();
    const change = (w: Webhook, c: WebhookChange): void => {
      const seen = judged.get(w.id);
      judged.set(w.id, { w: { ...w, ...c }, change: { ...seen?.change, ...c } });
    };
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
      const w = judged.get(r.webhookId)?.w ?? this.webhooks.byIdAnyTenant(r.webhookId);
      const v = verdict({
        statusCode: r.statusCode,
        attempt,
        retryAfter: r.retryAfter,
        nowMs: scheduleNow,
        wallNowMs: wallNow,
        failingSinceMs: w?.failing_since ?? null,
        scale: this.opts.scale,
        decisionNowMs: this.opts.decisionNowMs?.(),
      });
      // an endpoint disabled or deleted while this attempt was on its way gets no retry: its
      // pending deliveries were failed, and this one must not come back to life
      const retry = v.kind === "retry" && (w ? w.status === "enabled" : this.endpoint(r.webhookId) !== null);
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
          next_attempt_at: next === null ? null : now + (next - scheduleNow),
        },
        status: v.kind === "delivered" ? "delivered" : retry ? "pending" : "failed",
        nextAttemptAt: next ?? 0,
      });
      if (!w) continue;
      if (v.kind === "delivered") {
        if (w.failing_since !== null) change(w, { failing_since: null });
      } else if (v.kind === "disable") {
        if (w.status === "enabled") {
          change(w, { status: "disabled", disabled_reason: v.reason });
          disabled.push({ id: w.id, reason: v.reason });
        }
      } else if (w.failing_since === null) {
        change(w, { failing_since: now });
      }
    }
    const health = [...judged].map(([id, j]) => ({ id, change: j.change }));
    return { outcomes, health, disabled, tests };
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
      this.count(h.d.webhook_id, -1);
      this.backlogOf.add(h.d.webhook_id);
      perEndpoint.set(h.d.webhook_id, (perEndpoint.get(h.d.webhook_id) ?? 0) + 1);
    }
    for (const [key, t] of this.tests) {
      if (t.part !== part) continue;
      this.tests.delete(key);
      perEndpoint.set(t.webhookId, (perEndpoint.get(t.webhookId) ?? 0) + 1);
      t.done({ statusCode: null, error: "dispatcher thread died during the attempt", durationMs: 0, snippet: "" });
    }
    const note = (err: unknown): void =>
      // still leased: they go out again at the next start or lease takeover (at least once), not before
      this.opts.log(`releasing the deliveries of dispatcher ${part} failed: ${(err as Error).message}`);
    try {
      void Promise.resolve(this.queue.release(back.map((h) => h.d.seq))).then(() => this.kick(), note);
    } catch (err) {
      note(err);
    }
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
