// API keys in the state store. Ids come from AUTOINCREMENT, so a deleted id is never handed out
// again. Every write is one transaction, acknowledged only once it is on disk.

import { migrate, type StateDb } from "../store/state-db.js";
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

export class KeyStore {
  private readonly byValue = new Map<string, ApiKey>();
  /** keys by their first 4 characters: a scoped key names its parent by them */
  private readonly byPrefixIndex = new Map<string, ApiKey[]>();

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
    for (const row of db.prepare("SELECT * FROM api_keys").all() as Row[]) this.remember(fromRow(row));
  }

  /** Stores a new key; null when its value is taken. */
  create(key: Omit<ApiKey, "id">): ApiKey | null {
    if (this.byValue.has(key.value)) return null;
    const info = this.db
      .prepare("INSERT INTO api_keys (value, description, actions, collections, expires_at, autodelete) VALUES (?, ?, ?, ?, ?, ?)")
      .run(key.value, key.description, JSON.stringify(key.actions), JSON.stringify(key.collections), key.expiresAt, key.autodelete ? 1 : 0);
    const stored: ApiKey = { ...key, id: Number(info.lastInsertRowid) };
    this.remember(stored);
    return stored;
  }

  list(): ApiKey[] {
    return [...this.byValue.values()].sort((a, b) => a.id - b.id);
  }

  get(id: number): ApiKey | null {
    for (const key of this.byValue.values()) if (key.id === id) return key;
    return null;
  }

  byExactValue(value: string): ApiKey | null {
    return this.byValue.get(value) ?? null;
  }

  /** Candidate parents of a scoped key: the keys whose value starts with its 4-char prefix. */
  byPrefix(prefix: string): ApiKey[] {
    return this.byPrefixIndex.get(prefix) ?? [];
  }

  private remember(key: ApiKey): void {
    this.byValue.set(key.value, key);
    const prefix = key.value.slice(0, 4);
    this.byPrefixIndex.set(prefix, [...(this.byPrefixIndex.get(prefix) ?? []), key]);
  }

  delete(id: number): boolean {
    const key = this.get(id);
    if (!key) return false;
    this.db.prepare("DELETE FROM api_keys WHERE id = ?").run(id);
    this.byValue.delete(key.value);
    const prefix = key.value.slice(0, 4);
    const rest = (this.byPrefixIndex.get(prefix) ?? []).filter((k) => k.id !== id);
    if (rest.length > 0) this.byPrefixIndex.set(prefix, rest);
    else this.byPrefixIndex.delete(prefix);
    return true;
  }

  /**
   * Deletes the expired keys marked autodelete, those `confirm` agrees to (housekeeping asks an
   * ExpiryGuard, so that a clock step deletes nothing early); returns their ids.
   */
  deleteExpired(nowSeconds: number, confirm: (expired: ApiKey[]) => number[] = (expired) => expired.map((k) => k.id)): number[] {
    const gone = confirm([...this.byValue.values()].filter((k) => k.autodelete && nowSeconds > k.expiresAt));
    for (const id of gone) this.delete(id);
    return gone;
  }
}
