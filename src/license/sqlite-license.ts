// The licence in state.db: only this node writes it, so the version is this process's count of
// writes and nothing is ever watched.

import { migrate, type StateDb } from "../store/state-db.js";
import type { LicenseBackend, LicenseSnapshot, StoredLicense } from "./license-state.js";

export class SqliteLicense implements LicenseBackend {
  private version = 0;

  constructor(private readonly db: StateDb) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS license (id INTEGER PRIMARY KEY CHECK (id = 1), document TEXT NOT NULL, signature TEXT NOT NULL)`,
    ]);
  }

  read(): Promise<LicenseSnapshot> {
    const stored = this.db.prepare("SELECT document, signature FROM license WHERE id = 1").get() as StoredLicense | undefined;
    return Promise.resolve({ version: this.version, stored: stored ?? null });
  }

  put(stored: StoredLicense): Promise<number> {
    this.db
      .prepare(
        "INSERT INTO license (id, document, signature) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET document = excluded.document, signature = excluded.signature",
      )
      .run(stored.document, stored.signature);
    return Promise.resolve(++this.version);
  }

  remove(): Promise<number | null> {
    const removed = this.db.prepare("DELETE FROM license WHERE id = 1").run().changes > 0;
    return Promise.resolve(removed ? ++this.version : null);
  }

  watch(): void {}

  close(): Promise<void> {
    return Promise.resolve();
  }
}
