// Writes to a table that nodes keep copies of (store/replica.ts): each write transaction moves
// the table's version on in state_versions and notifies it at commit; watchVersion hears the
// notifications, and polls the version every POLL_MS behind them, so a lost notification delays
// a change by at most that long.

import { inTransaction, type Query, type SharedDb } from "./shared-db.js";

export type { Query } from "./shared-db.js";

export const POLL_MS = 1_000;

/**
 * Runs `work` in one transaction with the version it makes (rows may carry it, so that nodes can
 * read only what changed since theirs). When it returns `changed: true`, the transaction commits
 * and every node is told; else it rolls back, and the version is null. Writers of one table
 * take turns at the version's row lock, so versions commit in order.
 */
export async function versionedWrite<T>(
  db: SharedDb,
  name: string,
  work: (q: Query, version: number) => Promise<{ changed: boolean; result: T }>,
): Promise<{ result: T; version: number | null }> {
  try {
    return await inTransaction(db, async (q) => {
      const { rows } = await q("UPDATE state_versions SET version = version + 1 WHERE name = $1 RETURNING version", [name]);
      const version = Number(rows[0].version);
      const { changed, result } = await work(q, version);
      if (!changed) throw new Unchanged(result);
      await q("SELECT pg_notify($1, $2)", [channelOf(name), String(version)]);
      return { result, version };
    });
  } catch (err) {
    if (err instanceof Unchanged) return { result: err.result as T, version: null };
    throw err;
  }
}

/** Rolls back a versioned write that changed nothing, carrying its result out. */
class Unchanged extends Error {
  constructor(readonly result: unknown) {
    super("unchanged");
  }
}

/** Calls `heard` with the version of `name` on every notification and poll; returns a stop. */
export function watchVersion(db: SharedDb, name: string, heard: (version: number) => void): () => void {
  db.listen(channelOf(name), (payload) => heard(Number(payload)));
  const poll = setInterval(() => {
    db.pool.query<{ version: string }>("SELECT version FROM state_versions WHERE name = $1", [name]).then(
      ({ rows }) => heard(Number(rows[0].version)),
      () => undefined, // the database is away: the next poll asks again
    );
  }, POLL_MS);
  poll.unref();
  return () => clearInterval(poll);
}

const channelOf = (name: string): string => `leidex_${name}`;

/** A table nodes keep copies of: its writes, and the watch and close a replica source needs. */
export abstract class VersionedTable {
  private unwatch: (() => void) | null = null;

  constructor(
    protected readonly db: SharedDb,
    private readonly table: string,
  ) {}

  protected write<T>(
    work: (q: Query, version: number) => Promise<{ changed: boolean; result: T }>,
  ): Promise<{ result: T; version: number | null }> {
    return versionedWrite(this.db, this.table, work);
  }

  /** One statement in its own transaction: the version it made when it returned a row, else null. */
  protected async change(sql: string, values: unknown[] = []): Promise<number | null> {
    const { version } = await this.write(async (q) => {
      const { rows } = await q(sql, values);
      return { changed: rows.length > 0, result: null };
    });
    return version;
  }

  /** The table's version and `select` (a scalar subquery; $2 onwards are `values`) in one statement: one snapshot. */
  protected async snapshot<T>(select: string, values: unknown[] = []): Promise<{ version: number; value: T }> {
    const { rows } = await this.db.pool.query<{ version: string; value: T }>(
      `SELECT (SELECT version FROM state_versions WHERE name = $1) AS version, (${select}) AS value`,
      [this.table, ...values],
    );
    return { version: Number(rows[0].version), value: rows[0].value };
  }

  watch(moved: (version: number) => void): void {
    this.unwatch = watchVersion(this.db, this.table, moved);
  }

  close(): Promise<void> {
    this.unwatch?.();
    return Promise.resolve();
  }
}
