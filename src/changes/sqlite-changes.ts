// The change feed in state.db. `id` is an AUTOINCREMENT key, so an id is never given twice, even
// after retention pruned the newest rows: a cursor handed out stays valid. One writer (this
// process), so ids are committed in their order and a reader after a cursor misses nothing.

import { migrate, type StateDb } from "../store/state-db.js";
import type { ChangeQuery, ChangeStore, FieldChange, StoredChange } from "./model.js";

const BATCH = 5000;

/** A row of lei_changes as either store reads it (PostgreSQL gives ids as text, times as Dates). */
export interface ChangeRow {
  id: number | string;
  lei: string;
  record_type: string;
  field: string;
  value_old: string | null;
  value_new: string | null;
  publication: string;
  detected_at: string | Date;
}

export class SqliteChanges implements ChangeStore {
  constructor(private readonly db: StateDb) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS lei_changes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        lei TEXT NOT NULL,
        record_type TEXT NOT NULL,
        field TEXT NOT NULL,
        value_old TEXT,
        value_new TEXT,
        publication TEXT NOT NULL,
        detected_at TEXT NOT NULL,
        UNIQUE (publication, lei, field)
      )`,
      `CREATE INDEX IF NOT EXISTS lei_changes_lei ON lei_changes (lei, id)`,
      `CREATE INDEX IF NOT EXISTS lei_changes_detected ON lei_changes (detected_at)`,
    ]);
  }

  append(changes: readonly FieldChange[]): Promise<number> {
    const insert = this.db.prepare(
      `INSERT INTO lei_changes (lei, record_type, field, value_old, value_new, publication, detected_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (publication, lei, field) DO NOTHING`,
    );
    let added = 0;
    // a transaction per batch: each commit is synced (synchronous = FULL), so what returned is on disk
    for (let from = 0; from < changes.length; from += BATCH) {
      this.db.transaction(() => {
        for (let i = from; i < Math.min(from + BATCH, changes.length); i++) {
          const c = changes[i];
          added += insert.run(c.lei, c.recordType, c.field, c.valueOld, c.valueNew, c.publication, c.detectedAt).changes;
        }
      })();
    }
    return Promise.resolve(added);
  }

  list(query: ChangeQuery): Promise<StoredChange[]> {
    const where = ["id > ?"];
    const values: (string | number)[] = [Number(query.since)];
    if (query.before !== undefined) {
      where.push("id < ?");
      values.push(Number(query.before));
    }
    if (query.lei !== undefined) {
      where.push("lei = ?");
      values.push(query.lei);
    }
    if (query.field !== undefined) {
      where.push("field = ?");
      values.push(query.field);
    }
    if (query.recordType !== undefined) {
      where.push("record_type = ?");
      values.push(query.recordType);
    }
    values.push(query.limit);
    const rows = this.db
      .prepare(
        `SELECT id, lei, record_type, field, value_old, value_new, publication, detected_at FROM lei_changes
         WHERE ${where.join(" AND ")} ORDER BY id ${query.newestFirst ? "DESC" : "ASC"} LIMIT ?`,
      )
      .all(...values) as ChangeRow[];
    return Promise.resolve(rows.map(storedOf));
  }

  prune(before: Date): Promise<number> {
    return Promise.resolve(this.db.prepare("DELETE FROM lei_changes WHERE detected_at < ?").run(before.toISOString()).changes);
  }
}

export function storedOf(r: ChangeRow): StoredChange {
  return {
    id: String(r.id),
    lei: r.lei,
    recordType: r.record_type as StoredChange["recordType"],
    field: r.field as StoredChange["field"],
    valueOld: r.value_old,
    valueNew: r.value_new,
    publication: r.publication,
    detectedAt: r.detected_at instanceof Date ? r.detected_at.toISOString() : r.detected_at,
  };
}
