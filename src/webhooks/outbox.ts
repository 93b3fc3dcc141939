// The outbox and the delivery log. One `deliveries` row per (event, webhook): the exact body bytes
// to send (byte-identical on every attempt), its state (pending, delivered, failed) and when it is
// next due. One `delivery_attempts` row per attempt. Rows are written in the same transaction as
// the event intake, so an event acknowledged with 202 survives kill -9; at start every pending row
// is due again (at least once).
//
// `leased` marks a row handed to a dispatcher thread; it lives in the table only so that the
// query for due rows can skip rows already on their way (leases are cleared at start). Rows handed
// straight from intake are inserted leased, so the common path writes each row twice: once at
// intake, once with its result.
//
// Retention (pruned in small batches, see OutboxPruner): a delivered row is deleted a day after it
// was delivered (until then it can be redelivered by hand); a failed row after 30 days; the
// delivery log the tenant reads keeps 30 days of attempts. finished_at and attempted_at are
// recorded on a clock that never runs backwards (time/record-clock.ts), so a row never looks
// older than it is after a backward step of the wall clock is put right.

import { randomBytes } from "node:crypto";
import { threadId } from "node:worker_threads";
import { migrate, type StateDb } from "../store/state-db.js";
import type { DeliveryLog, PrunableOutbox } from "./webhook-state.js";

export const DAY_MS = 86_400_000;
export const RETENTION_MS = { delivered: DAY_MS, failed: 30 * DAY_MS, log: 30 * DAY_MS } as const;
/**
 * next_attempt_at of a row due at once (a first attempt, a manual redelivery): whatever any
 * clock says. A retry's next_attempt_at is on the retry clock (time/steady-clock.ts).
 */
export const DUE_AT_ONCE = 0;
/**
 * No retry is ever scheduled further ahead than this (the longest backoff with its jitter, or a
 * day of Retry-After); a row further ahead than that was scheduled by a clock that was ahead, and
 * is made due at once by the pruner's pass.
 */
export const LONGEST_RETRY_MS = DAY_MS;

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

/** An attempt and, unless it was a test dispatch (seq 0), the delivery's new state. */
export interface Outcome {
  seq: number;
  attempt: Attempt;
  status: Delivery["status"];
  nextAttemptAt: number;
}

export type NewDelivery = Omit<Delivery, "seq" | "id" | "status" | "attempts" | "trigger">;

/**
 * Runs `fn` in a transaction that commits without waiting for the disk (synchronous = NORMAL, WAL):
 * for writes that at-least-once delivery makes safe to lose, such as results and leases. kill -9
 * cannot lose them (the WAL frames are in the OS by then), only a power cut; the next full-sync
 * commit (an intake) makes them durable too. Saves an fsync on every results flush.
 */
export function relaxedTransaction<T>(db: StateDb, fn: () => T): T {
  const before = db.pragma("synchronous", { simple: true }) as number;
  db.pragma("synchronous = NORMAL");
  try {
    return db.transaction(fn)();
  } finally {
    db.pragma(`synchronous = ${before}`);
  }
}

// Random per process, plus the thread: the front and the intake writer both create deliveries,
// each with its own counter, so their tags must differ.
const THREAD_TAG =
  Array.from(randomBytes(4), (b) => "0123456789abcdefghijklmnopqrstuvwxyz"[b % 36]).join("") +
  (threadId % 1296).toString(36).padStart(2, "0");
let idCounter = 0;

/**
 * A delivery id: `dl_` + time + a per-process-and-thread tag + a counter. Ids grow with time, so
 * the unique index takes each new one at its right edge instead of at a random page.
 */
export function newDeliveryId(nowMs: number): string {
  idCounter = (idCounter + 1) % 36 ** 7;
  return `dl_${nowMs.toString(36).padStart(9, "0")}${THREAD_TAG}${idCounter.toString(36).padStart(7, "0")}`;
}

const COLUMNS = "seq, id, webhook_id, tenant_id, event_id, event_type, body, status, attempts, next_attempt_at, trigger, created_at";

export class Outbox implements DeliveryLog, PrunableOutbox {
  private readonly insert;
  private readonly dueFresh;
  private readonly dueRetries;
  private readonly waitingFresh;
  private readonly waitingRetries;
  private readonly setLeased;
  private readonly insertAttempt;
  private readonly updateAfterAttempt;

