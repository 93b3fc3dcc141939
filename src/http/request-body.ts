// Request bodies as they arrive from uWS. A body is kept only once its handler has claimed it,
// which handlers do after checking the caller's key: an unauthenticated body is dropped as it
// arrives (and its connection closed after the answer when much of it is still to come, see
// DRAIN_BYTES). Bodies held in memory share one budget
// across all connections, and a body has a deadline, so slow or idle senders cannot pile up memory.

import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type * as UWS from "uWebSockets.js";
import { uploadsInProgress } from "../store/uploads-in-progress.js";
import { diskFloor, DiskFullError } from "../store/disk-floor.js";

/** Answered 413. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body larger than ${limit} bytes`);
  }
}

/** Answered 408; the connection is closed. */
export class BodyTimeoutError extends Error {
  constructor(readonly seconds: number) {
    super(`request body not received within ${seconds} s`);
  }
}

/** Answered 503 with Retry-After. */
export class BodyBudgetError extends Error {
  constructor() {
    super("the server holds too many request bodies right now; retry shortly");
  }
}

/**
 * How much of a body still arriving after its answer uWS may read and drop, the connection then
 * serving on. Closing instead while the body still comes resets the connection, and many clients
 * (Node's fetch among them) then report a broken pipe rather than the answer. A longer rest, or
 * one of unknown length (chunked), closes the connection after the answer.
 */
export const DRAIN_BYTES = 8 * 1024 * 1024;

/** Bytes of bodies being received, across every connection. */
export class BodyBudget {
  private used = 0;
  constructor(readonly limitBytes: number) {}
  take(bytes: number): boolean {
    if (this.used + bytes > this.limitBytes) return false;
    this.used += bytes;
    return true;
  }
  give(bytes: number): void {
    this.used -= bytes;
  }
}

/**
 * One request's body. uWS hands chunks over right after the handler starts, so the receiver is
 * attached at once; chunks that arrive before claim() (within the handler's synchronous part)
 * are held, and a body never claimed is dropped from then on.
 */
export class BodyReceiver {
  private chunks: Buffer[] = [];
  private size = 0;
  private held = 0;
  private claimed = false;
  private dropped = false;
  private finished = false;
  private delivered = false;
  /** bytes come so far, kept or not, and whether the last has */
  private received = 0;
  private arrived = false;
  private failure: Error | null = null;
  private settle: { resolve(b: Buffer): void; reject(e: Error): void } | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    res: UWS.HttpResponse,
    private readonly limit: number,
    private readonly declared: number,
    private readonly chunked: boolean,
    private readonly budget: BodyBudget,
    deadlineSeconds: number,
  ) {
    if (declared > limit) this.failure = new BodyTooLargeError(limit);
    this.timer = setTimeout(() => this.fail(new BodyTimeoutError(deadlineSeconds)), deadlineSeconds * 1000);
    this.timer.unref();
    res.onData((chunk, isLast) => this.receive(chunk, isLast));
  }

  /** Whether the rest of the body, still to come, is more than uWS should read and drop after an answer. */
  get restTooLong(): boolean {
    return !this.arrived && (this.chunked || this.declared - this.received > DRAIN_BYTES);
  }

  claim(): Promise<Buffer> {
    if (this.dropped) return Promise.reject(new Error("a body must be claimed before the handler's first await"));
    this.claimed = true;
    if (this.failure) return Promise.reject(this.failure);
    if (this.finished) return Promise.resolve(this.take());
    return new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
    });
  }

  /** The handler returned without claiming the body: nothing more is kept. */
  dropUnclaimed(): void {
    if (this.claimed) return;
    this.dropped = true;
    this.release();
  }

  /** The client went away. */
  abort(): void {
    this.fail(new Error("the client went away"));
  }

  private receive(chunk: ArrayBuffer, isLast: boolean): void {
    this.received += chunk.byteLength;
    if (isLast) this.arrived = true;
    if (this.failure || this.finished) return;
    if (isLast) this.finished = true;
    if (this.dropped) {
      if (isLast) clearTimeout(this.timer);
      return;
    }
    this.size += chunk.byteLength;
    if (this.size > this.limit) return this.fail(new BodyTooLargeError(this.limit));
    if (!this.budget.take(chunk.byteLength)) return this.fail(new BodyBudgetError());
    this.held += chunk.byteLength;
    this.chunks.push(Buffer.from(chunk.slice(0))); // uWS reuses the chunk's memory
    if (!isLast) return;
    clearTimeout(this.timer);
    if (this.settle) this.settle.resolve(this.take());
  }

  private take(): Buffer {
    const whole = Buffer.concat(this.chunks, this.size);
    this.delivered = true;
    this.release();
    return whole;
  }

  private fail(err: Error): void {
    clearTimeout(this.timer);
    if (this.failure || this.delivered) return;
    this.failure = err;
    this.release();
    this.settle?.reject(err);
  }

  private release(): void {
    this.budget.give(this.held);
    this.held = 0;
    this.chunks = [];
  }
}

