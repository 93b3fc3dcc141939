// What every area does when the state store cannot be written (state.db: disk full, quota, I/O
// error, read-only file system; PostgreSQL with --database: unreachable, shut down, out of
// connections, or busy: a lock or a statement past its time limit, no pooled connection free in
// time): answer 503 with Retry-After instead of 500, log it once per interval with a count
// instead of a stack trace per request, and go on serving reads (they need no new pages).
//
// Use: wrap a handler that writes, `guardWrites(reply, "keys-create", () => handler())`, or in a
// catch, `if (answerWriteFailure(reply, "keys-create", err)) return; throw err;`. Background
// writers that only log call `writeFailures.note(where, err)` (true when it was a write failure).

/** SQLite result codes (better-sqlite3 puts them in err.code, extended codes included) and errno codes that mean "the disk refused the write". */
const SQLITE_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN)(_|$)/;
const DISK_ERRNO_CODES = new Set(["ENOSPC", "EDQUOT", "EIO", "EROFS"]);
const NETWORK_ERRNO_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
/**
 * PostgreSQL SQLSTATEs of a database that is busy: a statement cancelled by statement_timeout
 * (57014 query_canceled), a lock not granted within lock_timeout (55P03 lock_not_available), too
 * many connections (53300), a deadlock or conflict still there after retries (class 40). The same
 * write may well pass a few seconds later.
 */
const POSTGRES_BUSY = /^(57014|55P03|53300|40...)$/;
/**
 * SQLSTATE classes of a database away or failing: connection exception, insufficient resources,
 * operator intervention (shut down, restarting); and the session ended for sitting idle in a
 * transaction (25P03).
 */
const POSTGRES_AWAY = /^(08|53|57|25P03$)/;
/** what the pg client throws, without a code: no pooled connection free in time (busy)… */
const POSTGRES_POOL_WAIT = /^timeout exceeded when trying to connect/;
/** …and a connection that ended, could not be made in time, or broke earlier (away) */
const POSTGRES_CLIENT = /^(Connection terminated|Client has encountered a connection error|Client was closed)/;

/** Retry-After of a store that is away or failing: a disk to free, a database to bring back */
const WRITE_RETRY_AFTER_SECONDS = 30;
/** Retry-After of a database that is busy: a lock or a slow statement may be gone in seconds */
const BUSY_RETRY_AFTER_SECONDS = 5;
const LOG_EVERY_MS = 60_000;

type Store = "state.db" | "the database";
interface Failure {
  store: Store;
  /** busy: a time limit was reached (a lock, a statement, the pool); the store itself works */
  busy: boolean;
}

/** Which store a write failure is of (PostgreSQL is "the database"), and whether it is busy; null for any other error. */
function failureOf(err: unknown): Failure | null {
  const code = typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : "";
  if (SQLITE_CODES.test(code) || DISK_ERRNO_CODES.has(code)) return { store: "state.db", busy: false };
  const message = err instanceof Error ? err.message : "";
  if (POSTGRES_BUSY.test(code) || POSTGRES_POOL_WAIT.test(message)) return { store: "the database", busy: true };
  if (POSTGRES_AWAY.test(code) || NETWORK_ERRNO_CODES.has(code) || POSTGRES_CLIENT.test(message))
    return { store: "the database", busy: false };
  return null;
}

const retryAfterOf = (f: Failure): number => (f.busy ? BUSY_RETRY_AFTER_SECONDS : WRITE_RETRY_AFTER_SECONDS);

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
    const failure = failureOf(err);
    if (failure === null) return false;
    const store = failure.store;
    this.store = store;
    const now = this.monoNow();
    if (now - this.windowStart >= this.everyMs && this.count === 0) {
      this.windowStart = now;
      const why = failure.busy ? " (busy: a lock or a statement past its time limit, or no connection free in time)" : "";
      this.log(
        `${store} cannot be written${why} (${describe(err)}) in ${where}: writes answer 503 with Retry-After ${retryAfterOf(failure)} s; reads go on; further failures are counted once a minute`,
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

/** What a store failure is, in one line for the log (a start that failed on it); null for any other error. */
export function storeFailureLine(err: unknown): string | null {
  const failure = failureOf(err);
  if (failure === null) return null;
  const state = failure.busy ? "is busy (a lock or a statement past its time limit, or no connection free in time)" : "failed";
  return `${failure.store} ${state}: ${describe(err)}`;
}

/** Answers a write failure with 503 and Retry-After (logged, throttled); false for any other error. */
export function answerWriteFailure(reply: FailureReply, where: string, err: unknown): boolean {
  const failure = failureOf(err);
  if (failure === null || !writeFailures.note(where, err)) return false;
  const why =
    failure.store === "state.db"
      ? "its disk is full or failing"
      : failure.busy
        ? "its database is busy: a lock or a slow statement held this write past its time limit"
        : "its database does not answer";
  reply.header("Retry-After", String(retryAfterOf(failure)));
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
