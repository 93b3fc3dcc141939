// Event intake, the front's side: a batch of mail events from the pipeline is acknowledged (202)
// only once it is committed with full sync (kill -9 safe), by the intake writer thread
// (workers/intake.ts, the transaction itself in intake-writer.ts) on its own connection to
// state.db. The front's event loop never runs an intake transaction or waits for its fsync: reads
// go on meanwhile (WAL), and a write of the front waits at most for the slice being committed.
//
// The queue is bounded: at most QUEUED_EVENTS events wait (beyond it a batch is refused at once,
// 503 with Retry-After). The writer commits one slice at a time: the batches it holds, for at most
// SLICE_MS (at least one), in one transaction (group commit). A batch over a pending-backlog cap
// is refused whole (429, see backlog.ts). New outbox rows go to the dispatchers right after the
// commit (HandOff): with each slice the front says how many rows, of which endpoints, may be stored
// leased for that.
//
// A writer thread that dies is replaced; the batches it held are refused with 503 (a retry is safe:
// events are idempotent by id), and rows of its last slice that were stored leased but never
// handed over are released to the outbox poll (onLost).

import { Worker } from "node:worker_threads";
import type { StateDb } from "../store/state-db.js";
import { Backlog, type BacklogCaps } from "./backlog.js";
import type { HandOff } from "./dispatch-center.js";
import type { DirectRooms, FromIntakeWorker, IntakeResult, IntakeWorkerData, MailEvent, ToIntakeWorker } from "./intake-protocol.js";
import { IntakeError, migrateIntake } from "./intake-writer.js";
import { RestartBackoff } from "../os/restart-backoff.js";
import { MAX_BATCH_EVENTS } from "./schemas.js";

export { IntakeError } from "./intake-writer.js";
export type { IntakeResult, MailEvent } from "./intake-protocol.js";

/** events waiting to be written, at most; a batch beyond it is a 503 (not queued) */
const QUEUED_EVENTS = 10_000;
/** a slice writes batches for at most this long (and at least one batch) */
const SLICE_MS = 10;
const QUEUE_RETRY_AFTER_SECONDS = 1;

export interface IntakeOptions {
  /** the caps the writer checks (default: backlog.ts's) */
  backlog?: Backlog;
  queuedEvents?: number;
  sliceMs?: number;
  nowMs?: () => number;
  /** asked before each slice: which new outbox rows may be stored leased and handed straight over (default: none) */
  directRooms?: () => DirectRooms;
  /** given each stored batch's rows right after its commit, before its promise resolves */
  handOff?: (h: HandOff) => void;
  /** the writer died during a slice: rows after this seq stored leased but not handed over must be released */
  onLost?: (afterSeq: number) => void;
  log?: (line: string) => void;
}

export type Accepted = IntakeResult & { handOff: HandOff };

interface Waiting {
  n: number;
  resolve: (r: Accepted) => void;
  reject: (err: unknown) => void;
}

export class Intake {
  private readonly maxQueued: number;
  private readonly sliceMs: number;
  private readonly caps: BacklogCaps;
  private lastSeq: { get(): unknown } | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private queuedEvents = 0;
  private ids = 0;
  private worker: Worker | null = null;
  private readonly restarts = new RestartBackoff();
  private restartTimer: NodeJS.Timeout | null = null;
  private scheduled = false;
  /** a slice is being written; its rows come after this seq */
  private sliceFrom: number | null = null;
  private stopped = false;

  constructor(
    private readonly db: StateDb,
    private readonly opts: IntakeOptions = {},
  ) {
    this.maxQueued = opts.queuedEvents ?? QUEUED_EVENTS;
    this.sliceMs = opts.sliceMs ?? SLICE_MS;
    this.caps = (opts.backlog ?? new Backlog(db)).caps;
    migrateIntake(db);
    this.spawn();
  }

  /** Events accepted for writing and not yet written. */
  get queued(): number {
    return this.queuedEvents;
  }

  /** The refusal a batch of the largest size would get now, before its body is even parsed; null when there is room. */
  busy(): IntakeError | null {
    return this.refusal(MAX_BATCH_EVENTS);
  }

  /** The 503 a batch of n events gets now (no writer, or no room in the queue; a lone batch always fits), else null. */
  private refusal(n: number): IntakeError | null {
    if (!this.worker || this.stopped)
      return new IntakeError(503, "event intake is restarting its writer; retry shortly", QUEUE_RETRY_AFTER_SECONDS);
    if (this.queuedEvents > 0 && this.queuedEvents + n > this.maxQueued) {
      return new IntakeError(
        503,
        `event intake is busy (${this.queuedEvents} events waiting to be written, at most ${this.maxQueued}); retry shortly`,
        QUEUE_RETRY_AFTER_SECONDS,
      );
    }
    return null;
  }

