// The intake transaction, run on the intake writer thread with its own connection to state.db: a
// batch of mail events becomes message state, suppressions and outbox rows. Idempotent by event
// id; a batch with an impossible transition, an unknown tenant or over a backlog cap is refused
// whole (a savepoint of its own, so it does not take the other batches of its slice down).
//
// Everything is read from state.db inside the slice's transaction, never from a cache: the front
// changes webhooks, tenants and suppressions on its own connection, and the slice (BEGIN
// IMMEDIATE) sees every change committed before it.

import type { StateDb } from "../store/state-db.js";
import { migrate } from "../store/state-db.js";
import { Backlog, BACKLOG_RETRY_AFTER_SECONDS } from "./backlog.js";
import { IntakeError, planEvent, type KnownMessage } from "./event-plan.js";
import { handBound } from "./fair-share.js";
import type { BatchOutcome, DirectRooms, IntakeResult, MailEvent } from "./intake-protocol.js";
import { DUE_AT_ONCE, type Delivery, type Outbox } from "./outbox.js";
import type { SuppressionStore } from "./suppression-store.js";
import type { TenantStore } from "./tenant-store.js";

export { IntakeError } from "./event-plan.js";

/** The tables only intake writes; created by the front before the writer thread starts. */
export function migrateIntake(db: StateDb): void {
  migrate(db, [
    `CREATE TABLE IF NOT EXISTS mail_events (id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, received_at INTEGER NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS messages (
       tenant_id TEXT NOT NULL, message_id TEXT NOT NULL, state TEXT NOT NULL, delivered_at INTEGER, updated_at INTEGER NOT NULL,
       PRIMARY KEY (tenant_id, message_id))`,
  ]);
}

export interface HeldBatch {
  id: number;
  events: MailEvent[];
}

type Endpoints = Map<string, { tenantId: string; n: number }>;
type Subscriber = { id: string; cap: number };

/**
 * Which of a slice's new rows go straight to dispatch (stored leased): while the front's rooms
 * last, in all and per endpoint (an endpoint it did not list may take its hand-out bound). Once
 * a row of an endpoint waits in the outbox, its later rows wait too: first attempts keep event order.
 */
class DirectRoom {
  private left: number;
  private readonly rooms = new Map<string, number>();
  constructor(private readonly given: DirectRooms) {
    this.left = given.total;
  }

  take(s: Subscriber): boolean {
    let room = this.rooms.get(s.id) ?? this.given.of.get(s.id) ?? handBound(s.cap);
    const direct = room > 0 && this.left > 0;
    if (direct) {
      room--;
      this.left--;
    } else room = 0;
    this.rooms.set(s.id, room);
    return direct;
  }
}

export class IntakeWriter {
  private readonly remember;
  private readonly message;
  private readonly moveMessage;
  private readonly enabledHooks;

  constructor(
    private readonly db: StateDb,
    private readonly tenants: TenantStore,
    private readonly suppressions: SuppressionStore,
    private readonly outbox: Outbox,
    private readonly backlog: Backlog,
  ) {
    // prepared once: compiling a statement costs more than running it
    this.remember = db.prepare("INSERT OR IGNORE INTO mail_events (id, tenant_id, received_at) VALUES (?, ?, ?)");
    this.message = db.prepare("SELECT state, delivered_at FROM messages WHERE tenant_id = ? AND message_id = ?");
    this.moveMessage = db.prepare(`INSERT INTO messages (tenant_id, message_id, state, delivered_at, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (tenant_id, message_id) DO UPDATE SET state = excluded.state, delivered_at = COALESCE(excluded.delivered_at, delivered_at), updated_at = excluded.updated_at`);
    // the order WebhookStore.list gives, so rows are added in the order they always were
    this.enabledHooks = db.prepare(
      "SELECT id, event_types, max_concurrency FROM webhooks WHERE tenant_id = ? AND status = 'enabled' ORDER BY created_at, id",
    );
  }

