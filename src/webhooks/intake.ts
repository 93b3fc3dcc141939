// Event intake: a batch of mail events from the pipeline becomes message state, suppressions and
// outbox rows, all in one SQLite transaction, before the 202. Idempotent by event id; a batch with
// an impossible transition or an unknown tenant is refused whole (nothing of it is stored).
//
// Writes run on the front's thread, so they are bounded to keep reads moving: batches wait in a
// queue of at most QUEUED_EVENTS events (beyond it a batch is refused at once, 503 with
// Retry-After), and each turn of the event loop commits whole batches for at most SLICE_MS (at
// least one batch), then yields (setImmediate) so that requests that arrived meanwhile are served.
// A batch that would take an endpoint or tenant over its pending-backlog cap is refused whole (429,
// see backlog.ts).

import { migrate, type StateDb } from "../store/state-db.js";
import { Backlog, BACKLOG_RETRY_AFTER_SECONDS } from "./backlog.js";
import { machineVerdict } from "./bot.js";
import type { HandOff } from "./dispatch-center.js";
import { isDeliveryKind, transitionProblem, type EventKind, type MessageState } from "./model.js";
import type { Delivery, Outbox } from "./outbox.js";
import type { SuppressionStore } from "./suppression-store.js";
import type { TenantStore } from "./tenant-store.js";
import type { WebhookStore } from "./webhook-store.js";

export interface MailEvent {
  id: string;
  tenant_id: string;
  message_id: string;
  type: EventKind;
  recipient: string;
  /** Unix seconds */
  timestamp: number;
  bounce_type?: "hard" | "soft";
  smtp_code?: number;
  reason?: string;
  url?: string;
  user_agent?: string;
  ip?: string;
  http_method?: string;
  method?: string;
}

export class IntakeError extends Error {
  constructor(readonly status: number, message: string, readonly retryAfterSeconds: number | null = null) { super(message); }
}

/** events waiting to be written, at most; a batch beyond it is a 503 (not queued) */
export const QUEUED_EVENTS = 10_000;
/** a turn of the event loop writes batches for at most this long (and at least one batch) */
export const SLICE_MS = 10;
const QUEUE_RETRY_AFTER_SECONDS = 1;
/** the largest batch the schema allows */
const MAX_BATCH_EVENTS = 1000;

export interface IntakeOptions { backlog?: Backlog; queuedEvents?: number; sliceMs?: number }

export interface IntakeResult { accepted: number; duplicates: number; deliveries: number }
export type Accepted = IntakeResult & { handOff: HandOff };

/** Asked once per batch, inside its transaction: may its rows be stored leased and handed straight to dispatch? */
export type ClaimDirect = (rows: number) => boolean;

