// Where each area's replicated state is stored: state.db on one node, or the shared PostgreSQL
// store with --database (docs/scale-out.md).

import type { ChangeStore } from "../changes/model.js";
import { PgChanges } from "../changes/pg-changes.js";
import { SqliteChanges } from "../changes/sqlite-changes.js";
import { PgSettings } from "../engine-api/pg-settings.js";
import type { SettingsBackend } from "../engine-api/search-settings.js";
import { SqliteSettings } from "../engine-api/sqlite-settings.js";
import type { KeyBackend } from "../keys/key-store.js";
import { PgKeys } from "../keys/pg-keys.js";
import { SqliteKeys } from "../keys/sqlite-keys.js";
import type { LicenseBackend } from "../license/license-state.js";
import { PgLicense } from "../license/pg-license.js";
import { SqliteLicense } from "../license/sqlite-license.js";
import { openPgWebhookStores } from "../webhooks/pg/pg-stores.js";
import { sqliteWebhookStores } from "../webhooks/sqlite-stores.js";
import type { WebhookStores } from "../webhooks/webhook-state.js";
import { PgWatchStore } from "../watchlists/pg-watch-store.js";
import { SqliteWatchStore, type WatchStore } from "../watchlists/watch-store.js";
import type { SharedDb } from "./pg/shared-db.js";
import type { StateDb } from "./state-db.js";

export interface Backends {
  keys: KeyBackend;
  settings: SettingsBackend;
  license: LicenseBackend;
}

export function backendsOf(stateDb: StateDb, shared: SharedDb | null): Backends {
  return shared
    ? { keys: new PgKeys(shared), settings: new PgSettings(shared), license: new PgLicense(shared) }
    : { keys: new SqliteKeys(stateDb), settings: new SqliteSettings(stateDb), license: new SqliteLicense(stateDb) };
}

/** Area C's stores; on PostgreSQL, `node` names this node's dispatch among the others'. */
export function webhookStoresOf(
  stateDb: StateDb,
  shared: SharedDb | null,
  opts: { node: string; attemptTimeoutMs: number; log: (line: string) => void },
): Promise<WebhookStores> {
  return shared ? openPgWebhookStores(shared, opts) : Promise.resolve(sqliteWebhookStores(stateDb));
}

/** The change feed (src/changes/): state.db, or the shared store that every node appends to and reads. */
export function changeStoreOf(stateDb: StateDb, shared: SharedDb | null): ChangeStore {
  return shared ? new PgChanges(shared) : new SqliteChanges(stateDb);
}

/** The watchlists and their event bookkeeping: state.db, or the shared store every node reads. */
export function watchStoreOf(stateDb: StateDb, shared: SharedDb | null): WatchStore {
  return shared ? new PgWatchStore(shared) : new SqliteWatchStore(stateDb);
}
