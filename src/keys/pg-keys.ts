// API keys in the shared PostgreSQL store (--database). Every write bumps api_key_version in its
// own transaction and notifies the nodes with the new version at commit; each node also polls
// the version every POLL_MS, so a lost notification delays a change by at most that long.

import type { SharedDb } from "../store/pg/shared-db.js";
import type { KeyBackend, KeySnapshot } from "./key-store.js";
import type { ApiKey } from "./model.js";

const CHANNEL = "leidex_keys";
export const KEY_POLL_MS = 1_000;

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

export class PgKeys implements KeyBackend {
  private poll: NodeJS.Timeout | null = null;

  constructor(private readonly db: SharedDb) {}

  async read(): Promise<KeySnapshot> {
    // one statement, one snapshot: the keys and the version they are at
    const { rows } = await this.db.pool.query<{ version: string; keys: Row[] }>(
      "SELECT (SELECT version FROM api_key_version) AS version, COALESCE((SELECT json_agg(k ORDER BY k.id) FROM api_keys k), '[]') AS keys",
    );
    return { version: Number(rows[0].version), keys: rows[0].keys.map(fromRow) };
  }

  insert(key: Omit<ApiKey, "id">): Promise<{ key: ApiKey; version: number } | null> {
    return this.write(async (q) => {
      const { rows } = await q(
        `INSERT INTO api_keys (value, description, actions, collections, expires_at, autodelete)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (value) DO NOTHING RETURNING id`,
        [key.value, key.description, JSON.stringify(key.actions), JSON.stringify(key.collections), key.expiresAt, key.autodelete],
      );
      if (rows.length === 0) return null;
      return { key: { ...key, id: Number(rows[0].id) }, version: await this.bump(q) };
    });
  }

  remove(ids: number[]): Promise<{ removed: number[]; version: number | null }> {
    return this.write(async (q) => {
      const { rows } = await q("DELETE FROM api_keys WHERE id = ANY($1::bigint[]) RETURNING id", [ids]);
      const removed = rows.map((r) => Number(r.id));
      return { removed, version: removed.length > 0 ? await this.bump(q) : null };
    });
  }

  /** Moves the version on and notifies it; both take effect when the transaction commits. */
  private async bump(q: Query): Promise<number> {
    const { rows } = await q("UPDATE api_key_version SET version = version + 1 RETURNING version");
    const version = Number(rows[0].version);
    await q("SELECT pg_notify($1, $2)", [CHANNEL, String(version)]);
    return version;
  }

  private async write<T>(work: (q: Query) => Promise<T>): Promise<T> {
    const client = await this.db.pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work((text, values) => client.query(text, values));
      await client.query("COMMIT");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  watch(moved: (version: number) => void): void {
    this.db.listen(CHANNEL, (payload) => moved(Number(payload)));
    this.poll = setInterval(() => {
      this.db.pool.query<{ version: string }>("SELECT version FROM api_key_version").then(
        ({ rows }) => moved(Number(rows[0].version)),
        () => undefined, // the database is away: the next poll asks again
      );
    }, KEY_POLL_MS);
    this.poll.unref();
  }

  close(): Promise<void> {
    if (this.poll) clearInterval(this.poll);
    return Promise.resolve();
  }
}

type Query = (text: string, values?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;
