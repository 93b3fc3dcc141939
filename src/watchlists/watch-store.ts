// Where watchlists and their event bookkeeping are kept: state.db on one node (this file), or the
// shared PostgreSQL store with --database (pg-watch-store.ts), read where they are stored so that
// every node sees every change at once. Besides the lists: the cursors of the change-feed
// consumer and of the renewal sweep (each with a lease, so one node works at a time), the renewal
// notices sent (the sweep's durable de-duplication), and the one transaction that writes events
// to the outbox together with the cursor or notices that say they were written.

import { randomKey } from "../store/persisted-key.js";
import { migrate, type StateDb } from "../store/state-db.js";
import { Backlog } from "../webhooks/backlog.js";
import { DUE_AT_ONCE, Outbox, relaxedTransaction } from "../webhooks/outbox.js";
import { MAX_LEIS_PER_TENANT } from "./lei-input.js";

/** A list's filter: every entity whose ultimate (or direct) accounting consolidation parent is the LEI. */
export interface WatchFilter {
  ultimateParent?: string;
  directParent?: string;
}

export interface Watchlist {
  id: string;
  tenant_id: string;
  name: string;
  filter: WatchFilter | null;
  lei_count: number;
  created_at: string;
  updated_at: string;
}

/** A list that names an LEI. */
export interface Watcher {
  lei: string;
  tenant_id: string;
  watchlist_id: string;
}

/** An event for one endpoint, as the outbox stores it. */
export interface EventRow {
  webhook_id: string;
  tenant_id: string;
  event_id: string;
  event_type: string;
  body: string;
}

/** A renewal reminder to record once (tenant, LEI, renewal date, threshold) and its rows. */
export interface RenewalNotice {
  tenant_id: string;
  lei: string;
  renewal_date: string;
  threshold: number;
  rows: EventRow[];
}

/** The answer when a write would take the tenant over a cap: nothing of it is stored. */
export interface OverCap {
  over: string;
}

export const MAX_LISTS_PER_TENANT = 1_000;
export const CHANGES_CURSOR = "changes";
export const SWEEP_CURSOR = "renewal sweep";

export interface WatchStore {
  create(tenantId: string, name: string, filter: WatchFilter | null, leis: readonly string[]): Promise<Watchlist | OverCap>;
  list(tenantId: string): Promise<Watchlist[]>;
  get(tenantId: string, id: string): Promise<Watchlist | null>;
  /** the list's LEIs after `after`, in LEI order */
  leisOf(id: string, after: string, limit: number): Promise<string[]>;
  /** null: no such list of the tenant */
  add(tenantId: string, id: string, leis: readonly string[]): Promise<{ added: number } | OverCap | null>;
  remove(tenantId: string, id: string, leis: readonly string[]): Promise<{ removed: number } | null>;
  delete(tenantId: string, id: string): Promise<boolean>;

  /** every list naming one of the LEIs */
  watchersOf(leis: readonly string[]): Promise<Watcher[]>;
  /** every list with a filter */
  filterLists(): Promise<Pick<Watchlist, "id" | "tenant_id" | "filter">[]>;
  /** the named LEIs of all lists, in (lei, list) order after the given pair, at most `limit` */
  watched(after: { lei: string; watchlist_id: string }, limit: number): Promise<Watcher[]>;

  /** the cursor's position when this node (`me`) may work on it now (holding its lease for `ms`), else null */
  lead(name: string, me: string, ms: number): Promise<string | null>;
  /** one transaction: the rows into the outbox and the cursor from `expected` to `next`; false (nothing written) when it moved meanwhile or the lease went */
  advance(name: string, me: string, expected: string, next: string, rows: readonly EventRow[]): Promise<boolean>;
  /** one transaction: each notice not recorded before is recorded and its rows go into the outbox; how many were new */
  notify(notices: readonly RenewalNotice[], now: number): Promise<number>;
}

const COUNTED = `SELECT w.*, (SELECT COUNT(*) FROM watchlist_leis l WHERE l.watchlist_id = w.id) AS lei_count FROM watchlists w`;

interface ListRow {
  id: string;
  tenant_id: string;
  name: string;
  filter: string | null;
  lei_count: number;
  created_at: string;
  updated_at: string;
}

const listOf = (r: ListRow): Watchlist => ({ ...r, filter: r.filter === null ? null : (JSON.parse(r.filter) as WatchFilter) });

/** Rolls a transaction back, carrying why out. */
class Refused extends Error {}

export class SqliteWatchStore implements WatchStore {
  private readonly outbox: Outbox;
  private readonly backlog: Backlog;

