// The operator key (area C): administers tenants, their keys and inbound routes, and reports mail
// events. Given with --operator-key, or generated on the first start and kept in
// <data-dir>/operator-key, like the bootstrap key (see store/persisted-key.ts).

import { persistedKey, type PersistedKey } from "../store/persisted-key.js";

export const OPERATOR_PREFIX = "lxo_";

export function operatorKey(given: string | null, dataDir: string): PersistedKey {
  return persistedKey(given, dataDir, { file: "operator-key", prefix: OPERATOR_PREFIX, label: "operator key", flag: "--operator-key" });
}
