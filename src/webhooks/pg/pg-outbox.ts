// The outbox and delivery log in the shared PostgreSQL store. A node claims due rows with
// FOR UPDATE SKIP LOCKED, only of the endpoints whose leases it holds (endpoint-leases.ts), as
// many of each as the front's fair share gives it (fair-share.ts), and
// marks them with its run's name, which takes them out of the claimable rows' indexes; when it
// takes an endpoint's lease, rows still marked by the run that held it before (killed, or given
// up) are cleared, due again. Results are recorded only on rows still marked by this run.
// Pruning runs on one node a period (maintenance_runs).

import { inTransaction, type Query, type SharedDb } from "../../store/pg/shared-db.js";
import { DUE_AT_ONCE, LONGEST_RETRY_MS, type Attempt, type Delivery, type Outcome } from "../outbox.js";
import type { DeliveryLog, DispatchQueue, HealthChange, PrunableOutbox } from "../webhook-state.js";
import type { EndpointLeases } from "./endpoint-leases.js";
import type { PgWebhookConfig } from "./pg-webhook-config.js";

/** rows stored or made due again, for every node's dispatch to look */
export const OUTBOX_CHANNEL = "leidex_outbox";

const COLUMNS = "seq, id, webhook_id, tenant_id, event_id, event_type, body, status, attempts, next_attempt_at, trigger, created_at";

/** how often a claim looks for free leases of the endpoints that hash to this node */
const LEASE_LOOK_MS = 200;

export class PgOutbox implements DeliveryLog, DispatchQueue, PrunableOutbox {
  private nextLeaseLook = 0;

  constructor(
    private readonly db: SharedDb,
    private readonly config: PgWebhookConfig,
    private readonly leases: EndpointLeases,
  ) {}

  /** Tells every node's dispatch that rows are due (at commit, when run inside a transaction). */
  static wake(q: Query): Promise<unknown> {
    return q("SELECT pg_notify($1, '')", [OUTBOX_CHANNEL]);
  }

  async waiting(now: number): Promise<string[]> {
    const me = this.leases.me;
    // first the free leases of endpoints that hash here and have rows pending (at most once a
    // poll: a pump runs at every wake-up); rows of a taken endpoint still marked by a run that
    // held it before (killed, or given up) are due again, in the same statement
    const wanted = performance.now() >= this.nextLeaseLook ? this.leases.wanted() : [];
    if (wanted.length > 0) {
      this.nextLeaseLook = performance.now() + LEASE_LOOK_MS;
      const { rows } = await this.db.pool.query<{ endpoint_id: string }>(
        `WITH took AS (
           INSERT INTO endpoint_leases (endpoint_id, owner, until)
           SELECT webhook_id, $1, now() + $2::interval FROM pending_counts WHERE webhook_id = ANY($3) GROUP BY webhook_id HAVING SUM(n) > 0
           ON CONFLICT (endpoint_id) DO UPDATE SET owner = excluded.owner, until = excluded.until WHERE endpoint_leases.until < now()
           RETURNING endpoint_id),
         cleared AS (
           UPDATE deliveries SET leased_by = NULL
           WHERE webhook_id IN (SELECT endpoint_id FROM took) AND status <> 'delivered' AND leased_by IS NOT NULL)
         SELECT endpoint_id FROM took`,
        [me, `${this.leases.leaseMs} milliseconds`, wanted],
      );
      this.leases.took(rows.map((r) => r.endpoint_id));
    }
    const endpoints = this.leases.claimable();
    if (endpoints.length === 0) return [];
    // one seek per endpoint in each of its two indexes (rows on their way are not in them)
    const { rows } = await this.db.pool.query<{ id: string }>(
      `SELECT e.id FROM unnest($1::text[]) AS e(id) WHERE
         EXISTS (SELECT 1 FROM deliveries WHERE webhook_id = e.id AND status = 'pending' AND attempts = 0 AND leased_by IS NULL AND next_attempt_at <= $2)
         OR EXISTS (SELECT 1 FROM deliveries WHERE webhook_id = e.id AND status = 'pending' AND attempts > 0 AND leased_by IS NULL AND next_attempt_at <= $2)`,
      [endpoints, now],
    );
    return rows.map((r) => r.id);
  }

