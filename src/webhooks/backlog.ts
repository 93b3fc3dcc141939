// Caps on the pending (not yet delivered or given up) outbox backlog, per endpoint and per tenant,
// so that a receiver that never answers cannot grow state.db without bound. The counts live in
// SQLite (pending_counts), written in the same transactions as the rows they count (a rolled-back
// batch rolls its counts back too, and kill -9 cannot skew them): new rows are counted once per
// endpoint per batch by whoever adds them (added(), cheaper than a trigger per inserted row),
// rows leaving or re-entering `pending` by triggers on `deliveries`. Counting the rows instead
// would read up to a cap's worth of index entries per batch.
//
// At the cap, new work for that endpoint or tenant is refused (the whole event batch: 429 with
// Retry-After naming the cap); nothing already accepted is ever dropped.

import { migrate, type StateDb } from "../store/state-db.js";

/** pending deliveries one endpoint (webhook or inbound route) may have */
const MAX_PENDING_PER_ENDPOINT = 100_000;
/** pending deliveries all endpoints of one tenant may have */
const MAX_PENDING_PER_TENANT = 1_000_000;
export const BACKLOG_RETRY_AFTER_SECONDS = 60;

export interface BacklogCaps {
  perEndpoint: number;
  perTenant: number;
}

export const DEFAULT_CAPS: BacklogCaps = { perEndpoint: MAX_PENDING_PER_ENDPOINT, perTenant: MAX_PENDING_PER_TENANT };

/** Why new work is refused: null when every count is within its cap. */
export function capProblem(caps: BacklogCaps, endpoints: Iterable<[string, number]>, tenants: Iterable<[string, number]>): string | null {
  for (const [id, n] of endpoints)
    if (n > caps.perEndpoint)
      return `endpoint ${id} has ${caps.perEndpoint} deliveries pending (its cap); retry once its receiver catches up`;
  for (const [id, n] of tenants)
    if (n > caps.perTenant) return `tenant ${id} has ${caps.perTenant} deliveries pending (its cap); retry once its receivers catch up`;
  return null;
}

export class Backlog {
  private readonly add;
  private readonly ofEndpoint;
  private readonly ofTenant;

  constructor(
    private readonly db: StateDb,
    readonly caps: BacklogCaps = DEFAULT_CAPS,
  ) {
    const fresh = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pending_counts'").get() === undefined;
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS pending_counts (webhook_id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, n INTEGER NOT NULL) WITHOUT ROWID`,
      `CREATE INDEX IF NOT EXISTS pending_counts_tenant ON pending_counts (tenant_id)`,
      `CREATE TRIGGER IF NOT EXISTS deliveries_pending_update AFTER UPDATE OF status ON deliveries
         WHEN (OLD.status = 'pending') <> (NEW.status = 'pending') BEGIN
         INSERT INTO pending_counts (webhook_id, tenant_id, n) VALUES (NEW.webhook_id, NEW.tenant_id, CASE WHEN NEW.status = 'pending' THEN 1 ELSE -1 END)
           ON CONFLICT (webhook_id) DO UPDATE SET n = n + excluded.n;
       END`,
      `CREATE TRIGGER IF NOT EXISTS deliveries_pending_delete AFTER DELETE ON deliveries WHEN OLD.status = 'pending' BEGIN
         UPDATE pending_counts SET n = n - 1 WHERE webhook_id = OLD.webhook_id;
       END`,
    ]);
    // a state.db from before the caps: count what is pending once; the triggers keep it from here
    if (fresh) {
      db.transaction(() => {
        db.exec(`INSERT INTO pending_counts (webhook_id, tenant_id, n)
          SELECT webhook_id, MIN(tenant_id), COUNT(*) FROM deliveries WHERE status = 'pending' GROUP BY webhook_id`);
      })();
    }
    this.add = db.prepare(`INSERT INTO pending_counts (webhook_id, tenant_id, n) VALUES (?, ?, ?)
      ON CONFLICT (webhook_id) DO UPDATE SET n = n + excluded.n`);
    this.ofEndpoint = db.prepare("SELECT n FROM pending_counts WHERE webhook_id = ?");
    this.ofTenant = db.prepare("SELECT COALESCE(SUM(n), 0) AS n FROM pending_counts WHERE tenant_id = ?");
  }

  /** Counts rows just added as pending (Outbox.add), inside the transaction that added them. */
  added(rows: ReadonlyMap<string, { tenantId: string; n: number }>): void {
    for (const [id, r] of rows) this.add.run(id, r.tenantId, r.n);
  }

  pendingOfEndpoint(id: string): number {
    return (this.ofEndpoint.get(id) as { n: number } | undefined)?.n ?? 0;
  }

  pendingOfTenant(tenantId: string): number {
    return (this.ofTenant.get(tenantId) as { n: number }).n;
  }

  /** Inside the transaction that added rows: null when every endpoint and tenant touched is within its cap, else why not. */
  overCap(endpoints: Iterable<string>, tenants: Iterable<string>): string | null {
    return capProblem(
      this.caps,
      [...endpoints].map((id): [string, number] => [id, this.pendingOfEndpoint(id)]),
      [...tenants].map((id): [string, number] => [id, this.pendingOfTenant(id)]),
    );
  }
}
