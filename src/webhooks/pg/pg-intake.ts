// Event intake on the shared PostgreSQL store: a batch of mail events is acknowledged once it is
// committed. Batches that arrive while a slice is being committed wait and go together in the
// next slice, one transaction (group commit), each batch in a savepoint of its own so that a
// refused batch does not take its neighbours down. Each batch is written with a few set-wise
// statements, not a round trip per event: its event ids, tenants, messages, suppressions and
// subscribers are read at once, the events planned in order (event-plan.ts), the results written
// at once. Messages are locked as they are read; a message two nodes create at the same moment is
// created by one, and the other's slice runs again and checks its events against it. The commit
// notifies every node's dispatch (the endpoint's holder sends). Inbound mail takes the same path,
// one message at a time.

import type { HandOff } from "../dispatch-center.js";
import { capProblem, DEFAULT_CAPS, BACKLOG_RETRY_AFTER_SECONDS, type BacklogCaps } from "../backlog.js";
import { IntakeError, planEvent, type KnownMessage } from "../event-plan.js";
import type { InboundRoute } from "../inbound-store.js";
import type { IntakeResult, MailEvent } from "../intake-protocol.js";
import type { SuppressionReason } from "../model.js";
import { DUE_AT_ONCE, newDeliveryId, type Delivery } from "../outbox.js";
import { MAX_BATCH_EVENTS } from "../schemas.js";
import { normalAddress } from "../mailbox.js";
import type { EventIntake, InboundIntake, InboundStored } from "../webhook-state.js";
import { inTransaction, type Query, type SharedDb } from "../../store/pg/shared-db.js";
import { PgOutbox } from "./pg-outbox.js";

/** events waiting to be written, at most; a batch beyond it is a 503 (not queued) */
const QUEUED_EVENTS = 10_000;
const QUEUE_RETRY_AFTER_SECONDS = 1;

interface Waiting {
  events: MailEvent[];
  resolve: (r: IntakeResult) => void;
  reject: (err: unknown) => void;
}

type NewRow = Omit<Delivery, "seq">;

export class PgIntake implements EventIntake {
  private waiting: Waiting[] = [];
  private queuedEvents = 0;
  private writing = false;
  private stopped = false;

  constructor(
    private readonly db: SharedDb,
    private readonly nowMs: () => number,
    /** given each committed slice's new rows (stored unleased: the poll claims them) */
    private readonly handOff: (h: HandOff) => void,
    private readonly caps: BacklogCaps = DEFAULT_CAPS,
  ) {}

  busy(): IntakeError | null {
    return this.refusal(MAX_BATCH_EVENTS);
  }

  private refusal(n: number): IntakeError | null {
    if (this.stopped) return new IntakeError(503, "the server is stopping; retry against it once it is back", QUEUE_RETRY_AFTER_SECONDS);
    if (this.queuedEvents > 0 && this.queuedEvents + n > QUEUED_EVENTS)
      return new IntakeError(
        503,
        `event intake is busy (${this.queuedEvents} events waiting to be written, at most ${QUEUED_EVENTS}); retry shortly`,
        QUEUE_RETRY_AFTER_SECONDS,
      );
    return null;
  }

