// The operator key (area C): administers tenants, their keys and inbound routes, and reports mail
// events. Given with --operator-key, or generated on the first start and kept in
// <data-dir>/operator-key like the bootstrap key (see store/persisted-key.ts), or with --database
// in the shared store, so that every node has the same one.

import { persistedKey, type PersistedKey } from "../store/persisted-key.js";
import type { SharedDb } from "../store/pg/shared-db.js";
import { sharedSecret } from "../store/pg/shared-secret.js";

export const OPERATOR_PREFIX = "lxo_";
const LABEL = "operator key";

export function operatorKey(given: string | null, dataDir: string, shared: SharedDb | null = null): PersistedKey | Promise<PersistedKey> {
  if (shared && given === null) return sharedSecret(shared, { name: "operator_key", prefix: OPERATOR_PREFIX, label: LABEL });
  return persistedKey(given, dataDir, { file: "operator-key", prefix: OPERATOR_PREFIX, label: LABEL, flag: "--operator-key" });
}
