// The per-tenant suppression lists in the shared PostgreSQL store, read where they are stored
// (a list can be long): addresses in their normal form (mailbox.ts), the first reason kept.

import type { SharedDb } from "../../store/pg/shared-db.js";
import type { SuppressionReason } from "../model.js";
import { normalAddress } from "../mailbox.js";
import type { Suppression } from "../suppression-store.js";
import type { Suppressions } from "../webhook-state.js";

export class PgSuppressions implements Suppressions {
  constructor(private readonly db: SharedDb) {}

  async get(tenantId: string, address: string): Promise<Suppression | null> {
    const { rows } = await this.db.pool.query<Suppression>(
      "SELECT address, reason, created_at FROM suppressions WHERE tenant_id = $1 AND address = $2",
      [tenantId, normalAddress(address)],
    );
    return rows[0] ?? null;
  }

  async add(tenantId: string, address: string, reason: SuppressionReason): Promise<Suppression> {
    const { rows } = await this.db.pool.query<Suppression>(
      `WITH added AS (INSERT INTO suppressions (tenant_id, address, reason, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant_id, address) DO NOTHING RETURNING address, reason, created_at)
       SELECT * FROM added UNION ALL SELECT address, reason, created_at FROM suppressions WHERE tenant_id = $1 AND address = $2`,
      [tenantId, normalAddress(address), reason, new Date().toISOString()],
    );
    return rows[0];
  }

  async remove(tenantId: string, address: string): Promise<boolean> {
    const r = await this.db.pool.query("DELETE FROM suppressions WHERE tenant_id = $1 AND address = $2", [
      tenantId,
      normalAddress(address),
    ]);
    return (r.rowCount ?? 0) > 0;
  }

  async list(tenantId: string, limit: number, after: string): Promise<Suppression[]> {
    const { rows } = await this.db.pool.query<Suppression>(
      'SELECT address, reason, created_at FROM suppressions WHERE tenant_id = $1 AND address COLLATE "C" > $2 ORDER BY address COLLATE "C" LIMIT $3',
      [tenantId, after, limit],
    );
    return rows;
  }
}