export class Intake {
  constructor(
    private readonly db: StateDb,
    private readonly tenants: TenantStore,
    private readonly webhooks: WebhookStore,
    private readonly suppressions: SuppressionStore,
    private readonly outbox: Outbox,
    private readonly nowMs: () => number,
    private readonly claimDirect: ClaimDirect,
    options: IntakeOptions = {},
  ) {
    this.backlog = options.backlog ?? new Backlog(db);
    this.maxQueued = options.queuedEvents ?? QUEUED_EVENTS;
    this.sliceMs = options.sliceMs ?? SLICE_MS;
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS mail_events (id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, received_at INTEGER NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS messages (
         tenant_id TEXT NOT NULL, message_id TEXT NOT NULL, state TEXT NOT NULL, delivered_at INTEGER, updated_at INTEGER NOT NULL,
         PRIMARY KEY (tenant_id, message_id))`,
    ]);
    // prepared once: compiling a statement costs more than running it
    this.remember = db.prepare("INSERT OR IGNORE INTO mail_events (id, tenant_id, received_at) VALUES (?, ?, ?)");
    this.message = db.prepare("SELECT state, delivered_at FROM messages WHERE tenant_id = ? AND message_id = ?");
    this.moveMessage = db.prepare(`INSERT INTO messages (tenant_id, message_id, state, delivered_at, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (tenant_id, message_id) DO UPDATE SET state = excluded.state, delivered_at = COALESCE(excluded.delivered_at, delivered_at), updated_at = excluded.updated_at`);
  }

  private readonly remember;
  private readonly message;
  private readonly moveMessage;
  private readonly backlog: Backlog;
  private readonly maxQueued: number;
  private readonly sliceMs: number;
  private waiting: { events: MailEvent[]; resolve: (r: Accepted) => void; reject: (err: unknown) => void }[] = [];
  private head = 0;
  private queuedEvents = 0;

  /** Events accepted for writing and not yet written. */
  get queued(): number { return this.queuedEvents; }

  /** The refusal a batch of the largest size would get now, before its body is even parsed; null when there is room. */
  busy(): IntakeError | null {
    return this.queuedEvents > 0 && this.queuedEvents + MAX_BATCH_EVENTS > this.maxQueued ? this.full() : null;
  }

  private full(): IntakeError {
    return new IntakeError(503, `event intake is busy (${this.queuedEvents} events waiting to be written, at most ${this.maxQueued}); retry shortly`, QUEUE_RETRY_AFTER_SECONDS);
  }

  /**
   * Queues the batch and resolves once it is on disk, committed with the batches written in the
   * same slice (group commit: one fsync for all of them); rejects with IntakeError when the batch
   * is refused, in which case nothing of it is stored (each batch is a savepoint of its own, so a
   * refused batch does not take its neighbours down with it). A full queue refuses at once (503).
   */
  submit(events: MailEvent[]): Promise<Accepted> {
    if (this.queuedEvents > 0 && this.queuedEvents + events.length > this.maxQueued) {
      return Promise.reject(this.full());
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ events, resolve, reject });
      this.queuedEvents += events.length;
      if (this.waiting.length - this.head === 1) setImmediate(() => this.commitSlice());
    });
  }

  /** Writes queued batches for at most sliceMs (at least one) in one transaction, then yields. */
  private commitSlice(): void {
    const started = performance.now();
    const group: typeof this.waiting = [];
    const outcomes: ({ ok: Accepted } | { refused: IntakeError })[] = [];
    try {
      this.db.transaction(() => {
        while (this.head < this.waiting.length && (group.length === 0 || performance.now() - started < this.sliceMs)) {
          const item = this.waiting[this.head++];
          group.push(item);
          try {
            outcomes.push({ ok: this.accept(item.events) });
          } catch (err) {
            if (!(err instanceof IntakeError)) throw err;
            outcomes.push({ refused: err });
          }
        }
      })();
    } catch (err) {
      // the slice's commit failed (disk full, I/O error): nothing of it is stored
      this.settled(group);
      for (const item of group) item.reject(err);
      return;
    }
    this.settled(group);
    group.forEach((item, i) => {
      const o = outcomes[i];
      if ("ok" in o) item.resolve(o.ok); else item.reject(o.refused);
    });
  }

  /** The group left the queue; the rest waits for the next turn. */
  private settled(group: typeof this.waiting): void {
    for (const item of group) this.queuedEvents -= item.events.length;
    if (this.head === this.waiting.length) { this.waiting = []; this.head = 0; }
    else setImmediate(() => this.commitSlice());
  }

  /**
   * Stores the batch (a transaction, or a savepoint inside the caller's); throws IntakeError
   * (nothing stored) when any event is refused. The hand-off lists the outbox rows written, for
   * DispatchCenter.handOff once the transaction has committed.
   */
  accept(events: MailEvent[]): Accepted {
    return this.db.transaction(() => {
      const result: IntakeResult = { accepted: 0, duplicates: 0, deliveries: 0 };
      const handOff: HandOff = { rows: [], direct: this.claimDirect(events.length) };
      const now = this.nowMs();
      const known = new Set<string>();
      const endpoints = new Map<string, { tenantId: string; n: number }>();
      for (const e of events) {
        if (!known.has(e.tenant_id)) {
          if (!this.tenants.get(e.tenant_id)) throw new IntakeError(400, `event '${e.id}': unknown tenant '${e.tenant_id}'`);
          known.add(e.tenant_id);
        }
        const seen = this.remember.run(e.id, e.tenant_id, now);
        if (seen.changes === 0) { result.duplicates++; continue; }
        result.accepted++;
        result.deliveries += this.one(e, now, handOff, endpoints);
      }
      // counted after the inserts, inside the batch's savepoint: over a cap, the throw undoes them
      this.backlog.added(endpoints);
      const over = endpoints.size > 0 ? this.backlog.overCap(endpoints.keys(), known) : null;
      if (over) throw new IntakeError(429, `batch refused, nothing stored: ${over}`, BACKLOG_RETRY_AFTER_SECONDS);
      return { ...result, handOff };
    })();
  }

  private one(e: MailEvent, now: number, handOff: HandOff, endpoints: Map<string, { tenantId: string; n: number }>): number {
    const msg = this.message.get(e.tenant_id, e.message_id) as { state: MessageState; delivered_at: number | null } | undefined;
    let kind: EventKind = e.type;
    const data: Record<string, unknown> = { message_id: e.message_id, recipient: e.recipient, timestamp: e.timestamp };
    for (const k of ["bounce_type", "smtp_code", "reason", "url", "user_agent", "ip", "http_method", "method"] as const) {
      if (e[k] !== undefined) data[k] = e[k];
    }
    if (kind === "queued") {
      const suppressed = this.suppressions.get(e.tenant_id, e.recipient);
      if (suppressed) {
        kind = "dropped";
        data.reason = "suppressed";
        data.suppression_reason = suppressed.reason;
        data.reported_as = "queued";
      }
    }
    const problem = transitionProblem(msg?.state ?? null, kind);
    if (problem) throw new IntakeError(409, `event '${e.id}' (message '${e.message_id}'): ${problem}`);
    if (isDeliveryKind(kind)) this.moveMessage.run(e.tenant_id, e.message_id, kind, kind === "delivered" ? e.timestamp : null, now);
    if (kind === "bounced" && e.bounce_type === "hard") this.suppressions.add(e.tenant_id, e.recipient, "hard_bounce");
    if (kind === "unsubscribed") this.suppressions.add(e.tenant_id, e.recipient, "unsubscribe");
    if (kind === "opened" || kind === "clicked") Object.assign(data, machineVerdict(e, msg?.delivered_at ?? null));
    const body = JSON.stringify({ id: e.id, type: kind, created_at: new Date(e.timestamp * 1000).toISOString(), tenant_id: e.tenant_id, data });
    const subscribers = this.webhooks.subscribers(e.tenant_id, kind);
    for (const w of subscribers) {
      const row: Delivery = this.outbox.add({ webhook_id: w.id, tenant_id: e.tenant_id, event_id: e.id, event_type: kind, body, next_attempt_at: now, created_at: now }, handOff.direct);
      handOff.rows.push(row);
      const counted = endpoints.get(w.id);
      if (counted) counted.n++; else endpoints.set(w.id, { tenantId: e.tenant_id, n: 1 });
    }
    return subscribers.length;
  }
}
