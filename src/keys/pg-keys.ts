// API keys in the shared PostgreSQL store (--database): each write moves the key set's version
// on and notifies the nodes (store/pg/versioned.ts). Deleted ids are kept for the nodes to read
// what changed since their version; each delete prunes those older than DELETIONS_KEPT, and a
// node whose version is older than what was pruned reads every key again.

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

const DELETIONS_KEPT = "1 hour";

export class PgKeys extends VersionedTable implements KeyBackend {
  constructor(db: SharedDb) {
    super(db, "api_keys");
  }

  /** Everything at first; then the keys written and the ids deleted since the copy's version. */
  async read(since = 0): Promise<KeySnapshot> {
    if (since === 0) {
      const { version, value } = await this.snapshot<Row[]>("SELECT COALESCE(json_agg(k ORDER BY k.id), '[]') FROM api_keys k");
      return { version, keys: value.map(fromRow), deleted: null };
    }
    const { version, value } = await this.snapshot<{ keys: Row[]; deleted: number[]; pruned: number }>(
      `SELECT json_build_object(
         'keys', COALESCE((SELECT json_agg(k ORDER BY k.id) FROM api_keys k WHERE k.version > $2), '[]'),
         'deleted', COALESCE((SELECT json_agg(d.id) FROM api_key_deletions d WHERE d.version > $2), '[]'),
         'pruned', (SELECT version FROM state_versions WHERE name = 'api_key_deletions_pruned_through'))`,
      [since],
    );
    // deletions this copy has not seen may be pruned already: read everything
    if (since < value.pruned) return this.read(0);
    return { version, keys: value.keys.map(fromRow), deleted: value.deleted.map(Number) };
  }

  async insert(key: Omit<ApiKey, "id">): Promise<{ key: ApiKey; version: number } | null> {
    const { result, version } = await this.write(async (q, version) => {
      const { rows } = await q(
        `INSERT INTO api_keys (value, description, actions, collections, expires_at, autodelete, version)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (value) DO NOTHING RETURNING id`,
        [key.value, key.description, JSON.stringify(key.actions), JSON.stringify(key.collections), key.expiresAt, key.autodelete, version],
      );
      return { changed: rows.length > 0, result: rows.length > 0 ? { ...key, id: Number(rows[0].id) } : null };
    });
    return result && version !== null ? { key: result, version } : null;
  }

  async remove(ids: number[]): Promise<{ removed: number[]; version: number | null }> {
    const { result, version } = await this.write(async (q, version) => {
      const { rows } = await q("DELETE FROM api_keys WHERE id = ANY($1::bigint[]) RETURNING id", [ids]);
      const removed = rows.map((r) => Number(r.id));
      if (removed.length > 0) {
        await q("INSERT INTO api_key_deletions (id, version) SELECT unnest($1::bigint[]), $2", [removed, version]);
        await q(
          `WITH pruned AS (DELETE FROM api_key_deletions WHERE deleted_at < now() - $1::interval RETURNING version)
           UPDATE state_versions SET version = GREATEST(version, (SELECT MAX(version) FROM pruned))
           WHERE name = 'api_key_deletions_pruned_through' AND EXISTS (SELECT 1 FROM pruned)`,
          [DELETIONS_KEPT],
        );
      }
      return { changed: removed.length > 0, result: removed };
    });
    return { removed: result, version };
  }
}
