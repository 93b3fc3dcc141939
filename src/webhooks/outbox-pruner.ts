// Deletes what the outbox no longer needs, on a timer: delivered rows a day after delivery, failed
// rows after 30 days, delivery-log attempts after 30 days (RETENTION_MS). Pending rows are never
// touched. Deletes run in small batches, each its own short transaction, with a turn of the event
// loop between batches, so a large backlog of old rows never holds up intake for more than one
// batch. LEIDEX_WEBHOOK_TIME_SCALE (test-only) divides the periods and the interval, like every
// other delay of area C. Retention is judged on a TrustedClock against times recorded on a
// RecordClock, so no wall-clock step makes a row look older than it is. The same pass makes due
// the retries scheduled implausibly far ahead (by a run whose clock was ahead).

import type { Metrics } from "../http/metrics.js";
import { writeFailures } from "../store/write-failure.js";
import { nextTurn } from "../os/event-loop-turns.js";
import { RETENTION_MS } from "./outbox.js";
import type { PrunableOutbox } from "./webhook-state.js";

const EVERY_MS = 60_000;
const ROWS_PER_BATCH = 500;
export const PRUNED_METRIC = "leidex_webhook_outbox_pruned_total";
export const LOG_PRUNED_METRIC = "leidex_webhook_log_pruned_total";

export interface PrunerOptions {
  scale: number;
  nowMs: () => number;
  /** the time retention is judged by (a TrustedClock: a forward clock step must not prune early); default nowMs */
  decisionNowMs?: () => number;
  /** the retry clock (a SteadyClock), for retries due implausibly far ahead; default nowMs */
  retryNowMs?: () => number;
  log: (line: string) => void;
  metrics: Metrics | null;
}

export class OutboxPruner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly outbox: PrunableOutbox,
    private readonly opts: PrunerOptions,
  ) {
    opts.metrics?.increment(PRUNED_METRIC, "Finished outbox rows deleted after their retention (delivered: 1 day, failed: 30 days).", 0);
    opts.metrics?.increment(LOG_PRUNED_METRIC, "Delivery-log attempts deleted after 30 days.", 0);
  }

  private get everyMs(): number {
    return Math.max(50, EVERY_MS / this.opts.scale);
  }

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.run().finally(() => {
        this.running = null;
      });
    }, this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One pass, unless another node has the turn: every category until nothing older than its retention is left. */
  async run(): Promise<void> {
    const scale = this.opts.scale;
    const now = this.opts.decisionNowMs ?? this.opts.nowMs;
    let rows = 0;
    let log = 0;
    try {
      if (!(await this.outbox.myTurn(this.everyMs))) return;
      const retryNow = this.opts.retryNowMs ?? this.opts.nowMs;
      let ahead = 0;
      for (;;) {
        if (this.stopped) return;
        const n = await this.outbox.dueTooFarAhead(retryNow());
        ahead += n;
        if (n < ROWS_PER_BATCH) break;
        await nextTurn();
      }
      if (ahead > 0)
        this.opts.log(`${ahead} webhook retries were due more than a day ahead (scheduled while the clock was ahead): due now`);
      for (const status of ["delivered", "failed"] as const) {
        for (;;) {
          if (this.stopped) return;
          const n = await this.outbox.pruneFinished(status, now() - RETENTION_MS[status] / scale, ROWS_PER_BATCH);
          rows += n;
          if (n < ROWS_PER_BATCH) break;
          await nextTurn();
        }
      }
      for (;;) {
        if (this.stopped) return;
        const n = await this.outbox.pruneLog(now() - RETENTION_MS.log / scale, ROWS_PER_BATCH);
        log += n;
        if (n < ROWS_PER_BATCH) break;
        await nextTurn();
      }
    } catch (err) {
      // a busy or failing disk must not take the server down; the next pass tries again
      if (!writeFailures.note("outbox pruning", err)) this.opts.log(`outbox pruning failed: ${(err as Error).message}`);
    } finally {
      if (rows > 0) this.opts.metrics?.increment(PRUNED_METRIC, "", rows);
      if (log > 0) this.opts.metrics?.increment(LOG_PRUNED_METRIC, "", log);
    }
  }
}
