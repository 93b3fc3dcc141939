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
import type { BatchOutcome, IntakeResult, MailEvent } from "./intake-protocol.js";
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
      "SELECT id, event_types FROM webhooks WHERE tenant_id = ? AND status = 'enabled' ORDER BY created_at, id",
    );
  }

  /**
   * Writes batches from `take` (oldest first) for at most sliceMs (at least one), in one
   * transaction committed with full sync: one fsync for all of them (group commit). `hold` runs
   * inside the transaction before the commit (a test hook). Throws (nothing stored) when the
   * commit or anything but a refusal fails.
   */
  slice(take: () => HeldBatch | undefined, now: number, allowance: number, sliceMs: number, hold: () => void): BatchOutcome[] {
    const started = performance.now();
    const outcomes: BatchOutcome[] = [];
    // subscribers per "tenant kind", read once per slice inside its transaction
    const subs = new Map<string, string[]>();
    let room = allowance;
    this.db
      .transaction(() => {
        for (;;) {
          if (outcomes.length > 0 && performance.now() - started >= sliceMs) break;
          const batch = take();
          if (!batch) break;
          // rows go leased (straight to dispatch) only while every earlier row of the slice did too:
          // first attempts keep event order, and an unleased row waits for the poll
          const direct = room > 0 && room >= batch.events.length;
          try {
            const { result, rows } = this.accept(batch.events, now, direct, subs);
            if (direct) room -= rows.length;
            else if (rows.length > 0) room = 0;
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
    direct: boolean,
    subs: Map<string, string[]>,
  ): { result: IntakeResult; rows: Delivery[] } {
    return this.db.transaction(() => {
      const result: IntakeResult = { accepted: 0, duplicates: 0, deliveries: 0 };
      const rows: Delivery[] = [];
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
        result.deliveries += this.one(e, now, direct, rows, endpoints, subs);
      }
      // counted after the inserts, inside the batch's savepoint: over a cap, the throw undoes them
      this.backlog.added(endpoints);
      const over = endpoints.size > 0 ? this.backlog.overCap(endpoints.keys(), known) : null;
      if (over) throw new IntakeError(429, `batch refused, nothing stored: ${over}`, BACKLOG_RETRY_AFTER_SECONDS);
      return { result, rows };
    })();
  }

  private subscribers(tenantId: string, kind: string, subs: Map<string, string[]>): string[] {
    const key = `${tenantId} ${kind}`;
    let found = subs.get(key);
    if (!found) {
      const hooks = this.enabledHooks.all(tenantId) as { id: string; event_types: string }[];
      subs.set(key, (found = hooks.filter((w) => (JSON.parse(w.event_types) as string[]).includes(kind)).map((w) => w.id)));
    }
    return found;
  }

  private one(e: MailEvent, now: number, direct: boolean, rows: Delivery[], endpoints: Endpoints, subs: Map<string, string[]>): number {
    const msg = this.message.get(e.tenant_id, e.message_id) as KnownMessage | undefined;
    const suppressed = e.type === "queued" ? this.suppressions.get(e.tenant_id, e.recipient) : null;
    const plan = planEvent(e, msg ?? null, suppressed?.reason ?? null);
    if (plan.move) this.moveMessage.run(e.tenant_id, e.message_id, plan.move.state, plan.move.deliveredAt, now);
    if (plan.suppress) this.suppressions.add(e.tenant_id, e.recipient, plan.suppress);
    const hooks = this.subscribers(e.tenant_id, plan.kind, subs);
    for (const id of hooks) {
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
          direct,
        ),
      );
      const counted = endpoints.get(id);
      if (counted) counted.n++;
      else endpoints.set(id, { tenantId: e.tenant_id, n: 1 });
    }
    return hooks.length;
  }
}
