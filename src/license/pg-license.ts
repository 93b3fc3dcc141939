// The licence in the shared PostgreSQL store (--database): one for every node; each write moves
// its version on and notifies the nodes (store/pg/versioned.ts).

import type { SharedDb } from "../store/pg/shared-db.js";
import { VersionedTable } from "../store/pg/versioned.js";
import type { LicenseBackend, LicenseSnapshot, StoredLicense } from "./license-state.js";

export class PgLicense extends VersionedTable implements LicenseBackend {
  constructor(db: SharedDb) {
    super(db, "license");
  }

  async read(): Promise<LicenseSnapshot> {
    const { version, value } = await this.snapshot<StoredLicense | null>(
      "SELECT json_build_object('document', document, 'signature', signature) FROM license WHERE id = 1",
    );
    return { version, stored: value };
  }

  async put(stored: StoredLicense): Promise<number> {
    const version = await this.change(
      `INSERT INTO license (id, document, signature) VALUES (1, $1, $2)
       ON CONFLICT (id) DO UPDATE SET document = excluded.document, signature = excluded.signature RETURNING id`,
      [stored.document, stored.signature],
    );
    return version!;
  }

  remove(): Promise<number | null> {
    return this.change("DELETE FROM license WHERE id = 1 RETURNING id");
  }
}
