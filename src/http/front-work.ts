// Bulk work on the front thread, in slices. A bulk request (a batch lookup, a match or reconcile
// batch) works only in turns this scheduler grants: one turn per turn of the event loop, at most
// SLICE_MS long, given round robin to the jobs that want one, with setImmediate between turns so
// that the loop answers whatever has arrived meanwhile. A /health or a lookup therefore waits at
// most about one slice, however many bulk requests are in flight. At most MAX_RUNNING jobs run at
// once (each holds its answer as it grows); later ones wait for a place in arrival order. A job
// whose client has gone away stops at its next turn, its request counted with status 499. A
// request's body is parsed and checked in a turn too: a burst of them arrives in one read.

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
  /** jobs waiting for a place to run, in arrival order, from `placesHead` on */
  private places: BulkJob[] = [];
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
   * The work of one request: it runs only in turns (BulkJob.turn()), and once its body is
   * checked, in one of the places to run (BulkJob.place()). Call its finish() when done.
   */
  job(reply: Reply): BulkJob {
    return new BulkJob(this, reply);
  }

  /** Whether `job` holds the current turn and has time left in it. */
  hasTime(job: BulkJob): boolean {
    return this.holder === job && performance.now() < this.sliceEnd;
  }

  /** Queues `job` for a turn. */
  queueTurn(job: BulkJob): void {
    this.turns.push(job);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.grantNext);
    }
  }

  /** Gives `job` a place to run at once, or queues it for one; true when given. */
  takePlace(job: BulkJob): boolean {
    if (this.running < this.maxRunning) {
      this.running++;
      return true;
    }
    this.places.push(job);
    return false;
  }

  /** A place is given up: it goes to the next job waiting whose client is still there. */
  givePlace(): void {
    this.running--;
    while (this.placesHead < this.places.length && this.running < this.maxRunning) {
      const job = this.places[this.placesHead++];
      if (!job.reply.aborted) this.running++;
      job.placed(!job.reply.aborted);
    }
    if (this.placesHead === this.places.length) {
      this.places = [];
      this.placesHead = 0;
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

/** One bulk request's work. */
export class BulkJob {
  private resolveTurn: ((go: boolean) => void) | null = null;
  private resolvePlace: ((go: boolean) => void) | null = null;
  /** whether it holds one of the places to run */
  private holdsPlace = false;
  private stopped = false;

  constructor(
    private readonly work: FrontWork,
    readonly reply: Reply,
  ) {}

  /** Whether the job may go on now: it holds the turn and its slice is not spent. */
  get hasTime(): boolean {
    return this.work.hasTime(this);
  }

  /**
   * Waits for the job's next turn; false when its client has gone away (stop then: the request
   * is counted as 499). Between turns the caller checks hasTime.
   */
  turn(): Promise<boolean> {
    if (this.reply.aborted) return Promise.resolve(this.stop());
    return new Promise((resolve) => {
      this.resolveTurn = resolve;
      this.work.queueTurn(this);
    });
  }

  /** Waits for a place to run; false when its client has gone away meanwhile (stop then). */
  place(): Promise<boolean> {
    if (this.reply.aborted) return Promise.resolve(this.stop());
    if (this.work.takePlace(this)) {
      this.holdsPlace = true;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      this.resolvePlace = resolve;
    });
  }

  /** Called by the scheduler with the turn, or false for a job whose client is gone. */
  resume(go: boolean): void {
    const resolve = this.resolveTurn;
    this.resolveTurn = null;
    resolve?.(go || this.stop());
  }

  /** Called by the scheduler with a place, or false for a job whose client is gone. */
  placed(go: boolean): void {
    this.holdsPlace = go;
    const resolve = this.resolvePlace;
    this.resolvePlace = null;
    resolve?.(go || this.stop());
  }

  /** The job has ended, however it ended: its place, if it holds one, goes to the next. */
  finish(): void {
    if (!this.holdsPlace) return;
    this.holdsPlace = false;
    this.work.givePlace();
  }

  private stop(): false {
    if (!this.stopped) {
      this.stopped = true;
      abandon(this.reply);
    }
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