  constructor(private readonly db: StateDb) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS watchlists (
         id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, name TEXT NOT NULL, filter TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS watchlists_tenant ON watchlists (tenant_id, created_at)`,
      `CREATE TABLE IF NOT EXISTS watchlist_leis (
         watchlist_id TEXT NOT NULL, lei TEXT NOT NULL, tenant_id TEXT NOT NULL, PRIMARY KEY (watchlist_id, lei)) WITHOUT ROWID`,
      `CREATE INDEX IF NOT EXISTS watchlist_leis_lei ON watchlist_leis (lei, watchlist_id)`,
      `CREATE INDEX IF NOT EXISTS watchlist_leis_tenant ON watchlist_leis (tenant_id)`,
      `CREATE TABLE IF NOT EXISTS watch_cursors (name TEXT PRIMARY KEY, position TEXT NOT NULL)`,
      `INSERT OR IGNORE INTO watch_cursors (name, position) VALUES ('${CHANGES_CURSOR}', '0'), ('${SWEEP_CURSOR}', '')`,
      `CREATE TABLE IF NOT EXISTS renewal_notices (
         tenant_id TEXT NOT NULL, lei TEXT NOT NULL, renewal_date TEXT NOT NULL, threshold INTEGER NOT NULL, sent_at INTEGER NOT NULL,
         PRIMARY KEY (tenant_id, lei, renewal_date, threshold)) WITHOUT ROWID`,
    ]);
    this.outbox = new Outbox(db);
    this.backlog = new Backlog(db);
  }

  create(tenantId: string, name: string, filter: WatchFilter | null, leis: readonly string[]): Promise<Watchlist | OverCap> {
    const id = randomKey("wl_", 20);
    const now = new Date().toISOString();
    return this.capped(() => {
      const lists = (this.db.prepare("SELECT COUNT(*) AS n FROM watchlists WHERE tenant_id = ?").get(tenantId) as { n: number }).n;
      if (lists >= MAX_LISTS_PER_TENANT) throw new Refused(`the tenant has ${lists} watchlists, the most it may have`);
      this.db
        .prepare("INSERT INTO watchlists (id, tenant_id, name, filter, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)")
        .run(id, tenantId, name, filter === null ? null : JSON.stringify(filter), now, now);
      this.insertLeis(tenantId, id, leis);
      return listOf(this.db.prepare(`${COUNTED} WHERE w.id = ?`).get(id) as ListRow);
    });
  }

  list(tenantId: string): Promise<Watchlist[]> {
    const rows = this.db.prepare(`${COUNTED} WHERE w.tenant_id = ? ORDER BY w.created_at, w.id`).all(tenantId) as ListRow[];
    return Promise.resolve(rows.map(listOf));
  }

  get(tenantId: string, id: string): Promise<Watchlist | null> {
    const row = this.db.prepare(`${COUNTED} WHERE w.id = ? AND w.tenant_id = ?`).get(id, tenantId) as ListRow | undefined;
    return Promise.resolve(row ? listOf(row) : null);
  }

  leisOf(id: string, after: string, limit: number): Promise<string[]> {
    const rows = this.db
      .prepare("SELECT lei FROM watchlist_leis WHERE watchlist_id = ? AND lei > ? ORDER BY lei LIMIT ?")
      .all(id, after, limit);
    return Promise.resolve((rows as { lei: string }[]).map((r) => r.lei));
  }

  add(tenantId: string, id: string, leis: readonly string[]): Promise<{ added: number } | OverCap | null> {
    return this.capped(() => {
      if (!this.owned(tenantId, id)) return null;
      const added = this.insertLeis(tenantId, id, leis);
      this.touch(id);
      return { added };
    });
  }

  remove(tenantId: string, id: string, leis: readonly string[]): Promise<{ removed: number } | null> {
    return Promise.resolve(
      this.db.transaction(() => {
        if (!this.owned(tenantId, id)) return null;
        const st = this.db.prepare("DELETE FROM watchlist_leis WHERE watchlist_id = ? AND lei = ?");
        let removed = 0;
        for (const lei of leis) removed += st.run(id, lei).changes;
        this.touch(id);
        return { removed };
      })(),
    );
  }

  delete(tenantId: string, id: string): Promise<boolean> {
    return Promise.resolve(
      this.db.transaction(() => {
        if (!this.owned(tenantId, id)) return false;
        this.db.prepare("DELETE FROM watchlist_leis WHERE watchlist_id = ?").run(id);
        this.db.prepare("DELETE FROM watchlists WHERE id = ?").run(id);
        return true;
      })(),
    );
  }

  watchersOf(leis: readonly string[]): Promise<Watcher[]> {
    return Promise.resolve(
      this.db
        .prepare(
          "SELECT lei, tenant_id, watchlist_id FROM watchlist_leis WHERE lei IN (SELECT value FROM json_each(?)) ORDER BY lei, watchlist_id",
        )
        .all(JSON.stringify(leis)) as Watcher[],
    );
  }

  filterLists(): Promise<Pick<Watchlist, "id" | "tenant_id" | "filter">[]> {
    const rows = this.db.prepare("SELECT id, tenant_id, filter FROM watchlists WHERE filter IS NOT NULL ORDER BY id").all() as {
      id: string;
      tenant_id: string;
      filter: string;
    }[];
    return Promise.resolve(rows.map((r) => ({ ...r, filter: JSON.parse(r.filter) as WatchFilter })));
  }

  watched(after: { lei: string; watchlist_id: string }, limit: number): Promise<Watcher[]> {
    return Promise.resolve(
      this.db
        .prepare(
          `SELECT lei, tenant_id, watchlist_id FROM watchlist_leis WHERE (lei, watchlist_id) > (?, ?) ORDER BY lei, watchlist_id LIMIT ?`,
        )
        .all(after.lei, after.watchlist_id, limit) as Watcher[],
    );
  }

  /** One node: it always leads. */
  lead(name: string): Promise<string | null> {
    const row = this.db.prepare("SELECT position FROM watch_cursors WHERE name = ?").get(name) as { position: string } | undefined;
    return Promise.resolve(row?.position ?? null);
  }

  /**
   * Commits without waiting for the disk (relaxedTransaction): a load's changes are hundreds of
   * such batches, committed on the main thread while the load's files are still being written
   * back, where each sync waited behind that writeback (100 ms and more). kill -9 loses none of
   * them; a power cut can undo the last ones, events and cursor together, and the changes they
   * came from (stored with a full sync before the swap) are read again.
   */
  advance(name: string, _me: string, expected: string, next: string, rows: readonly EventRow[]): Promise<boolean> {
    return Promise.resolve(
      relaxedTransaction(this.db, () => {
        const moved = this.db.prepare("UPDATE watch_cursors SET position = ? WHERE name = ? AND position = ?").run(next, name, expected);
        if (moved.changes === 0) return false;
        this.addRows(rows);
        return true;
      }),
    );
  }

  notify(notices: readonly RenewalNotice[], now: number): Promise<number> {
    return Promise.resolve(
      this.db.transaction(() => {
        const record = this.db.prepare(
          "INSERT OR IGNORE INTO renewal_notices (tenant_id, lei, renewal_date, threshold, sent_at) VALUES (?, ?, ?, ?, ?)",
        );
        let fresh = 0;
        for (const n of notices) {
          if (record.run(n.tenant_id, n.lei, n.renewal_date, n.threshold, now).changes === 0) continue;
          fresh++;
          this.addRows(n.rows);
        }
        return fresh;
      })(),
    );
  }

  /** Outbox rows due at once, counted in their endpoints' backlogs (never refused: a change is not lost to a full backlog). */
  private addRows(rows: readonly EventRow[]): void {
    if (rows.length === 0) return;
    const now = Date.now();
    const counted = new Map<string, { tenantId: string; n: number }>();
    for (const r of rows) {
      this.outbox.add({ ...r, next_attempt_at: DUE_AT_ONCE, created_at: now }, false);
      const c = counted.get(r.webhook_id);
      if (c) c.n++;
      else counted.set(r.webhook_id, { tenantId: r.tenant_id, n: 1 });
    }
    this.backlog.added(counted);
  }

  /** Adds the LEIs the list lacks; throws Refused when the tenant would hold more than its cap. */
  private insertLeis(tenantId: string, id: string, leis: readonly string[]): number {
    const st = this.db.prepare("INSERT OR IGNORE INTO watchlist_leis (watchlist_id, lei, tenant_id) VALUES (?, ?, ?)");
    let added = 0;
    for (const lei of leis) added += st.run(id, lei, tenantId).changes;
    if (added > 0) {
      const n = (this.db.prepare("SELECT COUNT(*) AS n FROM watchlist_leis WHERE tenant_id = ?").get(tenantId) as { n: number }).n;
      if (n > MAX_LEIS_PER_TENANT)
        throw new Refused(`the tenant's watchlists would hold ${n} LEIs, more than the ${MAX_LEIS_PER_TENANT} they may hold together`);
    }
    return added;
  }

  private owned(tenantId: string, id: string): boolean {
    return this.db.prepare("SELECT 1 FROM watchlists WHERE id = ? AND tenant_id = ?").get(id, tenantId) !== undefined;
  }

  private touch(id: string): void {
    this.db.prepare("UPDATE watchlists SET updated_at = ? WHERE id = ?").run(new Date().toISOString(), id);
  }

  private capped<T>(work: () => T): Promise<T | OverCap> {
    try {
      return Promise.resolve(this.db.transaction(work)());
    } catch (err) {
      if (err instanceof Refused) return Promise.resolve({ over: err.message });
      return Promise.reject(err);
    }
  }
}