export interface UploadTarget {
  dir: string;
  limit: number;
  declared: number;
  chunked: boolean;
  /** the last chunk has arrived (taken or not) */
  ended: boolean;
  /** set by uploadBody: where arriving chunks go, and what a client going away does */
  sink: ((chunk: ArrayBuffer, last: boolean) => void) | null;
  onAbort: (() => void) | null;
}

/** How often an upload looks at the free disk, in bytes written. */
const DISK_CHECK_BYTES = 8 * 1024 * 1024;

/**
 * Writes the body chunk by chunk (uWS cannot pause a sender, so writes are synchronous). An
 * upload that would leave less free disk than the floor is refused before it starts, or stopped
 * when it gets there (DiskFullError), and its partial file removed.
 */
export function uploadBody(target: UploadTarget): Promise<string> {
  const { dir, limit, declared } = target;
  if (declared > limit) return Promise.reject(new BodyTooLargeError(limit));
  mkdirSync(dir, { recursive: true });
  const refused = diskFloor.refusal(dir, declared);
  if (refused !== null) return Promise.reject(new DiskFullError(`the upload was not started: ${refused}`));
  const path = join(dir, `upload-${Date.now()}-${randomBytes(4).toString("hex")}.golden-copy.part`);
  const fd = openSync(path, "w");
  uploadsInProgress.hold(path); // released by the load it is handed to (Reloader.importFile)
  if (declared === 0 && !target.chunked) {
    closeSync(fd);
    const whole = path.slice(0, -".part".length);
    renameSync(path, whole);
    uploadsInProgress.renamed(path, whole);
    return Promise.resolve(whole); // no body is coming
  }
  return new Promise((resolve, reject) => {
    let size = 0;
    let checked = 0;
    let done = false;
    const fail = (err: Error): void => {
      if (done) return;
      done = true;
      closeSync(fd);
      rmSync(path, { force: true });
      uploadsInProgress.release(path);
      reject(err);
    };
    target.onAbort = () => fail(new Error("the client went away during the upload"));
    target.sink = (chunk, isLast) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > limit) return fail(new BodyTooLargeError(limit));
      if (size - checked >= DISK_CHECK_BYTES) {
        checked = size;
        const stop = diskFloor.refusal(dir, 0);
        if (stop !== null) return fail(new DiskFullError(`the upload was stopped: ${stop}`));
      }
      try {
        writeSync(fd, new Uint8Array(chunk));
      } catch (err) {
        return fail(err as Error);
      }
      if (isLast) {
        done = true;
        closeSync(fd);
        // the .part name marks a file still arriving; a whole one takes its final name
        const whole = path.slice(0, -".part".length);
        renameSync(path, whole);
        uploadsInProgress.renamed(path, whole);
        resolve(whole);
      }
    };
  });
}