  /**
   * Writes batches from `take` (oldest first) for at most sliceMs (at least one), in one
   * transaction committed with full sync: one fsync for all of them (group commit). `hold` runs
   * inside the transaction before the commit (a test hook). Throws (nothing stored) when the
   * commit or anything but a refusal fails.
   */
  slice(take: () => HeldBatch | undefined, now: number, rooms: DirectRooms, sliceMs: number, hold: () => void): BatchOutcome[] {
    const started = performance.now();
    const outcomes: BatchOutcome[] = [];
    // subscribers per "tenant kind", read once per slice inside its transaction
    const subs = new Map<string, Subscriber[]>();
    const room = new DirectRoom(rooms);
    this.db
      .transaction(() => {
        for (;;) {
          if (outcomes.length > 0 && performance.now() - started >= sliceMs) break;
          const batch = take();
          if (!batch) break;
          try {
            const { result, rows, direct } = this.accept(batch.events, now, room, subs);
            outcomes.push({ id: batch.id, ok: result, rows, direct });
          } catch (err) {
            if (!(err instanceof IntakeError)) throw err;
            outcomes.push({
              id: batch.id,
              refused: { status: err.status, message: err.message, retryAfterSeconds: err.retryAfterSeconds },
            });
          }
        }
        hold();
      })
      .immediate();
    return outcomes;
  }

  /** One batch in a savepoint of its own; throws IntakeError (nothing of it stored) when any event is refused. */
  private accept(
    events: MailEvent[],
    now: number,
    room: DirectRoom,
    subs: Map<string, Subscriber[]>,
  ): { result: IntakeResult; rows: Delivery[]; direct: boolean[] } {
    return this.db.transaction(() => {
      const result: IntakeResult = { accepted: 0, duplicates: 0, deliveries: 0 };
      const rows: Delivery[] = [];
      const direct: boolean[] = [];
      const known = new Set<string>();
      const endpoints: Endpoints = new Map();
      for (const e of events) {
        if (!known.has(e.tenant_id)) {
          if (!this.tenants.get(e.tenant_id)) throw new IntakeError(400, `event '${e.id}': unknown tenant '${e.tenant_id}'`);
          known.add(e.tenant_id);
        }
        const seen = this.remember.run(e.id, e.tenant_id, now);
        if (seen.changes === 0) {
          result.duplicates++;
          continue;
        }
        result.accepted++;
        result.deliveries += this.one(e, now, room, rows, direct, endpoints, subs);
      }
      // counted after the inserts, inside the batch's savepoint: over a cap, the throw undoes them
      this.backlog.added(endpoints);
      const over = endpoints.size > 0 ? this.backlog.overCap(endpoints.keys(), known) : null;
      if (over) throw new IntakeError(429, `batch refused, nothing stored: ${over}`, BACKLOG_RETRY_AFTER_SECONDS);
      return { result, rows, direct };
    })();
  }

  private subscribers(tenantId: string, kind: string, subs: Map<string, Subscriber[]>): Subscriber[] {
    const key = `${tenantId} ${kind}`;
    let found = subs.get(key);
    if (!found) {
      const hooks = this.enabledHooks.all(tenantId) as { id: string; event_types: string; max_concurrency: number }[];
      found = hooks
        .filter((w) => (JSON.parse(w.event_types) as string[]).includes(kind))
        .map((w) => ({ id: w.id, cap: w.max_concurrency }));
      subs.set(key, found);
    }
    return found;
  }

  private one(
    e: MailEvent,
    now: number,
    room: DirectRoom,
    rows: Delivery[],
    direct: boolean[],
    endpoints: Endpoints,
    subs: Map<string, Subscriber[]>,
  ): number {
    const msg = this.message.get(e.tenant_id, e.message_id) as KnownMessage | undefined;
    const suppressed = e.type === "queued" ? this.suppressions.get(e.tenant_id, e.recipient) : null;
    const plan = planEvent(e, msg ?? null, suppressed?.reason ?? null);
    if (plan.move) this.moveMessage.run(e.tenant_id, e.message_id, plan.move.state, plan.move.deliveredAt, now);
    if (plan.suppress) this.suppressions.add(e.tenant_id, e.recipient, plan.suppress);
    const hooks = this.subscribers(e.tenant_id, plan.kind, subs);
    for (const hook of hooks) {
      const id = hook.id;
      const leased = room.take(hook);
      direct.push(leased);
      rows.push(
        this.outbox.add(
          {
            webhook_id: id,
            tenant_id: e.tenant_id,
            event_id: e.id,
            event_type: plan.kind,
            body: plan.body,
            next_attempt_at: DUE_AT_ONCE,
            created_at: now,
          },
          leased,
        ),
      );
      const counted = endpoints.get(id);
      if (counted) counted.n++;
      else endpoints.set(id, { tenantId: e.tenant_id, n: 1 });
    }
    return hooks.length;
  }
}
