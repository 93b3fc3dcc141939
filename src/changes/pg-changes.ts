// The change feed in the shared PostgreSQL store (--database), for every node. Nodes loading the
// same publication append the same rows: (publication, lei, field) is unique, so each is kept
// once. Appends take one advisory lock in their transaction, so ids are committed in their order:
// a reader paging `id > cursor` never passes an id that a transaction still open holds.

import { inTransaction, type SharedDb } from "../store/pg/shared-db.js";
import type { ChangeQuery, ChangeStore, FieldChange, StoredChange } from "./model.js";
import { storedOf, type ChangeRow } from "./sqlite-changes.js";

/** the advisory lock appends take ("LXCH") */
const APPEND_LOCK = 0x4c584348;
const BATCH = 5000;

export class PgChanges implements ChangeStore {
  constructor(private readonly db: SharedDb) {}

  async append(changes: readonly FieldChange[]): Promise<number> {
    let added = 0;
    for (let from = 0; from < changes.length; from += BATCH) {
      const part = changes.slice(from, from + BATCH);
      const column = <K extends keyof FieldChange>(k: K): FieldChange[K][] => part.map((c) => c[k]);
      added += await inTransaction(this.db, async (q) => {
        await q("SELECT pg_advisory_xact_lock($1)", [APPEND_LOCK]);
        const { rowCount } = await q(
          `INSERT INTO lei_changes (lei, record_type, field, value_old, value_new, publication, detected_at)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
           ON CONFLICT (publication, lei, field) DO NOTHING`,
          [
            column("lei"),
            column("recordType"),
            column("field"),
            column("valueOld"),
            column("valueNew"),
            column("publication"),
            column("detectedAt"),
          ],
        );
        return rowCount ?? 0;
      });
    }
    return added;
  }

  async list(query: ChangeQuery): Promise<StoredChange[]> {
    const where = ["id > $1"];
    const values: (string | number)[] = [query.since];
    const add = (sql: string, value: string, op = "="): void => {
      values.push(value);
      where.push(`${sql} ${op} $${values.length}`);
    };
    if (query.before !== undefined) add("id", query.before, "<");
    if (query.lei !== undefined) add("lei", query.lei);
    if (query.field !== undefined) add("field", query.field);
    if (query.recordType !== undefined) add("record_type", query.recordType);
    values.push(query.limit);
    const { rows } = await this.db.pool.query(
      `SELECT id, lei, record_type, field, value_old, value_new, publication, detected_at FROM lei_changes
       WHERE ${where.join(" AND ")} ORDER BY id ${query.newestFirst ? "DESC" : "ASC"} LIMIT $${values.length}`,
      values,
    );
    return rows.map((r) => storedOf(r as ChangeRow));
  }

  async prune(before: Date): Promise<number> {
    const { rowCount } = await this.db.pool.query("DELETE FROM lei_changes WHERE detected_at < $1", [before]);
    return rowCount ?? 0;
  }
}