  async claim(now: number, share: ReadonlyMap<string, number>): Promise<Delivery[]> {
    if (share.size === 0) return [];
    // each endpoint's first `n` due rows from its own indexes, first attempts in event order and
    // then retries by due time, only while this run holds its lease
    const { rows } = await this.db.pool.query<Delivery>(
      `UPDATE deliveries d SET leased_by = $1 FROM (
         SELECT seq FROM deliveries WHERE seq IN (
           SELECT c.seq FROM (
             SELECT e.id, e.n FROM unnest($2::text[], $3::int[]) AS e(id, n)
             JOIN endpoint_leases l ON l.endpoint_id = e.id AND l.owner = $1 AND l.until > now()) e
           CROSS JOIN LATERAL (
             SELECT u.seq FROM (
               (SELECT seq, 0 AS k, seq AS o FROM deliveries
                WHERE webhook_id = e.id AND status = 'pending' AND attempts = 0 AND leased_by IS NULL AND next_attempt_at <= $4
                ORDER BY seq LIMIT e.n)
               UNION ALL
               (SELECT seq, 1 AS k, next_attempt_at AS o FROM deliveries
                WHERE webhook_id = e.id AND status = 'pending' AND attempts > 0 AND leased_by IS NULL AND next_attempt_at <= $4
                ORDER BY next_attempt_at, seq LIMIT e.n)) u
             ORDER BY u.k, u.o, u.seq LIMIT e.n) c)
         AND status = 'pending' AND leased_by IS NULL
         FOR UPDATE SKIP LOCKED) due
       WHERE d.seq = due.seq RETURNING ${COLUMNS.split(", ")
         .map((c) => `d.${c}`)
         .join(", ")}`,
      [this.leases.me, [...share.keys()], [...share.values()], now],
    );
    // per endpoint: first attempts in event order, then retries by due time
    return rows.sort(
      (a, b) =>
        Number(a.attempts > 0) - Number(b.attempts > 0) || (a.attempts > 0 ? a.next_attempt_at - b.next_attempt_at : 0) || a.seq - b.seq,
    );
  }

  async release(seqs: readonly number[]): Promise<void> {
    if (seqs.length === 0) return;
    await this.db.pool.query("UPDATE deliveries SET leased_by = NULL WHERE seq = ANY($1) AND leased_by = $2", [seqs, this.leases.me]);
  }

  async fail(seqs: readonly number[], now: number): Promise<void> {
    if (seqs.length === 0) return;
    await this.db.pool.query("UPDATE deliveries SET status = 'failed', leased_by = NULL, finished_at = $2 WHERE seq = ANY($1)", [
      seqs,
      now,
    ]);
  }

  async record(outcomes: readonly Outcome[], health: readonly HealthChange[], disabled: readonly string[], now: number): Promise<void> {
    const me = this.leases.me;
    const work = async (q: Query): Promise<void> => {
      const a = outcomes.map((o) => o.attempt);
      await q(
        `INSERT INTO delivery_attempts (delivery_id, webhook_id, event_id, event_type, attempt, trigger, status_code, error, duration_ms,
           response_snippet, attempted_at, next_attempt_at, outcome)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::int[], $8::text[], $9::int[],
           $10::text[], $11::bigint[], $12::bigint[], $13::text[])`,
        [
          a.map((x) => x.delivery_id),
          a.map((x) => x.webhook_id),
          a.map((x) => x.event_id),
          a.map((x) => x.event_type),
          a.map((x) => x.attempt),
          a.map((x) => x.trigger),
          a.map((x) => x.status_code),
          a.map((x) => x.error),
          a.map((x) => Math.round(x.duration_ms)),
          a.map((x) => x.response_snippet),
          a.map((x) => Math.round(x.attempted_at)),
          a.map((x) => (x.next_attempt_at === null ? null : Math.round(x.next_attempt_at))),
          a.map((x) => x.outcome),
        ],
      );
      const d = outcomes.filter((o) => o.attempt.trigger !== "test");
      // a manual redelivery asked for while a scheduled attempt was on its way survives that attempt's result
      await q(
        `UPDATE deliveries d SET
           status = CASE WHEN d.trigger = 'manual' AND u.handed = 'scheduled' THEN 'pending' ELSE u.status END,
           next_attempt_at = CASE WHEN d.trigger = 'manual' AND u.handed = 'scheduled' THEN d.next_attempt_at ELSE u.next END,
           finished_at = CASE WHEN d.trigger = 'manual' AND u.handed = 'scheduled' THEN NULL ELSE u.finished END,
           trigger = CASE WHEN d.trigger = 'manual' AND u.handed = 'scheduled' THEN 'manual' ELSE 'scheduled' END,
           attempts = u.attempts, leased_by = NULL
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::int[]) AS u(seq, handed, status, next, finished, attempts)
         WHERE d.seq = u.seq AND d.leased_by = $7`,
        [
          d.map((o) => o.seq),
          d.map((o) => o.attempt.trigger),
          d.map((o) => o.status),
          d.map((o) => Math.round(o.nextAttemptAt)),
          d.map((o) => (o.status === "pending" ? null : Math.round(now))),
          d.map((o) => o.attempt.attempt),
          me,
        ],
      );
      // after the outcomes, so that a retry recorded in this batch cannot revive a disabled endpoint's row
      if (disabled.length > 0)
        await q("UPDATE deliveries SET status = 'failed', finished_at = $2 WHERE webhook_id = ANY($1) AND status = 'pending'", [
          disabled,
          now,
        ]);
    };
    if (health.length === 0) await inTransaction(this.db, work);
    else
      await this.config.commit(
        async (q) => ({ changed: true, result: await work(q) }),
        () => undefined,
        health,
      );
  }

