// The shared state store on PostgreSQL (--database): a pool of connections, the schema's
// versioned migrations applied at start, and notifications between the nodes on one connection
// of its own. Two nodes starting together apply each migration once: they take an advisory
// lock first, and a migration and its row in leidex_migrations commit together.
//
// Nothing waits on the database for long: every pooled connection has a lock_timeout and a
// statement_timeout, a transaction left idle is ended by the server, and a request waits a
// bounded time for a free connection. Past any of them the caller gets an error that the areas
// answer 503 with Retry-After (store/write-failure.ts), so a table another session holds locked
// refuses writes within seconds instead of hanging them, and the pool never fills for good.

import type pg from "pg";
import { StartupError } from "../../config/startup-error.js";
import { MIGRATIONS } from "./migrations.js";

type Pg = typeof pg;
let loaded: Pg | undefined;

/**
 * The driver, imported only when --database is given: a server without it never needs the
 * package, and an installation that left it out refuses --database in one line.
 */
async function loadPg(): Promise<Pg> {
  if (loaded) return loaded;
  let driver: Pg;
  try {
    driver = (await import("pg")).default;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") throw err;
    throw new StartupError(
      `--database needs the package pg, which this installation lacks (${(err as Error).message.split("\n")[0]}): install it with npm install pg`,
    );
  }
  // BIGINT columns hold ids, versions, counters and ms timestamps, all far below 2^53: read them as numbers
  driver.types.setTypeParser(driver.types.builtins.INT8, (v) => Number(v));
  loaded = driver;
  return driver;
}

/** The advisory lock every node takes while it migrates (any constant; "LXMG"). */
const MIGRATION_LOCK = 0x4c584d47;
const POOL_SIZE = 8;
const LISTEN_RETRY_MS = 1_000;

/** How long a node lets the database keep it waiting (flags --database-lock-timeout and friends). */
export interface DbLimits {
  /** lock_timeout: the longest a statement waits for a lock */
  lockTimeoutMs: number;
  /** statement_timeout: the longest a statement runs, lock waits included */
  statementTimeoutMs: number;
  /** the longest a caller waits for a free connection of the pool (or for a new one to connect) */
  poolWaitMs: number;
}

/** An interactive API's: a write that cannot go ahead answers 503 within seconds. */
export const DEFAULT_DB_LIMITS: DbLimits = { lockTimeoutMs: 3_000, statementTimeoutMs: 10_000, poolWaitMs: 5_000 };
/**
 * idle_in_transaction_session_timeout: this server never leaves a transaction idle for more than
 * a moment, so one that sits longer (a node stalled or cut off mid-transaction) is ended by the
 * server, and the locks it holds go with it.
 */
const IDLE_IN_TRANSACTION_MS = 30_000;

export interface SharedDb {
  readonly pool: pg.Pool;
  /** where it is, without the password: for the log */
  readonly describe: string;
  /** calls `heard(payload)` for each notification on `channel`, from any node (this one too) */
  listen(channel: string, heard: (payload: string) => void): void;
  close(): Promise<void>;
}

export type Query = (text: string, values?: unknown[]) => Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;

/** a transaction a deadlock or a serialization failure aborted is run again, up to this many times in all */
const ATTEMPTS = 3;
const RETRIED_STATES = new Set(["40P01", "40001"]);

/**
 * Runs `work` in one transaction on a connection of the pool: committed when it returns, rolled
 * back when it throws. A transaction PostgreSQL aborted to break a deadlock runs again: `work`
 * must start from scratch each time.
 */
export async function inTransaction<T>(db: SharedDb, work: (q: Query) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transactionOnce(db, work);
    } catch (err) {
      if (attempt >= ATTEMPTS || !RETRIED_STATES.has(String((err as { code?: unknown }).code))) throw err;
    }
  }
}

async function transactionOnce<T>(db: SharedDb, work: (q: Query) => Promise<T>): Promise<T> {
  const client = await db.pool.connect();
  // a connection that fails between two queries must not crash the process: the next query fails instead
  let broken: Error | undefined;
  const onError = (err: Error): void => {
    broken = err;
  };
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    const result = await work((text, values) => client.query(text, values));
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.off("error", onError);
    // a broken connection goes, not back to the pool
    client.release(broken);
  }
}

