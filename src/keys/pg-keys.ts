// API keys in the shared PostgreSQL store (--database): each write moves the key set's version
// on and notifies the nodes (store/pg/versioned.ts).

import type { SharedDb } from "../store/pg/shared-db.js";
import { VersionedTable } from "../store/pg/versioned.js";
import type { KeyBackend, KeySnapshot } from "./key-store.js";
import type { ApiKey } from "./model.js";

interface Row {
  id: number;
  value: string;
  description: string;
  actions: string[];
  collections: string[];
  expires_at: number;
  autodelete: boolean;
}

const fromRow = (r: Row): ApiKey => ({
  id: Number(r.id),
  value: r.value,
  description: r.description,
  actions: r.actions,
  collections: r.collections,
  expiresAt: Number(r.expires_at),
  autodelete: r.autodelete,
});

export class PgKeys extends VersionedTable implements KeyBackend {
  constructor(db: SharedDb) {
    super(db, "api_keys");
  }

  async read(): Promise<KeySnapshot> {
    const { version, value } = await this.snapshot<Row[]>("SELECT COALESCE(json_agg(k ORDER BY k.id), '[]') FROM api_keys k");
    return { version, keys: value.map(fromRow) };
  }

  async insert(key: Omit<ApiKey, "id">): Promise<{ key: ApiKey; version: number } | null> {
    const { result, version } = await this.write(async (q) => {
      const { rows } = await q(
        `INSERT INTO api_keys (value, description, actions, collections, expires_at, autodelete)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (value) DO NOTHING RETURNING id`,
        [key.value, key.description, JSON.stringify(key.actions), JSON.stringify(key.collections), key.expiresAt, key.autodelete],
      );
      return { changed: rows.length > 0, result: rows.length > 0 ? { ...key, id: Number(rows[0].id) } : null };
    });
    return result && version !== null ? { key: result, version } : null;
  }

  async remove(ids: number[]): Promise<{ removed: number[]; version: number | null }> {
    const { result, version } = await this.write(async (q) => {
      const { rows } = await q("DELETE FROM api_keys WHERE id = ANY($1::bigint[]) RETURNING id", [ids]);
      return { changed: rows.length > 0, result: rows.map((r) => Number(r.id)) };
    });
    return { removed: result, version };
  }
}