  constructor(private readonly db: StateDb) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS deliveries (
         seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, webhook_id TEXT NOT NULL, tenant_id TEXT NOT NULL,
         event_id TEXT NOT NULL, event_type TEXT NOT NULL, body TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL,
         next_attempt_at INTEGER NOT NULL, trigger TEXT NOT NULL, created_at INTEGER NOT NULL, leased INTEGER NOT NULL DEFAULT 0,
         finished_at INTEGER)`,
      `CREATE TABLE IF NOT EXISTS delivery_attempts (
         row INTEGER PRIMARY KEY AUTOINCREMENT, delivery_id TEXT NOT NULL, webhook_id TEXT NOT NULL, event_id TEXT NOT NULL,
         event_type TEXT NOT NULL, attempt INTEGER NOT NULL, trigger TEXT NOT NULL, status_code INTEGER, error TEXT,
         duration_ms INTEGER NOT NULL, response_snippet TEXT NOT NULL, attempted_at INTEGER NOT NULL, next_attempt_at INTEGER,
         outcome TEXT NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS attempts_by_webhook ON delivery_attempts (webhook_id, row)`,
    ]);
    // state.db files from before pruning have no finished_at: add it, and let rows finished by then
    // count as finished now (they go a retention period from this start)
    const columns = db.prepare("PRAGMA table_info(deliveries)").all() as { name: string }[];
    if (!columns.some((c) => c.name === "finished_at")) {
      db.transaction(() => {
        db.exec("ALTER TABLE deliveries ADD COLUMN finished_at INTEGER");
        db.prepare("UPDATE deliveries SET finished_at = ? WHERE status <> 'pending'").run(Date.now());
      })();
    }
    migrate(db, [
      // the old (status, next_attempt_at) index also covered every delivered row; these cover
      // only what each query needs: an endpoint's first attempts waiting to be handed out (in event
      // order), its retries waiting (by time), finished rows by age, and a webhook's pending and failed rows
      `DROP INDEX IF EXISTS deliveries_due`,
      // waiting rows are read per endpoint (fair hand-out, fair-share.ts): the global indexes of
      // first attempts by seq and retries by time gave way to the same per endpoint
      `DROP INDEX IF EXISTS deliveries_fresh`,
      `DROP INDEX IF EXISTS deliveries_retry`,
      `CREATE INDEX IF NOT EXISTS deliveries_fresh_of ON deliveries (webhook_id, seq) WHERE status = 'pending' AND leased = 0 AND attempts = 0`,
      `CREATE INDEX IF NOT EXISTS deliveries_retry_of ON deliveries (webhook_id, next_attempt_at) WHERE status = 'pending' AND leased = 0 AND attempts > 0`,
      `CREATE INDEX IF NOT EXISTS deliveries_finished ON deliveries (status, finished_at) WHERE finished_at IS NOT NULL`,
      // without delivered rows (most of the table): a delivery's last write only drops its entry
      `CREATE INDEX IF NOT EXISTS deliveries_open ON deliveries (webhook_id, status) WHERE status <> 'delivered'`,
    ]);
    // prepared once: compiling a statement costs more than running it
    this.insert =
      db.prepare(`INSERT INTO deliveries (id, webhook_id, tenant_id, event_id, event_type, body, status, attempts, next_attempt_at, trigger, created_at, leased)
      VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, 'scheduled', ?, ?)`);
    this.dueFresh = db.prepare(
      `SELECT ${COLUMNS} FROM deliveries WHERE webhook_id = ? AND status = 'pending' AND leased = 0 AND attempts = 0 AND next_attempt_at <= ?
      ORDER BY seq LIMIT ?`,
    );
    this.dueRetries =
      db.prepare(`SELECT ${COLUMNS} FROM deliveries WHERE webhook_id = ? AND status = 'pending' AND leased = 0 AND attempts > 0 AND next_attempt_at <= ?
      ORDER BY next_attempt_at, seq LIMIT ?`);
    // a loose index scan: one seek per endpoint with rows waiting, however many rows each has
    const next = (which: string): string =>
      `SELECT webhook_id FROM deliveries WHERE status = 'pending' AND leased = 0 AND ${which} AND webhook_id > ? ORDER BY webhook_id LIMIT 1`;
    this.waitingFresh = db
      .prepare(
        `WITH RECURSIVE e(id) AS (SELECT (${next("attempts = 0").replace("?", "''")})
         UNION ALL SELECT (${next("attempts = 0").replace("?", "e.id")}) FROM e WHERE e.id IS NOT NULL)
       SELECT id FROM e WHERE id IS NOT NULL`,
      )
      .pluck();
    this.waitingRetries = db
      .prepare(
        `WITH RECURSIVE e(id) AS (SELECT (${next("attempts > 0").replace("?", "''")})
         UNION ALL SELECT (${next("attempts > 0").replace("?", "e.id")}) FROM e WHERE e.id IS NOT NULL)
       SELECT id FROM e WHERE id IS NOT NULL AND (SELECT next_attempt_at FROM deliveries
         WHERE webhook_id = e.id AND status = 'pending' AND leased = 0 AND attempts > 0 ORDER BY next_attempt_at LIMIT 1) <= ?`,
      )
      .pluck();
    this.setLeased = db.prepare("UPDATE deliveries SET leased = ? WHERE seq = ?");
    this.insertAttempt =
      db.prepare(`INSERT INTO delivery_attempts (delivery_id, webhook_id, event_id, event_type, attempt, trigger, status_code, error, duration_ms,
      response_snippet, attempted_at, next_attempt_at, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    // A manual redelivery asked for while a scheduled attempt was on its way (the row says
    // 'manual', the attempt was not) survives that attempt's result: the row stays due now.
    this.updateAfterAttempt = db.prepare(`UPDATE deliveries SET
        status = CASE WHEN trigger = 'manual' AND :handed = 'scheduled' THEN 'pending' ELSE :status END,
        next_attempt_at = CASE WHEN trigger = 'manual' AND :handed = 'scheduled' THEN next_attempt_at ELSE :next END,
        finished_at = CASE WHEN trigger = 'manual' AND :handed = 'scheduled' THEN NULL ELSE :finished END,
        trigger = CASE WHEN trigger = 'manual' AND :handed = 'scheduled' THEN 'manual' ELSE 'scheduled' END,
        attempts = :attempts, leased = 0
      WHERE seq = :seq`);
  }

