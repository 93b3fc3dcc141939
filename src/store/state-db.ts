// The state store: one SQLite file, <data-dir>/state.db, in WAL mode with full sync, so a write
// that returned is on disk and survives kill -9. Each area creates its own tables through
// migrate(); SQL stays portable so that a PostgreSQL store could take over.

import Database from "better-sqlite3";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";

export type StateDb = Database.Database;

export function openStateDb(dataDir: string): StateDb {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, "state.db");
  const db = new Database(path);
  // keys are stored in clear (scoped keys are HMACs keyed by their parent's value): owner only;
  // before WAL mode, since SQLite gives the -wal and -shm files the database file's mode
  chmodSync(path, 0o600);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("busy_timeout = 5000");
  compileOnce(db);
  return db;
}

/**
 * Makes db.prepare return the statement it compiled before for the same SQL: stores call it
 * where they run it (some on every request or event), and compiling costs more than running.
 * Safe because no caller changes a statement's mode (pluck, raw) or iterates one.
 */
function compileOnce(db: StateDb): void {
  const compile = db.prepare.bind(db);
  const compiled = new Map<string, ReturnType<StateDb["prepare"]>>();
  db.prepare = ((sql: string) => {
    let statement = compiled.get(sql);
    if (statement === undefined) {
      statement = compile(sql);
      compiled.set(sql, statement);
    }
    return statement;
  }) as StateDb["prepare"];
}

/** Runs each statement of a schema once; statements must be idempotent (IF NOT EXISTS). */
export function migrate(db: StateDb, statements: string[]): void {
  capForTests(db, false);
  db.transaction(() => { for (const sql of statements) db.exec(sql); })();
  capForTests(db, true);
}

/**
 * LEIDEX_TEST_STATE_DB_HEADROOM_PAGES=<n> (test-only): after each schema step the database may
 * grow by at most n pages (PRAGMA max_page_count), so that tests see a real SQLITE_FULL ("database
 * or disk is full") from SQLite itself, as on a full disk, once the schema is in place.
 */
function capForTests(db: StateDb, on: boolean): void {
  const raw = process.env.LEIDEX_TEST_STATE_DB_HEADROOM_PAGES;
  if (raw === undefined || !/^\d+$/.test(raw)) return;
  const pages = db.pragma("page_count", { simple: true }) as number;
  db.pragma(`max_page_count = ${on ? pages + Number(raw) : 4294967294}`);
}
