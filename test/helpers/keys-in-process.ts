// In-process tests of the key store and KeyAuth (test/engine-keys.test.ts and
// test/engine-scoped-keys.test.ts): the built modules over a real SQLite file, with an injected
// clock, so expiry, autodelete and the guessing guard are checked without waiting.

import { ROOT, tempDir, type Teardownable } from "./server.js";
import { FAR_FUTURE } from "./keys.js";
import type { ApiKey } from "../../src/keys/model.js";

export type ApiKeyRow = ApiKey;
export interface StoreLike {
  create(key: Omit<ApiKeyRow, "id">): Promise<ApiKeyRow | null>;
  list(): ApiKeyRow[];
  get(id: number): ApiKeyRow | null;
  delete(id: number): Promise<boolean>;
  deleteExpired(now: number): Promise<number[]>;
}
export type Outcome =
  { ok: true; caller: { kind: string; embedded?: Record<string, unknown> } } | { ok: false; status: number; message: string };
export interface AuthLike {
  check(ip: string, presented: string | null, action: string, collections: string[]): Outcome;
}
interface Db {
  close(): void;
}
const dist = (p: string): string => new URL(`dist/src/${p}`, `file://${ROOT}/`).href;
const { KeyAuth } = (await import(dist("keys/auth.js"))) as {
  KeyAuth: new (store: StoreLike, boot: string, failures: unknown, now: () => number) => AuthLike;
};
const { KeyStore } = (await import(dist("keys/key-store.js"))) as { KeyStore: { open(backend: unknown): Promise<StoreLike> } };
const { SqliteKeys } = (await import(dist("keys/sqlite-keys.js"))) as { SqliteKeys: new (db: Db) => unknown };
const { openStateDb } = (await import(dist("store/state-db.js"))) as { openStateDb: (dir: string) => Db };
const { RateLimiter } = (await import(dist("http/rate-limit.js"))) as {
  RateLimiter: new (limit: number, windowSeconds: number, nowMs?: () => number) => unknown;
};

/** A store and KeyAuth (bootstrap key "in-process-bootstrap", 30 bad keys a minute) on `dir`, at clock.s seconds. */
export async function inProcess(t: Teardownable, dir = tempDir(t, "leidex-keys-")) {
  const clock = { s: 2_000_000_000 };
  const db = openStateDb(dir);
  const store = await KeyStore.open(new SqliteKeys(db));
  const auth = new KeyAuth(store, "in-process-bootstrap", new RateLimiter(30, 60, () => clock.s * 1000), () => clock.s);
  return { clock, db, store, auth, dir };
}
/** A key row to store: a documents:search key on every collection that never expires, unless `over` says otherwise. */
export const key = (value: string, over: Partial<ApiKeyRow> = {}): Omit<ApiKeyRow, "id"> => ({
  value,
  description: "",
  actions: ["documents:search"],
  collections: [],
  expiresAt: FAR_FUTURE,
  autodelete: false,
  ...over,
});
