// Search settings in the shared PostgreSQL store (--database): each write moves their version on
// and notifies the nodes (store/pg/versioned.ts).

import type { SharedDb } from "../store/pg/shared-db.js";
import { versionedWrite, watchVersion } from "../store/pg/versioned.js";
import type { SettingKind, SettingsBackend, SettingsSnapshot } from "./search-settings.js";

const TABLE = "search_settings";

export class PgSettings implements SettingsBackend {
  private unwatch: (() => void) | null = null;

  constructor(private readonly db: SharedDb) {}

  async read(): Promise<SettingsSnapshot> {
    const { rows } = await this.db.pool.query<{ version: string; items: SettingsSnapshot["items"] }>(
      `SELECT (SELECT version FROM state_versions WHERE name = $1) AS version,
              COALESCE((SELECT json_agg(json_build_object('kind', kind, 'name', name, 'body', body)) FROM search_settings), '[]') AS items`,
      [TABLE],
    );
    return { version: Number(rows[0].version), items: rows[0].items };
  }

  async put(kind: SettingKind, name: string, body: unknown): Promise<number> {
    const { version } = await versionedWrite(this.db, TABLE, async (q) => {
      await q(
        "INSERT INTO search_settings (kind, name, body) VALUES ($1, $2, $3) ON CONFLICT (kind, name) DO UPDATE SET body = excluded.body",
        [kind, name, JSON.stringify(body)],
      );
      return { changed: true, result: null };
    });
    return version!;
  }

  async remove(kind: SettingKind, name: string): Promise<number | null> {
    const { version } = await versionedWrite(this.db, TABLE, async (q) => {
      const { rows } = await q("DELETE FROM search_settings WHERE kind = $1 AND name = $2 RETURNING name", [kind, name]);
      return { changed: rows.length > 0, result: null };
    });
    return version;
  }

  watch(moved: (version: number) => void): void {
    this.unwatch = watchVersion(this.db, TABLE, moved);
  }

  close(): Promise<void> {
    this.unwatch?.();
    return Promise.resolve();
  }
}