  /**
   * Adds a pending delivery, due at once. `leased` = it is handed to a dispatcher right after the
   * transaction commits, so the due-row query need not find it. Runs inside the caller's transaction,
   * which also counts the row in the endpoint's backlog (Backlog.added).
   */
  add(d: NewDelivery, leased: boolean): Delivery {
    const id = newDeliveryId(d.created_at);
    const r = this.insert.run(
      id,
      d.webhook_id,
      d.tenant_id,
      d.event_id,
      d.event_type,
      d.body,
      d.next_attempt_at,
      d.created_at,
      leased ? 1 : 0,
    );
    return {
      seq: Number(r.lastInsertRowid),
      id,
      webhook_id: d.webhook_id,
      tenant_id: d.tenant_id,
      event_id: d.event_id,
      event_type: d.event_type,
      body: d.body,
      status: "pending",
      attempts: 0,
      next_attempt_at: d.next_attempt_at,
      trigger: "scheduled",
      created_at: d.created_at,
    };
  }

  /** Endpoints with pending rows not handed out and due by `now` (first attempts count as due). */
  waiting(now: number): string[] {
    const ids = new Set((this.waitingFresh.all() as string[]).concat(this.waitingRetries.all(now) as string[]));
    return [...ids];
  }

  /**
   * An endpoint's pending rows not handed out and due by `now`, at most `limit`: first attempts in
   * event order, then retries by due time (each from the front of its own index, never sorted).
   */
  dueOf(webhookId: string, now: number, limit: number): Delivery[] {
    const fresh = this.dueFresh.all(webhookId, now, limit) as Delivery[];
    if (fresh.length >= limit) return fresh;
    return fresh.concat(this.dueRetries.all(webhookId, now, limit - fresh.length) as Delivery[]);
  }

  /** Marks rows (by seq) handed out (true) or taken back (false), in one transaction; leases need no fsync (cleared at start). */
  lease(seqs: readonly number[], leased: boolean): void {
    if (seqs.length === 0) return;
    relaxedTransaction(this.db, () => {
      for (const seq of seqs) this.setLeased.run(leased ? 1 : 0, seq);
    });
  }

  /** These deliveries (by seq) cannot go (their endpoint was disabled or deleted): failed, in one transaction. */
  fail(seqs: readonly number[], now: number): void {
    const st = this.db.prepare("UPDATE deliveries SET status = 'failed', leased = 0, finished_at = ? WHERE seq = ?");
    relaxedTransaction(this.db, () => {
      for (const seq of seqs) st.run(now, seq);
    });
  }

  /** Leases of rows after `afterSeq` go, except those of `keep` (rows on their way). */
  releaseAfter(afterSeq: number, keep: readonly number[]): void {
    relaxedTransaction(this.db, () => {
      this.db
        .prepare("UPDATE deliveries SET leased = 0 WHERE seq > ? AND leased = 1 AND seq NOT IN (SELECT value FROM json_each(?))")
        .run(afterSeq, JSON.stringify(keep));
    });
  }