  /**
   * Queues the batch and resolves once it is on disk, committed with the batches written in the
   * same slice (one fsync for all of them); rejects with IntakeError when the batch is refused, in
   * which case nothing of it is stored (each batch is a savepoint of its own, so a refused batch
   * does not take its neighbours down with it). A full queue refuses at once (503).
   */
  submit(events: MailEvent[]): Promise<Accepted> {
    const refused = this.refusal(events.length);
    if (refused) return Promise.reject(refused);
    const w = this.worker!;
    const id = ++this.ids;
    return new Promise((resolve, reject) => {
      w.postMessage({ type: "batch", id, events } satisfies ToIntakeWorker);
      this.waiting.set(id, { n: events.length, resolve, reject });
      this.queuedEvents += events.length;
      // waiting batches keep the process alive until they are answered
      if (this.waiting.size === 1) w.ref();
      // batches submitted in the same turn go into the same slice
      if (!this.scheduled && this.sliceFrom === null) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.startSlice();
        });
      }
    });
  }

  /** Stops the writer; batches not yet answered are refused (503). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const w = this.worker;
    this.worker = null;
    this.refuseWaiting(new IntakeError(503, "the server is stopping; retry against it once it is back", QUEUE_RETRY_AFTER_SECONDS));
    await w?.terminate();
  }

  private spawn(): void {
    const workerData: IntakeWorkerData = { path: this.db.name, caps: this.caps };
    const w = new Worker(new URL("../../workers/intake.js", import.meta.url), { workerData });
    this.worker = w;
    this.restarts.started();
    w.on("message", (m: FromIntakeWorker) => {
      if (this.worker === w) this.onMessage(m);
    });
    w.on("error", (err) => this.opts.log?.(`intake writer failed: ${err.message}`));
    w.on("exit", (code) => this.onExit(w, code));
    w.unref();
  }

  private startSlice(): void {
    const w = this.worker;
    if (!w || this.sliceFrom !== null || this.waiting.size === 0) return;
    let from = 0;
    try {
      // prepared at first use: the outbox's table may be created after this intake
      this.lastSeq ??= this.db.prepare("SELECT COALESCE(MAX(seq), 0) AS s FROM deliveries");
      from = (this.lastSeq.get() as { s: number }).s;
    } catch {
      // unknown: should the writer die, every lease not handed over is released (safe, if slower)
    }
    this.sliceFrom = from;
    w.postMessage({
      type: "slice",
      now: this.opts.nowMs?.() ?? Date.now(),
      rooms: this.opts.directRooms?.() ?? { total: 0, of: new Map() },
      sliceMs: this.sliceMs,
    } satisfies ToIntakeWorker);
  }

  private settle(id: number): Waiting | undefined {
    const item = this.waiting.get(id);
    if (!item) return undefined;
    this.waiting.delete(id);
    this.queuedEvents -= item.n;
    return item;
  }

  private onMessage(m: FromIntakeWorker): void {
    this.sliceFrom = null;
    if (m.type === "failed") {
      // nothing of the slice is stored; a disk that refused keeps its code (a 503 upstream)
      const err = Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {});
      for (const id of m.ids) this.settle(id)?.reject(err);
    } else {
      for (const o of m.outcomes) {
        const item = this.settle(o.id);
        if (!item) continue;
        if ("refused" in o) {
          item.reject(new IntakeError(o.refused.status, o.refused.message, o.refused.retryAfterSeconds));
          continue;
        }
        const handOff: HandOff = { rows: o.rows, direct: o.direct };
        // before the next slice is asked for, so that its allowance counts these rows
        try {
          this.opts.handOff?.(handOff);
        } catch (err) {
          // committed: the rows are in the outbox and go out from there; the batch stays accepted
          this.opts.log?.(`handing over new webhook deliveries failed: ${(err as Error).message}`);
        }
        item.resolve({ ...o.ok, handOff });
      }
    }
    if (this.waiting.size === 0) this.worker?.unref();
    else this.startSlice();
  }

  private refuseWaiting(err: IntakeError): void {
    const lost = [...this.waiting.keys()];
    for (const id of lost) this.settle(id)?.reject(err);
  }

  private onExit(w: Worker, code: number): void {
    if (this.stopped || this.worker !== w) return;
    this.worker = null;
    const delay = this.restarts.died();
    const held = this.waiting.size;
    if (this.sliceFrom !== null) {
      const from = this.sliceFrom;
      this.sliceFrom = null;
      try {
        this.opts.onLost?.(from);
      } catch (err) {
        // still leased: they go out at the next start (leases are cleared then), not before
        this.opts.log?.(`releasing the deliveries of the intake writer's last slice failed: ${(err as Error).message}`);
      }
    }
    this.refuseWaiting(
      new IntakeError(
        503,
        "event intake was interrupted (its writer thread stopped) and this batch may or may not be stored; retry it (event ids make a retry safe)",
        QUEUE_RETRY_AFTER_SECONDS,
      ),
    );
    this.opts.log?.(
      `intake writer exited (code ${code}); ${held} batches refused with 503; restarting it${delay ? ` in ${delay} ms` : ""}`,
    );
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (!this.stopped) this.spawn();
    }, delay);
  }
}
