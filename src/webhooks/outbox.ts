// The outbox and the delivery log. One `deliveries` row per (event, webhook): the exact body bytes
// to send (byte-identical on every attempt), its state (pending, delivered, failed) and when it is
// next due. One `delivery_attempts` row per attempt. Rows are written in the same transaction as
// the event intake, so an event acknowledged with 202 survives kill -9; at start every pending row
// is due again (at least once).

import { migrate, type StateDb } from "../store/state-db.js";

export interface Delivery {
  seq: number;
  id: string;
  webhook_id: string;
  tenant_id: string;
  event_id: string;
  event_type: string;
  body: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  next_attempt_at: number;
  trigger: "scheduled" | "manual";
  created_at: number;
}

export interface Attempt {
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  trigger: "scheduled" | "manual" | "test";
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_snippet: string;
  attempted_at: number;
  next_attempt_at: number | null;
  outcome: "success" | "failure";
}

export class Outbox {
  constructor(private readonly db: StateDb) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS deliveries (
         seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, webhook_id TEXT NOT NULL, tenant_id TEXT NOT NULL,
         event_id TEXT NOT NULL, event_type TEXT NOT NULL, body TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL,
         next_attempt_at INTEGER NOT NULL, trigger TEXT NOT NULL, created_at INTEGER NOT NULL, leased INTEGER NOT NULL DEFAULT 0)`,
      `CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (status, next_attempt_at)`,
      `CREATE TABLE IF NOT EXISTS delivery_attempts (
         row INTEGER PRIMARY KEY AUTOINCREMENT, delivery_id TEXT NOT NULL, webhook_id TEXT NOT NULL, event_id TEXT NOT NULL,
         event_type TEXT NOT NULL, attempt INTEGER NOT NULL, trigger TEXT NOT NULL, status_code INTEGER, error TEXT,
         duration_ms INTEGER NOT NULL, response_snippet TEXT NOT NULL, attempted_at INTEGER NOT NULL, next_attempt_at INTEGER,
         outcome TEXT NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS attempts_by_webhook ON delivery_attempts (webhook_id, row)`,
    ]);
  }

  add(d: Omit<Delivery, "seq" | "status" | "attempts" | "trigger">): void {
    this.db.prepare(`INSERT INTO deliveries (id, webhook_id, tenant_id, event_id, event_type, body, status, attempts, next_attempt_at, trigger, created_at)
      VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, 'scheduled', ?)`).run(d.id, d.webhook_id, d.tenant_id, d.event_id, d.event_type, d.body, d.next_attempt_at, d.created_at);
  }

  due(now: number, limit: number): Delivery[] {
    return this.db.prepare("SELECT * FROM deliveries WHERE status = 'pending' AND leased = 0 AND next_attempt_at <= ? ORDER BY seq LIMIT ?").all(now, limit) as Delivery[];
  }

  /** ms until the earliest pending row is due (0 if now), or null when none is pending. */
  nextDue(now: number): number | null {
    const row = this.db.prepare("SELECT MIN(next_attempt_at) AS t FROM deliveries WHERE status = 'pending'").get() as { t: number | null };
    return row.t === null ? null : Math.max(0, row.t - now);
  }

  get(id: string): Delivery | null {
    return (this.db.prepare("SELECT * FROM deliveries WHERE id = ?").get(id) as Delivery | undefined) ?? null;
  }

  /** Records an attempt and the delivery's new state in one transaction. */
  record(a: Attempt, status: Delivery["status"], nextAttemptAt: number): void {
    this.db.transaction(() => {
      this.db.prepare(`INSERT INTO delivery_attempts (delivery_id, webhook_id, event_id, event_type, attempt, trigger, status_code, error, duration_ms,
        response_snippet, attempted_at, next_attempt_at, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(a.delivery_id, a.webhook_id,
        a.event_id, a.event_type, a.attempt, a.trigger, a.status_code, a.error, a.duration_ms, a.response_snippet, a.attempted_at, a.next_attempt_at, a.outcome);
      if (a.trigger !== "test") {
        this.db.prepare("UPDATE deliveries SET status = ?, attempts = ?, next_attempt_at = ?, trigger = 'scheduled', leased = 0 WHERE id = ?")
          .run(status, a.attempt, nextAttemptAt, a.delivery_id);
      }
    })();
  }

  attempts(webhookId: string, outcome: string | null, before: number, limit: number): (Attempt & { row: number })[] {
    return this.db.prepare(`SELECT * FROM delivery_attempts WHERE webhook_id = ? AND row < ? ${outcome ? "AND outcome = ?" : ""} ORDER BY row DESC LIMIT ?`)
      .all(...(outcome ? [webhookId, before, outcome, limit] : [webhookId, before, limit])) as (Attempt & { row: number })[];
  }

  /** Makes one delivery of the webhook due now as a manual redelivery; false when unknown. */
  redeliver(webhookId: string, deliveryId: string, now: number): boolean {
    return this.db.prepare("UPDATE deliveries SET status = 'pending', next_attempt_at = ?, trigger = 'manual' WHERE id = ? AND webhook_id = ?")
      .run(now, deliveryId, webhookId).changes > 0;
  }

  /** Makes every failed delivery of the webhook created since `since` due now; returns how many. */
  redeliverFailed(webhookId: string, since: number, now: number): number {
    return this.db.prepare("UPDATE deliveries SET status = 'pending', next_attempt_at = ?, trigger = 'manual' WHERE webhook_id = ? AND status = 'failed' AND created_at >= ?")
      .run(now, webhookId, since).changes;
  }

  /** Pending deliveries of a webhook become failed (when it is disabled or deleted). */
  failPending(webhookId: string): void {
    this.db.prepare("UPDATE deliveries SET status = 'failed' WHERE webhook_id = ? AND status = 'pending'").run(webhookId);
  }
}
