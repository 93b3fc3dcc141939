// API keys: this node's copy in memory (every request's check reads it), written through to the
// state store; a write is acknowledged once committed. A key's id is never handed out again.
// With a store other nodes write too (PostgreSQL, --database), their writes reach this copy when
// the store says the key set's version moved on (store/replica.ts).

import { ReplicatedState, type ReplicaSource } from "../store/replica.js";
import type { ApiKey } from "./model.js";

export interface KeySnapshot {
  /** the key set's version: every committed write moves it on by one */
  version: number;
  /** every key (deleted: null), or the keys written since the version the copy held */
  keys: ApiKey[];
  /** ids deleted since the version the copy held; null: `keys` is the whole set */
  deleted: number[] | null;
}

/** Where the keys are stored: state.db (sqlite-keys.ts) or PostgreSQL (pg-keys.ts). */
export interface KeyBackend extends ReplicaSource<KeySnapshot> {
  /** the stored key and the version its write made; null when another key has its value */
  insert(key: Omit<ApiKey, "id">): Promise<{ key: ApiKey; version: number } | null>;
  /** the ids that were still there, and the version their delete made (null: nothing deleted) */
  remove(ids: number[]): Promise<{ removed: number[]; version: number | null }>;
  close(): Promise<void>;
}

export class KeyStore extends ReplicatedState<KeySnapshot> {
  private byValue = new Map<string, ApiKey>();
  /** keys by their first 4 characters: a scoped key names its parent by them */
  private byPrefixIndex = new Map<string, ApiKey[]>();
  private constructor(private readonly backend: KeyBackend) {
    super(backend);
  }

  static async open(backend: KeyBackend): Promise<KeyStore> {
    const store = new KeyStore(backend);
    await store.replica.start();
    return store;
  }

  /** Stores a new key; null when its value is taken. */
  async create(key: Omit<ApiKey, "id">): Promise<ApiKey | null> {
    if (this.byValue.has(key.value)) return null;
    const done = await this.backend.insert(key);
    if (!done) {
      this.replica.refresh(); // another node holds the value: this copy is behind
      return null;
    }
    this.remember(done.key);
    this.replica.wrote(done.version);
    return done.key;
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

  /** Whether this call deleted the key (false: unknown here, or another node deleted it first). */
  async delete(id: number): Promise<boolean> {
    return (await this.deleteAll([id])).length > 0;
  }

  /**
   * Deletes the expired keys marked autodelete, those `confirm` agrees to (housekeeping asks an
   * ExpiryGuard, so that a clock step deletes nothing early); returns the ids this call deleted:
   * when every node runs it, each key is deleted, and reported, by one of them.
   */
  deleteExpired(nowSeconds: number, confirm: (expired: ApiKey[]) => number[] = (expired) => expired.map((k) => k.id)): Promise<number[]> {
    return this.deleteAll(confirm([...this.byValue.values()].filter((k) => k.autodelete && nowSeconds > k.expiresAt)));
  }

  private async deleteAll(ids: number[]): Promise<number[]> {
    const keys = ids.map((id) => this.get(id)).filter((k): k is ApiKey => k !== null);
    if (keys.length === 0) return [];
    const done = await this.backend.remove(keys.map((k) => k.id));
    for (const key of keys) this.forget(key);
    if (done.version !== null) this.replica.wrote(done.version);
    return done.removed;
  }

  protected apply(snapshot: KeySnapshot): void {
    if (snapshot.deleted === null) {
      this.byValue = new Map();
      this.byPrefixIndex = new Map();
    }
    for (const id of snapshot.deleted ?? []) {
      const gone = this.get(id);
      if (gone) this.forget(gone);
    }
    for (const key of snapshot.keys) if (!this.byValue.has(key.value)) this.remember(key);
  }

  private remember(key: ApiKey): void {
    this.byValue.set(key.value, key);
    const prefix = key.value.slice(0, 4);
    this.byPrefixIndex.set(prefix, [...(this.byPrefixIndex.get(prefix) ?? []), key]);
  }

  private forget(key: ApiKey): void {
    this.byValue.delete(key.value);
    const prefix = key.value.slice(0, 4);
    const rest = (this.byPrefixIndex.get(prefix) ?? []).filter((k) => k.id !== key.id);
    if (rest.length > 0) this.byPrefixIndex.set(prefix, rest);
    else this.byPrefixIndex.delete(prefix);
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}
