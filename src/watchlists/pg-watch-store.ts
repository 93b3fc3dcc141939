// Watchlists on the shared PostgreSQL store (--database; tables of migration 10): every node reads
// and writes them where they are. A tenant's writes take an advisory lock of the tenant for their
// transaction, so two nodes adding at once cannot take it past its cap together. The consumer's
// and the sweep's leases are rows of watch_cursors: one node at a time holds each, renewing it
// as it works; a cursor moves only from the position its holder read, in the transaction that
// writes the events, so a node that lost its lease meanwhile writes nothing.

import { randomKey } from "../store/persisted-key.js";
import { inTransaction, type Query, type SharedDb } from "../store/pg/shared-db.js";
import { DUE_AT_ONCE, newDeliveryId } from "../webhooks/outbox.js";
import { PgOutbox } from "../webhooks/pg/pg-outbox.js";
import { MAX_LEIS_PER_TENANT } from "./lei-input.js";
import {
  MAX_LISTS_PER_TENANT,
  type EventRow,
  type OverCap,
  type RenewalNotice,
  type WatchFilter,
  type Watcher,
  type Watchlist,
  type WatchStore,
} from "./watch-store.js";

const COUNTED = `SELECT w.id, w.tenant_id, w.name, w.filter, w.created_at, w.updated_at,
  (SELECT COUNT(*) FROM watchlist_leis l WHERE l.watchlist_id = w.id)::int AS lei_count FROM watchlists w`;

class Refused extends Error {}

export class PgWatchStore implements WatchStore {
  constructor(private readonly db: SharedDb) {}

  async create(tenantId: string, name: string, filter: WatchFilter | null, leis: readonly string[]): Promise<Watchlist | OverCap> {
    const id = randomKey("wl_", 20);
    const now = new Date().toISOString();
    return this.capped(tenantId, async (q) => {
      const lists = (await q("SELECT COUNT(*)::int AS n FROM watchlists WHERE tenant_id = $1", [tenantId])).rows[0].n as number;
      if (lists >= MAX_LISTS_PER_TENANT) throw new Refused(`the tenant has ${lists} watchlists, the most it may have`);
      await q("INSERT INTO watchlists (id, tenant_id, name, filter, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)", [
        id,
        tenantId,
        name,
        filter === null ? null : JSON.stringify(filter),
        now,
      ]);
      await insertLeis(q, tenantId, id, leis);
      return (await q(`${COUNTED} WHERE w.id = $1`, [id])).rows[0] as unknown as Watchlist;
    });
  }

  async list(tenantId: string): Promise<Watchlist[]> {
    const { rows } = await this.db.pool.query(`${COUNTED} WHERE w.tenant_id = $1 ORDER BY w.created_at, w.id`, [tenantId]);
    return rows as Watchlist[];
  }

  async get(tenantId: string, id: string): Promise<Watchlist | null> {
    const { rows } = await this.db.pool.query(`${COUNTED} WHERE w.id = $1 AND w.tenant_id = $2`, [id, tenantId]);
    return (rows[0] as Watchlist | undefined) ?? null;
  }

  async leisOf(id: string, after: string, limit: number): Promise<string[]> {
    const { rows } = await this.db.pool.query<{ lei: string }>(
      "SELECT lei FROM watchlist_leis WHERE watchlist_id = $1 AND lei > $2 ORDER BY lei LIMIT $3",
      [id, after, limit],
    );
    return rows.map((r) => r.lei);
  }

  add(tenantId: string, id: string, leis: readonly string[]): Promise<{ added: number } | OverCap | null> {
    return this.capped(tenantId, async (q) => {
      if (!(await owned(q, tenantId, id))) return null;
      const added = await insertLeis(q, tenantId, id, leis);
      await q("UPDATE watchlists SET updated_at = $2 WHERE id = $1", [id, new Date().toISOString()]);
      return { added };
    });
  }

  remove(tenantId: string, id: string, leis: readonly string[]): Promise<{ removed: number } | null> {
    return inTransaction(this.db, async (q) => {
      if (!(await owned(q, tenantId, id))) return null;
      const r = await q("DELETE FROM watchlist_leis WHERE watchlist_id = $1 AND lei = ANY($2)", [id, leis]);
      await q("UPDATE watchlists SET updated_at = $2 WHERE id = $1", [id, new Date().toISOString()]);
      return { removed: r.rowCount ?? 0 };
    });
  }

  delete(tenantId: string, id: string): Promise<boolean> {
    return inTransaction(this.db, async (q) => {
      if (!(await owned(q, tenantId, id))) return false;
      await q("DELETE FROM watchlist_leis WHERE watchlist_id = $1", [id]);
      await q("DELETE FROM watchlists WHERE id = $1", [id]);
      return true;
    });
  }

  async watchersOf(leis: readonly string[]): Promise<Watcher[]> {
    const { rows } = await this.db.pool.query<Watcher>(
      "SELECT lei, tenant_id, watchlist_id FROM watchlist_leis WHERE lei = ANY($1) ORDER BY lei, watchlist_id",
      [leis],
    );
    return rows;
  }

  async filterLists(): Promise<Pick<Watchlist, "id" | "tenant_id" | "filter">[]> {
    const { rows } = await this.db.pool.query("SELECT id, tenant_id, filter FROM watchlists WHERE filter IS NOT NULL ORDER BY id");
    return rows as Pick<Watchlist, "id" | "tenant_id" | "filter">[];
  }

