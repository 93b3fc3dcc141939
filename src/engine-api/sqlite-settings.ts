// Search settings in state.db: only this node writes them, so the version is this process's
// count of writes and nothing is ever watched.

import { migrate, type StateDb } from "../store/state-db.js";
import type { SettingKind, SettingsBackend, SettingsSnapshot } from "./search-settings.js";

export class SqliteSettings implements SettingsBackend {
  private version = 0;

  constructor(private readonly db: StateDb) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS search_settings (kind TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (kind, name))`,
    ]);
  }

  read(): Promise<SettingsSnapshot> {
    const rows = this.db.prepare("SELECT kind, name, body FROM search_settings").all() as {
      kind: SettingKind;
      name: string;
      body: string;
    }[];
    return Promise.resolve({
      version: this.version,
      items: rows.map((r) => ({ kind: r.kind, name: r.name, body: JSON.parse(r.body) as unknown })),
    });
  }

  put(kind: SettingKind, name: string, body: unknown): Promise<number> {
    this.db
      .prepare(
        "INSERT INTO search_settings (kind, name, body) VALUES (?, ?, ?) ON CONFLICT (kind, name) DO UPDATE SET body = excluded.body",
      )
      .run(kind, name, JSON.stringify(body));
    return Promise.resolve(++this.version);
  }

  remove(kind: SettingKind, name: string): Promise<number | null> {
    const info = this.db.prepare("DELETE FROM search_settings WHERE kind = ? AND name = ?").run(kind, name);
    return Promise.resolve(info.changes > 0 ? ++this.version : null);
  }

  watch(): void {}

  close(): Promise<void> {
    return Promise.resolve();
  }
}