  /** Every lease goes: nothing is on its way at start. */
  clearLeases(): void {
    this.db.exec("UPDATE deliveries SET leased = 0 WHERE leased = 1");
  }

  /** Records attempts and the deliveries' new states; runs inside the caller's transaction. */
  record(outcomes: readonly Outcome[], now: number): void {
    for (const { seq, attempt: a, status, nextAttemptAt } of outcomes) {
      this.insertAttempt.run(
        a.delivery_id,
        a.webhook_id,
        a.event_id,
        a.event_type,
        a.attempt,
        a.trigger,
        a.status_code,
        a.error,
        a.duration_ms,
        a.response_snippet,
        a.attempted_at,
        a.next_attempt_at,
        a.outcome,
      );
      if (a.trigger !== "test") {
        this.updateAfterAttempt.run({
          handed: a.trigger,
          status,
          next: nextAttemptAt,
          finished: status === "pending" ? null : now,
          attempts: a.attempt,
          seq,
        });
      }
    }
  }

  attempts(webhookId: string, outcome: string | null, before: number, limit: number): (Attempt & { row: number })[] {
    return this.db
      .prepare(
        `SELECT * FROM delivery_attempts WHERE webhook_id = ? AND row < ? ${outcome ? "AND outcome = ?" : ""} ORDER BY row DESC LIMIT ?`,
      )
      .all(...(outcome ? [webhookId, before, outcome, limit] : [webhookId, before, limit])) as (Attempt & { row: number })[];
  }

  /** Makes one delivery of the webhook due at once as a manual redelivery; false when unknown (or already pruned). */
  redeliver(webhookId: string, deliveryId: string): boolean {
    return (
      this.db
        .prepare(
          "UPDATE deliveries SET status = 'pending', next_attempt_at = ?, trigger = 'manual', finished_at = NULL WHERE id = ? AND webhook_id = ?",
        )
        .run(DUE_AT_ONCE, deliveryId, webhookId).changes > 0
    );
  }

  /** Makes every failed delivery of the webhook created since `since` due at once; returns how many. */
  redeliverFailed(webhookId: string, since: number): number {
    return this.db
      .prepare(
        `UPDATE deliveries SET status = 'pending', next_attempt_at = ?, trigger = 'manual', finished_at = NULL
      WHERE webhook_id = ? AND status = 'failed' AND status <> 'delivered' AND created_at >= ?`,
      )
      .run(DUE_AT_ONCE, webhookId, since).changes;
  }

  /** Pending deliveries of a webhook become failed (when it is disabled or deleted); `now` is a recorded time. */
  failPending(webhookId: string, now: number): void {
    // `status <> 'delivered'` lets SQLite use the partial index deliveries_open
    this.db
      .prepare(
        "UPDATE deliveries SET status = 'failed', finished_at = ? WHERE webhook_id = ? AND status = 'pending' AND status <> 'delivered'",
      )
      .run(now, webhookId);
  }

  /** One node: it always prunes on its own timer. */
  myTurn(): boolean {
    return true;
  }

  /**
   * Retries due more than LONGEST_RETRY_MS after `now` (the retry clock) were scheduled by a clock
   * that was ahead (an earlier run started with the wall clock ahead): due at once. Returns how many.
   */
  dueTooFarAhead(now: number): number {
    return this.db
      .prepare(
        `UPDATE deliveries SET next_attempt_at = ? WHERE seq IN
       (SELECT seq FROM deliveries WHERE status = 'pending' AND leased = 0 AND attempts > 0 AND next_attempt_at > ? LIMIT 500)`,
      )
      .run(DUE_AT_ONCE, now + LONGEST_RETRY_MS).changes;
  }

  /** Deletes up to `limit` rows of the status that finished before `before`; returns how many. */
  pruneFinished(status: "delivered" | "failed", before: number, limit: number): number {
    return this.db
      .prepare("DELETE FROM deliveries WHERE seq IN (SELECT seq FROM deliveries WHERE status = ? AND finished_at < ? LIMIT ?)")
      .run(status, before, limit).changes;
  }

  /**
   * Deletes delivery-log rows older than `before` among the `limit` oldest; returns how many. Rows
   * are appended in time order, so the oldest rows are a bounded window to look at (no index on time).
   */
  pruneLog(before: number, limit: number): number {
    return this.db
      .prepare(
        `DELETE FROM delivery_attempts WHERE row IN
      (SELECT row FROM (SELECT row, attempted_at FROM delivery_attempts ORDER BY row LIMIT ?) WHERE attempted_at < ?)`,
      )
      .run(limit, before).changes;
  }
}
