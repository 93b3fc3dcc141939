// The bootstrap key: every action on every collection. Given with --api-key, or generated on the
// first start and kept in <data-dir>/bootstrap-key (see store/persisted-key.ts), or with
// --database in the shared store, so that every node has the same one.

import { persistedKey, randomKey, type PersistedKey } from "../store/persisted-key.js";
import type { SharedDb } from "../store/pg/shared-db.js";

export const BOOTSTRAP_PREFIX = "lxb_";

export function bootstrapKey(given: string | null, dataDir: string): PersistedKey {
  return persistedKey(given, dataDir, { file: "bootstrap-key", prefix: BOOTSTRAP_PREFIX, label: "bootstrap API key", flag: "--api-key" });
}

/** The shared store's bootstrap key: the first node to start makes it, the others read it. */
export async function sharedBootstrapKey(db: SharedDb): Promise<PersistedKey> {
  const fresh = randomKey(BOOTSTRAP_PREFIX);
  await db.pool.query("INSERT INTO shared_secrets (name, value) VALUES ('bootstrap_key', $1) ON CONFLICT (name) DO NOTHING", [fresh]);
  const { rows } = await db.pool.query<{ value: string }>("SELECT value FROM shared_secrets WHERE name = 'bootstrap_key'");
  const value = rows[0].value;
  return value === fresh
    ? { value, banner: `bootstrap API key (shown once, kept in the database ${db.describe}): ${value}` }
    : { value, banner: `bootstrap API key: ${value.slice(0, BOOTSTRAP_PREFIX.length + 4)}… (kept in the database ${db.describe})` };
}