  submit(events: MailEvent[]): Promise<IntakeResult> {
    const refused = this.refusal(events.length);
    if (refused) return Promise.reject(refused);
    return new Promise((resolve, reject) => {
      this.waiting.push({ events, resolve, reject });
      this.queuedEvents += events.length;
      if (!this.writing) {
        this.writing = true;
        // batches submitted in the same turn go into the same slice
        setImmediate(() => void this.slice());
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
  }

  private async slice(): Promise<void> {
    const batches = this.waiting;
    this.waiting = [];
    const outcomes: (IntakeResult | IntakeError)[] = [];
    const rows: Delivery[] = [];
    try {
      await inTransaction(this.db, async (q) => {
        // from scratch: a transaction a deadlock aborted runs again
        outcomes.length = 0;
        rows.length = 0;
        const now = this.nowMs();
        for (const [i, b] of batches.entries()) {
          await q(`SAVEPOINT batch_${i}`);
          try {
            const written = await writeBatch(q, b.events, now, this.caps);
            await q(`RELEASE SAVEPOINT batch_${i}`);
            outcomes.push(written.result);
            rows.push(...written.rows);
          } catch (err) {
            if (!(err instanceof IntakeError)) throw err;
            await q(`ROLLBACK TO SAVEPOINT batch_${i}`);
            outcomes.push(err);
          }
        }
        if (rows.length > 0) await PgOutbox.wake(q);
      });
    } catch (err) {
      for (const b of batches) b.reject(err);
      this.settled(batches);
      return;
    }
    this.handOff({ rows, direct: false });
    for (const [i, b] of batches.entries()) {
      const o = outcomes[i];
      if (o instanceof IntakeError) b.reject(o);
      else b.resolve(o);
    }
    this.settled(batches);
  }

  private settled(batches: Waiting[]): void {
    for (const b of batches) this.queuedEvents -= b.events.length;
    if (this.waiting.length > 0) setImmediate(() => void this.slice());
    else this.writing = false;
  }
}

/** One batch, inside its savepoint; throws IntakeError (the caller rolls the savepoint back) when any event is refused. */
async function writeBatch(
  q: Query,
  events: MailEvent[],
  now: number,
  caps: BacklogCaps,
): Promise<{ result: IntakeResult; rows: Delivery[] }> {
  const tenantIds = [...new Set(events.map((e) => e.tenant_id))];
  const known = new Set((await q("SELECT id FROM tenants WHERE id = ANY($1)", [tenantIds])).rows.map((r) => r.id as string));
  const stranger = events.find((e) => !known.has(e.tenant_id));
  if (stranger) throw new IntakeError(400, `event '${stranger.id}': unknown tenant '${stranger.tenant_id}'`);

  // the first of each id that was never seen is new; the rest are duplicates
  const fresh = new Set(
    (
      await q(
        `INSERT INTO mail_events (id, tenant_id, received_at) SELECT id, tenant, $3 FROM unnest($1::text[], $2::text[]) AS e(id, tenant)
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        [events.map((e) => e.id), events.map((e) => e.tenant_id), now],
      )
    ).rows.map((r) => r.id as string),
  );
  const messageKey = (tenant: string, message: string): string => `${tenant}\n${message}`;
  const accepted = events.filter((e) => fresh.delete(e.id));
  const result: IntakeResult = { accepted: accepted.length, duplicates: events.length - accepted.length, deliveries: 0 };
  if (accepted.length === 0) return { result, rows: [] };

  const messages = new Map<string, KnownMessage>();
  for (const r of (
    await q(
      `SELECT m.tenant_id, m.message_id, m.state, m.delivered_at FROM messages m
       JOIN unnest($1::text[], $2::text[]) AS k(tenant, message) ON m.tenant_id = k.tenant AND m.message_id = k.message
       ORDER BY m.tenant_id, m.message_id FOR UPDATE OF m`,
      [accepted.map((e) => e.tenant_id), accepted.map((e) => e.message_id)],
    )
  ).rows)
    messages.set(messageKey(r.tenant_id as string, r.message_id as string), r as unknown as KnownMessage);
  const existed = new Set(messages.keys());
  const queued = accepted.filter((e) => e.type === "queued");
  const suppressed = new Map<string, SuppressionReason>();
  if (queued.length > 0)
    for (const r of (
      await q(
        `SELECT s.tenant_id, s.address, s.reason FROM suppressions s
         JOIN unnest($1::text[], $2::text[]) AS k(tenant, address) ON s.tenant_id = k.tenant AND s.address = k.address`,
        [queued.map((e) => e.tenant_id), queued.map((e) => normalAddress(e.recipient))],
      )
    ).rows)
      suppressed.set(messageKey(r.tenant_id as string, r.address as string), r.reason as SuppressionReason);
  const hooks = (
    await q("SELECT id, tenant_id, event_types FROM webhooks WHERE tenant_id = ANY($1) AND status = 'enabled' ORDER BY created_at, id", [
      tenantIds,
    ])
  ).rows as { id: string; tenant_id: string; event_types: string[] }[];

  const moved = new Map<string, { tenant: string; message: string; state: string; deliveredAt: number | null }>();
  const suppress = new Map<string, { tenant: string; address: string; reason: SuppressionReason }>();
  const rows: NewRow[] = [];
  const perEndpoint = new Map<string, { tenantId: string; n: number }>();
  for (const e of accepted) {
    const key = messageKey(e.tenant_id, e.message_id);
    const address = normalAddress(e.recipient);
    const plan = planEvent(
      e,
      messages.get(key) ?? null,
      e.type === "queued" ? (suppressed.get(messageKey(e.tenant_id, address)) ?? null) : null,
    );
    if (plan.move) {
      const deliveredAt = plan.move.deliveredAt ?? messages.get(key)?.delivered_at ?? null;
      messages.set(key, { state: plan.move.state, delivered_at: deliveredAt });
      moved.set(key, { tenant: e.tenant_id, message: e.message_id, state: plan.move.state, deliveredAt });
    }
    if (plan.suppress) {
      const k = messageKey(e.tenant_id, address);
      if (!suppressed.has(k)) {
        suppressed.set(k, plan.suppress);
        suppress.set(k, { tenant: e.tenant_id, address, reason: plan.suppress });
      }
    }
    for (const w of hooks) {
      if (w.tenant_id !== e.tenant_id || !w.event_types.includes(plan.kind)) continue;
      rows.push({
        id: newDeliveryId(now),
        webhook_id: w.id,
        tenant_id: e.tenant_id,
        event_id: e.id,
        event_type: plan.kind,
        body: plan.body,
        status: "pending",
        attempts: 0,
        next_attempt_at: DUE_AT_ONCE,
        trigger: "scheduled",
        created_at: now,
      });
      const counted = perEndpoint.get(w.id);
      if (counted) counted.n++;
      else perEndpoint.set(w.id, { tenantId: e.tenant_id, n: 1 });
    }
  }
  result.deliveries = rows.length;

  // written in key order, so that two nodes' slices take their row locks in the same order
  const moves = [...moved.values()].sort((a, b) => a.tenant.localeCompare(b.tenant) || a.message.localeCompare(b.message));
  // a message none had when it was read is created only if no other transaction created it
  // meanwhile (the insert waits for that one to commit); else this slice runs again and reads it
  const wasThere = (m: (typeof moves)[number]): boolean => existed.has(messageKey(m.tenant, m.message));
  await writeMessages(q, moves.filter(wasThere), now, "update");
  const created = moves.filter((m) => !wasThere(m));
  if ((await writeMessages(q, created, now, "create")) < created.length)
    throw Object.assign(new Error("a message was created by another node meanwhile; writing the slice again"), { code: "40001" });
  if (suppress.size > 0) {
    const list = [...suppress.values()];
    await q(
      `INSERT INTO suppressions (tenant_id, address, reason, created_at) SELECT t, a, r, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS x(t, a, r)
       ON CONFLICT (tenant_id, address) DO NOTHING`,
      [list.map((s) => s.tenant), list.map((s) => s.address), list.map((s) => s.reason), new Date(now).toISOString()],
    );
  }
  if (rows.length === 0) return { result, rows: [] };
  const added = await insertDeliveries(q, rows, perEndpoint, caps);
  if (added.over !== null) throw new IntakeError(429, `batch refused, nothing stored: ${added.over}`, BACKLOG_RETRY_AFTER_SECONDS);
  return { result, rows: added.rows };
}

/** Moves messages to their new states: `update` those that existed, `create` new ones (none made meanwhile by another transaction); returns the rows written. */
async function writeMessages(
  q: Query,
  moves: { tenant: string; message: string; state: string; deliveredAt: number | null }[],
  now: number,
  how: "update" | "create",
): Promise<number> {
  if (moves.length === 0) return 0;
  const onConflict =
    how === "create"
      ? "DO NOTHING"
      : `DO UPDATE SET state = excluded.state, delivered_at = COALESCE(excluded.delivered_at, messages.delivered_at),
         updated_at = excluded.updated_at`;
  const r = await q(
    `INSERT INTO messages (tenant_id, message_id, state, delivered_at, updated_at)
     SELECT t, m, s, d, $5 FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS x(t, m, s, d)
     ON CONFLICT (tenant_id, message_id) ${onConflict}`,
    [moves.map((m) => m.tenant), moves.map((m) => m.message), moves.map((m) => m.state), moves.map((m) => m.deliveredAt), now],
  );
  return r.rowCount ?? 0;
}

/** Adds pending rows and counts them per endpoint; `over` names a cap that puts over (the caller undoes it all). */
async function insertDeliveries(
  q: Query,
  rows: NewRow[],
  perEndpoint: Map<string, { tenantId: string; n: number }>,
  caps: BacklogCaps,
): Promise<{ rows: Delivery[]; over: string | null }> {
  const { rows: stored } = await q(
    `INSERT INTO deliveries (id, webhook_id, tenant_id, event_id, event_type, body, status, attempts, next_attempt_at, trigger, created_at)
     SELECT id, w, t, e, k, b, 'pending', 0, $8::bigint, 'scheduled', at FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])
       AS x(id, w, t, e, k, b, at)
     RETURNING seq, id`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.webhook_id),
      rows.map((r) => r.tenant_id),
      rows.map((r) => r.event_id),
      rows.map((r) => r.event_type),
      rows.map((r) => r.body),
      rows.map((r) => r.created_at),
      DUE_AT_ONCE,
    ],
  );
  const seqOf = new Map(stored.map((r) => [r.id as string, r.seq as number]));
  const endpoints = [...perEndpoint.keys()];
  await q("SELECT leidex_add_pending($1)", [
    JSON.stringify(endpoints.map((id) => ({ webhook_id: id, tenant_id: perEndpoint.get(id)!.tenantId, n: perEndpoint.get(id)!.n }))),
  ]);
  const counts = (
    await q("SELECT webhook_id, SUM(n)::bigint AS n FROM pending_counts WHERE webhook_id = ANY($1) GROUP BY webhook_id", [endpoints])
  ).rows.map((r): [string, number] => [r.webhook_id as string, r.n as number]);
  const tenants = [...new Set(endpoints.map((id) => perEndpoint.get(id)!.tenantId))];
  const ofTenants = (
    await q("SELECT tenant_id, SUM(n)::bigint AS n FROM pending_counts WHERE tenant_id = ANY($1) GROUP BY tenant_id", [tenants])
  ).rows.map((r): [string, number] => [r.tenant_id as string, r.n as number]);
  return { rows: rows.map((r) => ({ ...r, seq: seqOf.get(r.id)! })), over: capProblem(caps, counts, ofTenants) };
}

/** Rolls an inbound message over a cap back, carrying why out. */
class OverCap extends Error {}

/** Inbound mail into the shared outbox, counted against the route's and tenant's pending caps, in one transaction. */
export class PgInboundIntake implements InboundIntake {
  constructor(private readonly db: SharedDb) {}

  async store(r: InboundRoute, messageId: string, body: string, now: number): Promise<InboundStored> {
    try {
      return await inTransaction(this.db, async (q): Promise<InboundStored> => {
        const first = await q("INSERT INTO inbound_messages (id, route_id, received_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING", [
          messageId,
          r.id,
          now,
        ]);
        if ((first.rowCount ?? 0) === 0) return { over: null, handOff: { rows: [], direct: false } };
        const row: NewRow = {
          id: newDeliveryId(now),
          webhook_id: r.id,
          tenant_id: r.tenant_id,
          event_id: messageId,
          event_type: "inbound",
          body,
          status: "pending",
          attempts: 0,
          next_attempt_at: DUE_AT_ONCE,
          trigger: "scheduled",
          created_at: now,
        };
        const added = await insertDeliveries(q, [row], new Map([[r.id, { tenantId: r.tenant_id, n: 1 }]]), DEFAULT_CAPS);
        if (added.over !== null) throw new OverCap(added.over);
        await PgOutbox.wake(q);
        return { over: null, handOff: { rows: added.rows, direct: false } };
      });
    } catch (err) {
      if (err instanceof OverCap) return { over: err.message };
      throw err;
    }
  }
}