  async attempts(webhookId: string, outcome: string | null, before: number, limit: number): Promise<(Attempt & { row: number })[]> {
    const { rows } = await this.db.pool.query<Attempt & { row: number }>(
      `SELECT * FROM delivery_attempts WHERE webhook_id = $1 AND row < $2 ${outcome ? "AND outcome = $4" : ""} ORDER BY row DESC LIMIT $3`,
      outcome ? [webhookId, before, limit, outcome] : [webhookId, before, limit],
    );
    return rows;
  }

  /** One statement that makes rows due and wakes every node's dispatch; returns how many. */
  private async makeDue(sql: string, values: unknown[]): Promise<number> {
    return inTransaction(this.db, async (q) => {
      const r = await q(sql, values);
      if ((r.rowCount ?? 0) > 0) await PgOutbox.wake(q);
      return r.rowCount ?? 0;
    });
  }

  async redeliver(webhookId: string, deliveryId: string): Promise<boolean> {
    const n = await this.makeDue(
      "UPDATE deliveries SET status = 'pending', next_attempt_at = $1, trigger = 'manual', finished_at = NULL WHERE id = $2 AND webhook_id = $3",
      [DUE_AT_ONCE, deliveryId, webhookId],
    );
    return n > 0;
  }

  redeliverFailed(webhookId: string, since: number): Promise<number> {
    return this.makeDue(
      `UPDATE deliveries SET status = 'pending', next_attempt_at = $1, trigger = 'manual', finished_at = NULL
       WHERE webhook_id = $2 AND status = 'failed' AND created_at >= $3`,
      [DUE_AT_ONCE, webhookId, since],
    );
  }

  async failPending(endpointId: string, now: number): Promise<void> {
    await this.db.pool.query("UPDATE deliveries SET status = 'failed', finished_at = $2 WHERE webhook_id = $1 AND status = 'pending'", [
      endpointId,
      now,
    ]);
  }

  /** Whether this node prunes now: at most one node a period (the first to ask once half a period has passed). */
  async myTurn(everyMs: number): Promise<boolean> {
    const r = await this.db.pool.query(
      "UPDATE maintenance_runs SET last_run = now() WHERE name = 'outbox pruning' AND last_run <= now() - $1::interval",
      [`${Math.round(everyMs / 2)} milliseconds`],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async pruneFinished(status: "delivered" | "failed", before: number, limit: number): Promise<number> {
    const r = await this.db.pool.query(
      "DELETE FROM deliveries WHERE seq IN (SELECT seq FROM deliveries WHERE status = $1 AND finished_at < $2 LIMIT $3)",
      [status, Math.floor(before), limit],
    );
    return r.rowCount ?? 0;
  }

  /**
   * Retries due more than a day ahead of both this node's retry clock and the database's clock
   * were scheduled by a node whose clock was ahead: due at once (one wrong clock alone never
   * makes rows due early).
   */
  async dueTooFarAhead(now: number): Promise<number> {
    const r = await this.makeDue(
      `UPDATE deliveries SET next_attempt_at = $1 WHERE seq IN (
         SELECT seq FROM deliveries WHERE status = 'pending' AND attempts > 0 AND leased_by IS NULL
           AND next_attempt_at > GREATEST($2::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) + $3
         LIMIT 500)`,
      [DUE_AT_ONCE, Math.floor(now), LONGEST_RETRY_MS],
    );
    return r;
  }

  async pruneLog(before: number, limit: number): Promise<number> {
    const r = await this.db.pool.query(
      `DELETE FROM delivery_attempts WHERE row IN
         (SELECT row FROM (SELECT row, attempted_at FROM delivery_attempts ORDER BY row LIMIT $1) oldest WHERE attempted_at < $2)`,
      [limit, Math.floor(before)],
    );
    return r.rowCount ?? 0;
  }
}
