// The per-tenant suppression list: addresses (in their normal form, mailbox.ts) that mail must not
// go to, with the reason they were added. Hard bounces and unsubscribes add themselves; tenants
// add and remove.

import { migrate, type StateDb } from "../store/state-db.js";
import { normalAddress } from "./mailbox.js";
import type { SuppressionReason } from "./model.js";

export interface Suppression {
  address: string;
  reason: SuppressionReason;
  created_at: string;
}

export class SuppressionStore {
  constructor(private readonly db: StateDb) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS suppressions (
         tenant_id TEXT NOT NULL, address TEXT NOT NULL, reason TEXT NOT NULL, created_at TEXT NOT NULL,
         PRIMARY KEY (tenant_id, address))`,
    ]);
  }

  get(tenantId: string, address: string): Suppression | null {
    return (
      (this.db
        .prepare("SELECT address, reason, created_at FROM suppressions WHERE tenant_id = ? AND address = ?")
        .get(tenantId, normalAddress(address)) as Suppression | undefined) ?? null
    );
  }

  /** Adds the address unless it is already listed (the first reason stays); returns the entry. */
  add(tenantId: string, address: string, reason: SuppressionReason): Suppression {
    this.db
      .prepare("INSERT OR IGNORE INTO suppressions (tenant_id, address, reason, created_at) VALUES (?, ?, ?, ?)")
      .run(tenantId, normalAddress(address), reason, new Date().toISOString());
    return this.get(tenantId, address)!;
  }

  remove(tenantId: string, address: string): boolean {
    return (
      this.db.prepare("DELETE FROM suppressions WHERE tenant_id = ? AND address = ?").run(tenantId, normalAddress(address)).changes > 0
    );
  }

  list(tenantId: string, limit: number, after: string): Suppression[] {
    return this.db
      .prepare("SELECT address, reason, created_at FROM suppressions WHERE tenant_id = ? AND address > ? ORDER BY address LIMIT ?")
      .all(tenantId, after, limit) as Suppression[];
  }
}
