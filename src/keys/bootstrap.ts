// The bootstrap key: every action on every collection. Given with --api-key, or generated on the
// first start and kept in <data-dir>/bootstrap-key (see store/persisted-key.ts).

import { persistedKey, type PersistedKey } from "../store/persisted-key.js";

export const BOOTSTRAP_PREFIX = "lxb_";

export function bootstrapKey(given: string | null, dataDir: string): PersistedKey {
  return persistedKey(given, dataDir, { file: "bootstrap-key", prefix: BOOTSTRAP_PREFIX, label: "bootstrap API key", flag: "--api-key" });
}
