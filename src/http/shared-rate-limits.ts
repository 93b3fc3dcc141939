// The per-IP limits across nodes (--database): every TICK_MS each node writes what each address
// spent on it during the tick, one row per limiter, and charges every other node's rows to its
// own buckets. No request waits for the database. The error bound: an address can spend, beyond
// its limit, what it spends on the other nodes during the last tick before they are charged here
// (at most one bucket per node, in one burst); sustained traffic holds the limit.

import type { SharedDb } from "../store/pg/shared-db.js";
import type { RateLimiter } from "./rate-limit.js";

export const TICK_MS = 1_000;
/** Rows older than this are deleted: a node that was away longer does not charge them. */
const KEEP_SECONDS = 120;
/**
 * Each tick reads the other nodes' rows of this many seconds, and charges those it has not yet:
 * ids are handed out at insert but commit in any order, so "ids above the last seen" would skip
 * a row committed late.
 */
const LOOK_BACK_SECONDS = 10;
const PRUNE_EVERY_TICKS = 30;

export class SharedRateLimits {
  private timer: NodeJS.Timeout | null = null;
  /** rows charged here, by id, with the tick that charged them (forgotten once out of the look-back) */
  private readonly charged = new Map<number, number>();
  private ticks = 0;
  private busy = false;
  private failing = false;

  constructor(
    private readonly db: SharedDb,
    private readonly node: string,
    private readonly limiters: Record<string, RateLimiter>,
    private readonly log: (line: string) => void,
  ) {}

  /** Starts counting and charging; what other nodes spent before this start is not charged. */
  async start(): Promise<void> {
    for (const row of await this.recent()) this.charged.set(Number(row.id), 0);
    for (const limiter of Object.values(this.limiters)) limiter.drainSpent();
    this.timer = setInterval(() => void this.tick(), TICK_MS);
    this.timer.unref();
  }

  /** One exchange; a tick that finds the last one still running is skipped, its spending kept for the next. */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const drained = Object.entries(this.limiters).map(([name, limiter]) => ({ name, limiter, spent: limiter.drainSpent() }));
    try {
      for (const { name, spent } of drained) {
        if (spent.size === 0) continue;
        await this.db.pool.query("INSERT INTO rate_spent (node, limiter, spent) VALUES ($1, $2, $3)", [
          this.node,
          name,
          JSON.stringify(Object.fromEntries(spent)),
        ]);
        spent.clear();
      }
      this.ticks++;
      for (const row of await this.recent()) {
        const id = Number(row.id);
        if (this.charged.has(id)) continue;
        this.charged.set(id, this.ticks);
        const limiter = this.limiters[row.limiter];
        if (limiter) for (const [ip, tokens] of Object.entries(row.spent)) limiter.charge(ip, tokens);
      }
      const forgetBefore = this.ticks - 2 * LOOK_BACK_SECONDS;
      for (const [id, tick] of this.charged) if (tick < forgetBefore) this.charged.delete(id);
      if (this.ticks % PRUNE_EVERY_TICKS === 0)
        await this.db.pool.query(`DELETE FROM rate_spent WHERE at < now() - interval '${KEEP_SECONDS} seconds'`);
      if (this.failing) this.log("shared rate limits: the database answers again");
      this.failing = false;
    } catch (err) {
      // not written yet: counted again at the next tick
      for (const { limiter, spent } of drained) for (const [ip, tokens] of spent) limiter.addSpent(ip, tokens);
      if (!this.failing)
        this.log(`shared rate limits: the database does not answer (${(err as Error).message}); each node limits alone meanwhile`);
      this.failing = true;
    } finally {
      this.busy = false;
    }
  }

  /** The other nodes' rows of the look-back window. */
  private async recent(): Promise<{ id: string; limiter: string; spent: Record<string, number> }[]> {
    const { rows } = await this.db.pool.query<{ id: string; limiter: string; spent: Record<string, number> }>(
      `SELECT id, limiter, spent FROM rate_spent WHERE node <> $1 AND at > now() - interval '${LOOK_BACK_SECONDS} seconds'`,
      [this.node],
    );
    return rows;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
