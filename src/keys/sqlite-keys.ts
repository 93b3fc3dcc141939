// API keys in state.db: only this node writes them, so the version is this process's count of
// writes and nothing is ever watched. Ids come from AUTOINCREMENT, so a deleted id is never
// handed out again.

import { migrate, type StateDb } from "../store/state-db.js";
import type { KeyBackend, KeySnapshot } from "./key-store.js";
import type { ApiKey } from "./model.js";

interface Row {
  id: number;
  value: string;
  description: string;
  actions: string;
  collections: string;
  expires_at: number;
  autodelete: number;
}

const fromRow = (r: Row): ApiKey => ({
  id: r.id,
  value: r.value,
  description: r.description,
  actions: JSON.parse(r.actions) as string[],
  collections: JSON.parse(r.collections) as string[],
  expiresAt: r.expires_at,
  autodelete: r.autodelete === 1,
});

export class SqliteKeys implements KeyBackend {
  private version = 0;

  constructor(private readonly db: StateDb) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS api_keys (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         value TEXT NOT NULL UNIQUE,
         description TEXT NOT NULL,
         actions TEXT NOT NULL,
         collections TEXT NOT NULL,
         expires_at INTEGER NOT NULL,
         autodelete INTEGER NOT NULL
       )`,
    ]);
  }

  read(): Promise<KeySnapshot> {
    const keys = (this.db.prepare("SELECT * FROM api_keys ORDER BY id").all() as Row[]).map(fromRow);
    return Promise.resolve({ version: this.version, keys, deleted: null });
  }

  insert(key: Omit<ApiKey, "id">): Promise<{ key: ApiKey; version: number } | null> {
    const info = this.db
      .prepare(
        "INSERT INTO api_keys (value, description, actions, collections, expires_at, autodelete) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (value) DO NOTHING",
      )
      .run(key.value, key.description, JSON.stringify(key.actions), JSON.stringify(key.collections), key.expiresAt, key.autodelete ? 1 : 0);
    if (info.changes === 0) return Promise.resolve(null);
    return Promise.resolve({ key: { ...key, id: Number(info.lastInsertRowid) }, version: ++this.version });
  }

  remove(ids: number[]): Promise<{ removed: number[]; version: number | null }> {
    const del = this.db.prepare("DELETE FROM api_keys WHERE id = ?");
    const removed = this.db.transaction(() => ids.filter((id) => del.run(id).changes > 0))();
    return Promise.resolve({ removed, version: removed.length > 0 ? ++this.version : null });
  }

  watch(): void {}

  close(): Promise<void> {
    return Promise.resolve();
  }
}
