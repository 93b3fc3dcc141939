// Tenants and their keys. A tenant key is shown once; only its SHA-256 is stored, so the state
// file does not hold usable tenant credentials. Revoked keys are deleted.

import { createHash } from "node:crypto";
import { randomKey } from "../store/persisted-key.js";
import { migrate, type StateDb } from "../store/state-db.js";

export const TENANT_KEY_PREFIX = "lxt_";
export interface Tenant {
  id: string;
  name: string;
  created_at: string;
}

export const hashKey = (value: string): string => createHash("sha256").update(value, "utf8").digest("hex");

export class TenantStore {
  constructor(private readonly db: StateDb) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS tenants (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS tenant_keys (
         id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id), hash TEXT NOT NULL UNIQUE,
         prefix TEXT NOT NULL, created_at TEXT NOT NULL)`,
    ]);
  }

  create(name: string): Tenant {
    const tenant = { id: randomKey("tn_", 16), name, created_at: new Date().toISOString() };
    this.db.prepare("INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)").run(tenant.id, tenant.name, tenant.created_at);
    return tenant;
  }

  get(id: string): Tenant | null {
    return (this.db.prepare("SELECT id, name, created_at FROM tenants WHERE id = ?").get(id) as Tenant | undefined) ?? null;
  }

  list(): Tenant[] {
    return this.db.prepare("SELECT id, name, created_at FROM tenants ORDER BY created_at, id").all() as Tenant[];
  }

  /** A new key for the tenant: the value is returned here and never again. */
  createKey(tenantId: string): { id: string; key: string; prefix: string; created_at: string } {
    const key = randomKey(TENANT_KEY_PREFIX);
    const row = { id: randomKey("tk_", 16), key, prefix: key.slice(0, TENANT_KEY_PREFIX.length + 4), created_at: new Date().toISOString() };
    this.db
      .prepare("INSERT INTO tenant_keys (id, tenant_id, hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)")
      .run(row.id, tenantId, hashKey(key), row.prefix, row.created_at);
    return row;
  }

  listKeys(tenantId: string): { id: string; prefix: string; created_at: string }[] {
    return this.db.prepare("SELECT id, prefix, created_at FROM tenant_keys WHERE tenant_id = ? ORDER BY created_at, id").all(tenantId) as {
      id: string;
      prefix: string;
      created_at: string;
    }[];
  }

  revokeKey(tenantId: string, keyId: string): boolean {
    return this.db.prepare("DELETE FROM tenant_keys WHERE tenant_id = ? AND id = ?").run(tenantId, keyId).changes > 0;
  }

  /** The tenant a presented key belongs to, or null. */
  tenantOfKey(value: string): string | null {
    const row = this.db.prepare("SELECT tenant_id FROM tenant_keys WHERE hash = ?").get(hashKey(value)) as
      { tenant_id: string } | undefined;
    return row?.tenant_id ?? null;
  }
}