/** Opens the pool and migrates; a StartupError (one line) when the database cannot be used. */
export async function openSharedDb(url: string, log: (line: string) => void, limits: DbLimits = DEFAULT_DB_LIMITS): Promise<SharedDb> {
  const describe = describeUrl(url);
  const pg = await loadPg();
  try {
    const applied = await migrate(pg, url, limits);
    if (applied.length > 0) log(`database ${describe}: applied migrations ${applied.join(", ")}`);
  } catch (err) {
    throw new StartupError(`cannot use the database ${describe} (--database): ${(err as Error).message}`);
  }
  // the limits are each session's own settings, sent when the connection starts
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: limits.poolWaitMs,
    lock_timeout: limits.lockTimeoutMs,
    statement_timeout: limits.statementTimeoutMs,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
  });
  // an idle connection that the server drops must not crash the process; the next query reconnects
  pool.on("error", (err) => log(`database ${describe}: an idle connection failed (${err.message})`));
  return new PgSharedDb(pg, pool, url, describe, log);
}

/**
 * Applies the migrations not yet applied, on a connection of its own without the pool's time
 * limits: a node waits its turn at the advisory lock, and a migration takes as long as it takes.
 */
async function migrate(pg: Pg, url: string, limits: DbLimits): Promise<string[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: Math.max(limits.poolWaitMs, 10_000) });
  const failed = (): undefined => undefined; // the query under way fails with it
  client.on("error", failed);
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await client.query(
        "CREATE TABLE IF NOT EXISTS leidex_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
      );
      const done = new Set((await client.query<{ version: number }>("SELECT version FROM leidex_migrations")).rows.map((r) => r.version));
      const newest = Math.max(0, ...done);
      const known = Math.max(...MIGRATIONS.map((m) => m.version));
      if (newest > known)
        throw new Error(`its schema is at migration ${newest}, newer than this server knows (${known}): upgrade this node`);
      const applied: string[] = [];
      for (const m of MIGRATIONS) {
        if (done.has(m.version)) continue;
        await client.query("BEGIN");
        try {
          await client.query(m.sql);
          await client.query("INSERT INTO leidex_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
          await client.query("COMMIT");
        } catch (err) {
          await client.query("ROLLBACK");
          throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`);
        }
        applied.push(`${m.version} (${m.name})`);
      }
      return applied;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    await client.end().catch(() => undefined);
    client.off("error", failed);
  }
}

class PgSharedDb implements SharedDb {
  private readonly listeners = new Map<string, ((payload: string) => void)[]>();
  private client: pg.Client | null = null;
  private closed = false;
  /** notifications are lost until the listener connects again: logged once an outage */
  private lost = false;
  /** the listening connection's queries, one after another */
  private listening: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly pg: Pg,
    readonly pool: pg.Pool,
    private readonly url: string,
    readonly describe: string,
    private readonly log: (line: string) => void,
  ) {}

  listen(channel: string, heard: (payload: string) => void): void {
    const known = this.listeners.get(channel);
    if (known) known.push(heard);
    else {
      this.listeners.set(channel, [heard]);
      const client = this.client;
      // one query at a time on the connection: after whatever it is doing (connecting, listening)
      if (client) this.listening = this.listening.then(() => client.query(`LISTEN ${channel}`)).catch(() => undefined);
      else void this.connectListener();
    }
  }

  /** One connection for every channel; when it fails it is made again (callers poll meanwhile). */
  private async connectListener(): Promise<void> {
    if (this.closed || this.client) return;
    const client = new this.pg.Client({ connectionString: this.url });
    this.client = client;
    const retry = (err: Error): void => {
      if (this.client !== client) return;
      this.client = null;
      client.end().catch(() => undefined);
      if (this.closed) return;
      if (!this.lost)
        this.log(`database ${this.describe}: notifications lost (${err.message}); reconnecting each second, polling meanwhile`);
      this.lost = true;
      setTimeout(() => void this.connectListener(), LISTEN_RETRY_MS).unref();
    };
    client.on("error", retry);
    client.on("end", () => retry(new Error("connection ended")));
    client.on("notification", (n) => {
      for (const heard of this.listeners.get(n.channel) ?? []) heard(n.payload ?? "");
    });
    const listenAll = async (): Promise<void> => {
      await client.connect();
      for (const channel of this.listeners.keys()) await client.query(`LISTEN ${channel}`);
    };
    try {
      const connected = listenAll();
      this.listening = connected.catch(() => undefined);
      await connected;
      if (this.lost) this.log(`database ${this.describe}: notifications heard again`);
      this.lost = false;
    } catch (err) {
      retry(err as Error);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
    await this.pool.end();
  }
}

/** postgres://user:secret@host:5432/db -> postgres://user@host:5432/db */
function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = "";
    return u.toString();
  } catch {
    return "(a connection string that is not a URL)";
  }
}
