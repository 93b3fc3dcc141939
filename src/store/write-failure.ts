// What every area does when the state store cannot be written (state.db: disk full, quota, I/O
// error, read-only file system; PostgreSQL with --database: unreachable, shut down, out of
// connections): answer 503 with Retry-After instead of 500, log it once per interval with a count
// instead of a stack trace per request, and go on serving reads (they need no new pages).
//
// Use: wrap a handler that writes, `guardWrites(reply, "keys-create", () => handler())`, or in a
// catch, `if (answerWriteFailure(reply, "keys-create", err)) return; throw err;`. Background
// writers that only log call `writeFailures.note(where, err)` (true when it was a write failure).

/** SQLite result codes (better-sqlite3 puts them in err.code, extended codes included) and errno codes that mean "the disk refused the write". */
const SQLITE_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN)(_|$)/;
const DISK_ERRNO_CODES = new Set(["ENOSPC", "EDQUOT", "EIO", "EROFS"]);
const NETWORK_ERRNO_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH"]);
/** PostgreSQL SQLSTATE classes: connection exception, transaction rollback (a deadlock or conflict still there after retries), insufficient resources, operator intervention */
const POSTGRES_STATES = /^(08|40|53|57P)/;
/** what the pg client throws, without a code, when a connection ends or the pool cannot connect in time */
const POSTGRES_CLIENT = /^(Connection terminated|timeout exceeded when trying to connect)/;

const WRITE_RETRY_AFTER_SECONDS = 30;
const LOG_EVERY_MS = 60_000;

type Store = "state.db" | "the database";

/** The store a write failure is of (PostgreSQL is "the database"); null for any other error. */
function failedStore(err: unknown): Store | null {
  const code = typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : "";
  if (SQLITE_CODES.test(code) || DISK_ERRNO_CODES.has(code)) return "state.db";
  const message = err instanceof Error ? err.message : "";
  if (POSTGRES_STATES.test(code) || NETWORK_ERRNO_CODES.has(code) || POSTGRES_CLIENT.test(message)) return "the database";
  return null;
}

const describe = (err: unknown): string => {
  const e = err as { code?: unknown; message?: unknown };
  return `${String(e.code)}: ${String(e.message)}`;
};

/**
 * Logs the first write failure at once, then at most one line per interval saying how many more
 * there were (and the last one), on a monotonic clock so that a clock step changes nothing.
 */
export class WriteFailureLog {
  private windowStart = -Infinity;
  private count = 0;
  private last = "";
  private store: Store = "state.db";
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: (line: string) => void,
    private readonly everyMs = LOG_EVERY_MS,
    private readonly monoNow: () => number = () => performance.now(),
  ) {}

  /** Counts (and perhaps logs) `err` when it is a write failure; returns whether it was one. */
  note(where: string, err: unknown): boolean {
    const store = failedStore(err);
    if (store === null) return false;
    this.store = store;
    const now = this.monoNow();
    if (now - this.windowStart >= this.everyMs && this.count === 0) {
      this.windowStart = now;
      this.log(
        `${store} cannot be written (${describe(err)}) in ${where}: writes answer 503 with Retry-After ${WRITE_RETRY_AFTER_SECONDS} s; reads go on; further failures are counted once a minute`,
      );
      return true;
    }
    this.count++;
    this.last = `${where}: ${describe(err)}`;
    this.timer ??= setTimeout(() => this.summary(), Math.max(0, this.windowStart + this.everyMs - now)).unref();
    return true;
  }

  private summary(): void {
    this.timer = null;
    if (this.count === 0) return;
    this.log(
      `${this.store} still cannot be written: ${this.count} more write failures in the last ${Math.round(this.everyMs / 1000)} s (last: ${this.last})`,
    );
    this.count = 0;
    this.windowStart = this.monoNow();
  }
}

/** The process's one log of write failures (stderr, like other errors). */
export const writeFailures = new WriteFailureLog((line) => console.error(line));

export interface FailureReply {
  header(name: string, value: string): unknown;
  error(status: number, message: string): void;
}

/** Answers a write failure with 503 and Retry-After (logged, throttled); false for any other error. */
export function answerWriteFailure(reply: FailureReply, where: string, err: unknown): boolean {
  if (!writeFailures.note(where, err)) return false;
  const why = failedStore(err) === "the database" ? "its database does not answer" : "its disk is full or failing";
  reply.header("Retry-After", String(WRITE_RETRY_AFTER_SECONDS));
  reply.error(503, `the server cannot store this right now (${why}); reads still work; retry later`);
  return true;
}

/** Runs a route handler; a write failure it throws (or rejects with) becomes a 503, anything else goes on up. */
export async function guardWrites(reply: FailureReply, where: string, run: () => unknown): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (!answerWriteFailure(reply, where, err)) throw err;
  }
}
