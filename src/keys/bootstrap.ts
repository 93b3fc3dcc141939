// The bootstrap key: every action on every collection. Given with --api-key, or generated on the
// first start and kept in <data-dir>/bootstrap-key (see store/persisted-key.ts), or with
// --database in the shared store, so that every node has the same one.

import { persistedKey, type PersistedKey } from "../store/persisted-key.js";
import { sharedSecret } from "../store/pg/shared-secret.js";
import type { SharedDb } from "../store/pg/shared-db.js";

export const BOOTSTRAP_PREFIX = "lxb_";

export function bootstrapKey(given: string | null, dataDir: string): PersistedKey {
  return persistedKey(given, dataDir, { file: "bootstrap-key", prefix: BOOTSTRAP_PREFIX, label: "bootstrap API key", flag: "--api-key" });
}

/** The shared store's bootstrap key: the first node to start makes it, the others read it. */
export function sharedBootstrapKey(db: SharedDb): Promise<PersistedKey> {
  return sharedSecret(db, { name: "bootstrap_key", prefix: BOOTSTRAP_PREFIX, label: "bootstrap API key" });
}