  async watched(after: { lei: string; watchlist_id: string }, limit: number): Promise<Watcher[]> {
    const { rows } = await this.db.pool.query<Watcher>(
      `SELECT lei, tenant_id, watchlist_id FROM watchlist_leis WHERE (lei, watchlist_id) > ($1, $2)
       ORDER BY lei, watchlist_id LIMIT $3`,
      [after.lei, after.watchlist_id, limit],
    );
    return rows;
  }

  async lead(name: string, me: string, ms: number): Promise<string | null> {
    const { rows } = await this.db.pool.query<{ position: string }>(
      `UPDATE watch_cursors SET owner = $2, until = now() + $3::interval
       WHERE name = $1 AND (owner IS NULL OR owner = $2 OR until < now()) RETURNING position`,
      [name, me, `${ms} milliseconds`],
    );
    return rows[0]?.position ?? null;
  }

  async advance(name: string, me: string, expected: string, next: string, rows: readonly EventRow[]): Promise<boolean> {
    try {
      return await inTransaction(this.db, async (q) => {
        const moved = await q("UPDATE watch_cursors SET position = $3 WHERE name = $1 AND position = $2 AND owner = $4", [
          name,
          expected,
          next,
          me,
        ]);
        if ((moved.rowCount ?? 0) === 0) throw new Refused("moved");
        await addRows(q, rows);
        return true;
      });
    } catch (err) {
      if (err instanceof Refused) return false;
      throw err;
    }
  }

  notify(notices: readonly RenewalNotice[], now: number): Promise<number> {
    return inTransaction(this.db, async (q) => {
      const { rows } = await q(
        `INSERT INTO renewal_notices (tenant_id, lei, renewal_date, threshold, sent_at)
         SELECT t, l, d, h, $5 FROM unnest($1::text[], $2::text[], $3::text[], $4::int[]) AS x(t, l, d, h)
         ON CONFLICT DO NOTHING RETURNING tenant_id, lei, renewal_date, threshold`,
        [
          notices.map((n) => n.tenant_id),
          notices.map((n) => n.lei),
          notices.map((n) => n.renewal_date),
          notices.map((n) => n.threshold),
          now,
        ],
      );
      const fresh = new Set(
        rows.map((r) => `${r.tenant_id as string} ${r.lei as string} ${r.renewal_date as string} ${r.threshold as number}`),
      );
      await addRows(
        q,
        notices.filter((n) => fresh.has(`${n.tenant_id} ${n.lei} ${n.renewal_date} ${n.threshold}`)).flatMap((n) => n.rows),
      );
      return fresh.size;
    });
  }

  /** A transaction of the tenant's writes (their advisory lock held); Refused becomes an OverCap answer. */
  private async capped<T>(tenantId: string, work: (q: Query) => Promise<T>): Promise<T | OverCap> {
    try {
      return await inTransaction(this.db, async (q) => {
        await q("SELECT pg_advisory_xact_lock(hashtext('leidex watchlists ' || $1))", [tenantId]);
        return work(q);
      });
    } catch (err) {
      if (err instanceof Refused) return { over: err.message };
      throw err;
    }
  }
}

async function owned(q: Query, tenantId: string, id: string): Promise<boolean> {
  return (await q("SELECT 1 FROM watchlists WHERE id = $1 AND tenant_id = $2", [id, tenantId])).rows.length > 0;
}

async function insertLeis(q: Query, tenantId: string, id: string, leis: readonly string[]): Promise<number> {
  if (leis.length === 0) return 0;
  const r = await q(
    `INSERT INTO watchlist_leis (watchlist_id, lei, tenant_id) SELECT $1, l, $2 FROM unnest($3::text[]) AS l ON CONFLICT DO NOTHING`,
    [id, tenantId, leis],
  );
  const added = r.rowCount ?? 0;
  if (added > 0) {
    const n = (await q("SELECT COUNT(*)::int AS n FROM watchlist_leis WHERE tenant_id = $1", [tenantId])).rows[0].n as number;
    if (n > MAX_LEIS_PER_TENANT)
      throw new Refused(`the tenant's watchlists would hold ${n} LEIs, more than the ${MAX_LEIS_PER_TENANT} they may hold together`);
  }
  return added;
}

/** Outbox rows due at once, counted in their endpoints' backlogs, and every node's dispatch woken at commit. */
async function addRows(q: Query, rows: readonly EventRow[]): Promise<void> {
  if (rows.length === 0) return;
  const now = Date.now();
  await q(
    `INSERT INTO deliveries (id, webhook_id, tenant_id, event_id, event_type, body, status, attempts, next_attempt_at, trigger, created_at)
     SELECT id, w, t, e, k, b, 'pending', 0, $7::bigint, 'scheduled', $8::bigint
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS x(id, w, t, e, k, b)`,
    [
      rows.map(() => newDeliveryId(now)),
      rows.map((r) => r.webhook_id),
      rows.map((r) => r.tenant_id),
      rows.map((r) => r.event_id),
      rows.map((r) => r.event_type),
      rows.map((r) => r.body),
      DUE_AT_ONCE,
      now,
    ],
  );
  const counted = new Map<string, { webhook_id: string; tenant_id: string; n: number }>();
  for (const r of rows) {
    const c = counted.get(r.webhook_id);
    if (c) c.n++;
    else counted.set(r.webhook_id, { webhook_id: r.webhook_id, tenant_id: r.tenant_id, n: 1 });
  }
  await q("SELECT leidex_add_pending($1)", [JSON.stringify([...counted.values()])]);
  await PgOutbox.wake(q);
}
