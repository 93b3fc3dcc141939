// Search settings in the shared PostgreSQL store (--database): each write moves their version on
// and notifies the nodes (store/pg/versioned.ts).

import type { SharedDb } from "../store/pg/shared-db.js";
import { VersionedTable } from "../store/pg/versioned.js";
import type { SettingKind, SettingsBackend, SettingsSnapshot } from "./search-settings.js";

export class PgSettings extends VersionedTable implements SettingsBackend {
  constructor(db: SharedDb) {
    super(db, "search_settings");
  }

  async read(): Promise<SettingsSnapshot> {
    const { version, value } = await this.snapshot<SettingsSnapshot["items"]>(
      "SELECT COALESCE(json_agg(json_build_object('kind', kind, 'name', name, 'body', body)), '[]') FROM search_settings",
    );
    return { version, items: value };
  }

  async put(kind: SettingKind, name: string, body: unknown): Promise<number> {
    const version = await this.change(
      `INSERT INTO search_settings (kind, name, body) VALUES ($1, $2, $3)
       ON CONFLICT (kind, name) DO UPDATE SET body = excluded.body RETURNING name`,
      [kind, name, JSON.stringify(body)],
    );
    return version!;
  }

  remove(kind: SettingKind, name: string): Promise<number | null> {
    return this.change("DELETE FROM search_settings WHERE kind = $1 AND name = $2 RETURNING name", [kind, name]);
  }
}
