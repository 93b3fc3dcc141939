// The state store: one SQLite file, <data-dir>/state.db, in WAL mode with full sync, so a write
// that returned is on disk and survives kill -9. Each area creates its own tables through
// migrate(); SQL stays portable so that a PostgreSQL store could take over.

import Database from "better-sqlite3";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { StartupError } from "../config/startup-error.js";

export type StateDb = Database.Database;

/**
 * Opens state.db, refusing with a StartupError (one line: the file, and what to do) when it is
 * not a sound SQLite database: a server that started on a damaged one would half-work, losing
 * keys or webhook state at the first page it could not read.
 */
export function openStateDb(dataDir: string): StateDb {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, "state.db");
  let db: StateDb | null = null;
  try {
    db = new Database(path);
    // keys are stored in clear (scoped keys are HMACs keyed by their parent's value): owner only;
    // before WAL mode, since SQLite gives the -wal and -shm files the database file's mode
    chmodSync(path, 0o600);
    db.pragma("journal_mode = WAL");
    connectionSettings(db);
    // reads every page once (about a second per GB): damage shows now, not at the first unlucky write
    const found = db.pragma("quick_check", { simple: false }) as { quick_check: string }[];
    if (found.length !== 1 || found[0].quick_check !== "ok")
      throw new DamagedError(
        found
          .slice(0, 3)
          .map((r) => r.quick_check)
          .join("; "),
      );
  } catch (err) {
    db?.close();
    throw refusal(path, err as Error);
  }
  compileOnce(db);
  return db;
}

/**
 * A further connection to a state.db that openStateDb has opened (and checked) already, for a
 * thread of its own (the intake writer): same sync and busy settings, so a write of either
 * connection waits for the other's transaction instead of failing.
 */
export function openStateDbConnection(path: string): StateDb {
  const db = new Database(path);
  connectionSettings(db);
  compileOnce(db);
  return db;
}

/** What every connection to state.db sets: a commit is on disk when it returns; a write waits for another's. */
function connectionSettings(db: StateDb): void {
  db.pragma("synchronous = FULL");
  db.pragma("busy_timeout = 5000");
}

class DamagedError extends Error {}

/** SQLite's codes for a file that is not, or no longer, a sound database. */
const DAMAGE_CODES = /^SQLITE_(NOTADB|CORRUPT)/;

function refusal(path: string, err: Error): StartupError {
  const reason = err.message.split("\n")[0];
  const code = (err as { code?: unknown }).code;
  if (err instanceof DamagedError || (typeof code === "string" && DAMAGE_CODES.test(code))) {
    return new StartupError(
      `refusing to start: ${path} is damaged (${reason}); it holds the API keys, aliases, synonyms and webhook state: ` +
        "restore it from a backup, or move it aside (with any state.db-wal and state.db-shm beside it) to start with an empty one",
    );
  }
  return new StartupError(`refusing to start: ${path} cannot be opened (${reason}); check the data directory's permissions and free space`);
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
  db.transaction(() => {
    for (const sql of statements) db.exec(sql);
  })();
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
