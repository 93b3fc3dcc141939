// Bulk work on the front thread, in slices. A bulk request (a batch lookup, a match or reconcile
// batch) works only in turns this scheduler grants: one turn per turn of the event loop, at most
// SLICE_MS long, given round robin to the jobs that want one, with setImmediate between turns so
// that the loop answers whatever has arrived meanwhile. A /health or a lookup therefore waits at
// most about one slice, however many bulk requests are in flight. At most MAX_RUNNING jobs run at
// once (each holds its answer as it grows); later ones wait for a place in arrival order. A job
// whose client has gone away stops at its next turn, its request counted with status 499.

import { gzip } from "node:zlib";
import type { Metrics } from "./metrics.js";
import { GZIP_LEVEL, type Reply } from "./server.js";

/** How long one turn may run. */
export const SLICE_MS = 1;
/** Jobs running at once; each holds its answer until it is sent. */
export const MAX_RUNNING = 32;
/** What a request whose client went away mid-work is counted as (nginx's "client closed request"). */
export const CLIENT_GONE = 499;

export class FrontWork {
  /** jobs waiting for a turn, first come first served, from `head` on */
  private turns: BulkJob[] = [];
  private head = 0;
  /** requests waiting for a place to run, in arrival order */
  private places: PlaceWait[] = [];
  private placesHead = 0;
  private running = 0;
  private holder: BulkJob | null = null;
  private sliceEnd = 0;
  private scheduled = false;
  private readonly grantNext = (): void => this.grant();

  constructor(
    metrics: Metrics | null = null,
    private readonly sliceMs = SLICE_MS,
    private readonly maxRunning = MAX_RUNNING,
  ) {
    metrics?.gauge(
      "leidex_bulk_requests",
      "Bulk requests (batch lookups, match and reconcile batches) the front holds: running, or waiting for a place to run.",
      () => [
        [{ state: "running" }, this.running],
        [{ state: "waiting" }, this.places.length - this.placesHead],
      ],
      ["state"],
    );
  }

  /**
   * A job for this request once a place to run is free, or null when its client went away while
   * it waited (the request is then counted as 499). Call job.finish() when done, whatever happens.
   */
  start(reply: Reply): Promise<BulkJob | null> {
    if (this.running < this.maxRunning) {
      this.running++;
      return Promise.resolve(new BulkJob(this, reply));
    }
    return new Promise((resolve) => {
      this.places.push(new PlaceWait(reply, resolve));
    });
  }

  /** A job is done: its place goes to the next request waiting whose client is still there. */
  finished(): void {
    this.running--;
    while (this.placesHead < this.places.length && this.running < this.maxRunning) {
      const wait = this.places[this.placesHead++];
      if (wait.reply.aborted) {
        abandon(wait.reply);
        wait.resolve(null);
        continue;
      }
      this.running++;
      wait.resolve(new BulkJob(this, wait.reply));
    }
    if (this.placesHead > 1024 && this.placesHead * 2 > this.places.length) {
      this.places = this.places.slice(this.placesHead);
      this.placesHead = 0;
    }
  }

  /** Whether `job` holds the current turn and has time left in it. */
  hasTime(job: BulkJob): boolean {
    return this.holder === job && performance.now() < this.sliceEnd;
  }

  /** Queues `job` for a turn. */
  queue(job: BulkJob): void {
    this.turns.push(job);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.grantNext);
    }
  }

  /**
   * One turn of the loop: the next job in line gets the slice (it runs in the microtasks right
   * after this callback), and the turn after it is scheduled for the next turn of the loop, past
   * the I/O that has arrived by then.
   */
  private grant(): void {
    this.scheduled = false;
    this.holder = null;
    while (this.head < this.turns.length) {
      const job = this.turns[this.head++];
      if (job.reply.aborted) {
        job.resume(false); // its client is gone: it stops without the turn
        continue;
      }
      this.holder = job;
      this.sliceEnd = performance.now() + this.sliceMs;
      job.resume(true);
      break;
    }
    if (this.head === this.turns.length) {
      this.turns = [];
      this.head = 0;
    } else {
      this.scheduled = true;
      setImmediate(this.grantNext);
    }
  }
}

/** A request waiting for a place to run. */
class PlaceWait {
  constructor(
    readonly reply: Reply,
    readonly resolve: (job: BulkJob | null) => void,
  ) {}
}

/** One bulk request's work. */
export class BulkJob {
  private resolveTurn: ((go: boolean) => void) | null = null;
  private done = false;

  constructor(
    private readonly work: FrontWork,
    readonly reply: Reply,
  ) {}

  /** Whether the job may go on now: it holds the turn and its slice is not spent. */
  get hasTime(): boolean {
    return this.work.hasTime(this);
  }

  /**
   * Waits for the job's next turn; false when its client has gone away (stop then, and the
   * request is counted as 499). Work between turns is what the caller checks hasTime for.
   */
  turn(): Promise<boolean> {
    if (this.reply.aborted) return Promise.resolve(this.stop());
    return new Promise((resolve) => {
      this.resolveTurn = resolve;
      this.work.queue(this);
    });
  }

  /** Called by the scheduler with the turn, or false for a job whose client is gone. */
  resume(go: boolean): void {
    const resolve = this.resolveTurn;
    this.resolveTurn = null;
    resolve?.(go ? true : this.stop());
  }

  /** The place is given up; call it once, when the job ends however it ends. */
  finish(): void {
    if (this.done) return;
    this.done = true;
    this.work.finished();
  }

  private stop(): false {
    abandon(this.reply);
    return false;
  }
}

/** A request whose client went away: nothing is written, it is counted as 499. */
function abandon(reply: Reply): void {
  reply.send(CLIENT_GONE, "", "text/plain");
}

/** Bodies from this size are compressed on zlib's thread pool rather than on the front. */
const OFF_THREAD_GZIP_BYTES = 64 * 1024;
const JSON_TYPE = "application/json; charset=utf-8";

/**
 * A bulk answer, sent: as Reply.json() would, but a large body a client takes gzipped is
 * compressed on zlib's thread pool (the same level, so the same bytes) instead of on the front.
 */
export function sendJson(reply: Reply, status: number, body: Buffer): Promise<void> {
  if (!reply.acceptsGzip || body.length < OFF_THREAD_GZIP_BYTES || reply.aborted) {
    reply.json(status, body);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    gzip(body, { level: GZIP_LEVEL }, (err, gzipped) => {
      if (err) reply.json(status, body);
      else reply.send(status, body, JSON_TYPE, gzipped);
      resolve();
    });
  });
}
