// The Piscina pool of shard workers. Each worker claims a number at start-up (a shared array maps
// number -> thread id), and a task for worker w goes to its holder: the tasks that build and open
// a slice go to the worker that holds its builder or opens its memory (see Collection), and every
// other worker then serves the slice from that same memory (shard.ts "adopt").
// Workers 0 … threads-1 serve requests, and may go to any, since each serves every slice of a live
// generation: this thread's go through its QueryRouter (query-router.ts); a front thread gets
// query ports of its own (openPort) for a router of its own. One more worker, `builder`, takes no
// requests: it builds the slices of a reload, whose long steps would hold up every request sent
// to a worker busy with them.

import { availableParallelism } from "node:os";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { Piscina } from "piscina";
import type { ShardRequest, ShardResponse, ShardTask } from "./protocol.js";
import { QueryRouter } from "./query-router.js";
import { WorkerLoads } from "./worker-loads.js";

type PiscinaWorker = Parameters<NonNullable<ConstructorParameters<typeof Piscina>[0]>["loadBalancer"] & {}>[1][number];
type PiscinaTask = Parameters<NonNullable<ConstructorParameters<typeof Piscina>[0]>["loadBalancer"] & {}>[0];

/**
 * A shard's young generation, in MB. V8's default (about 48 MB a thread) is sized for
 * throughput; a shard's garbage is a query's few KB, or a record being indexed, so a smaller
 * nursery costs little and keeps a reload's peak lower: each thread holds its nursery in full.
 */
export const WORKER_YOUNG_GENERATION_MB = 12;
/** How long a replaced worker's successor may take to claim its number. */
const CLAIM_TIMEOUT_MS = 30_000;

export class ShardPool {
  /** the workers that serve requests, 0 … threads-1 */
  readonly threads: number;
  /** the worker that builds a reload's slices and serves no requests */
  readonly builder: number;
  private readonly claims: Int32Array;
  /** what every thread's router shares of each serving worker; a front thread's router gets its buffer */
  readonly loads: WorkerLoads;
  private readonly piscina: Piscina;
  /** this thread's requests */
  private readonly router: QueryRouter;
  private closing = false;
  /** Serves every live slice on worker w, whose thread was replaced; it takes requests once this settles. */
  adoptInto: ((worker: number) => Promise<void>) | null = null;
  /** Called when a worker died, before its successor serves. */
  onWorkerDown: ((worker: number) => void) | null = null;
  /** Called when a dead worker's successor serves every live slice. */
  onWorkerServes: ((worker: number) => void) | null = null;
  /** Called with the uncaught error that ended a worker (its successor follows: onWorkerReplaced). */
  onWorkerError: ((error: Error) => void) | null = null;
  /** Called when a worker died, with what became of its successor. */
  onWorkerReplaced: ((worker: number, error: Error | null) => void) | null = null;

  constructor(threads = availableParallelism()) {
    this.threads = threads;
    this.builder = threads;
    const workers = threads + 1;
    const shared = new SharedArrayBuffer(4 * workers);
    this.claims = new Int32Array(shared);
    this.loads = new WorkerLoads(threads);
    this.router = new QueryRouter(this.loads, (w) => this.openPort(w));
    this.piscina = new Piscina({
      filename: new URL("../../workers/shard.js", import.meta.url).href,
      minThreads: workers,
      maxThreads: workers,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: 1024,
      maxQueue: Infinity,
      // tasks as plain port messages: with atomics, Piscina parks an idle worker in Atomics.wait,
      // where its event loop stands still and its query channel goes unheard
      atomics: "disabled",
      workerData: { claims: shared },
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
      loadBalancer: (task, workers) => this.owner(task, workers),
    });
    // Piscina re-emits a worker's uncaught error on the pool: unheard, it would end the process
    this.piscina.on("error", (err: Error) => this.onWorkerError?.(err));
    // a dead worker's number is released for its successor, which serves the live slices again
    this.piscina.on("workerDestroy", (worker: PiscinaWorker) => {
      for (let w = 0; w < workers; w++) {
        if (Atomics.compareExchange(this.claims, w, worker.id, 0) !== worker.id) continue;
        if (w < threads) this.router.down(w, `shard worker ${w} is gone`);
        this.onWorkerDown?.(w);
        if (!this.closing) void this.replaced(w);
      }
    });
  }

  private owner(task: PiscinaTask, workers: PiscinaWorker[]): PiscinaWorker | null {
    const options = (task as unknown as Record<symbol, { worker: number } | null>)[Piscina.queueOptionsSymbol];
    if (!options) return null;
    const id = Atomics.load(this.claims, options.worker);
    return workers.find((w) => w.id === id) ?? null;
  }

  /** Resolves once every worker has claimed its number (Piscina reports workers ready earlier). */
  async ready(timeoutMs = CLAIM_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.claims.some((id) => id === 0)) {
      if (Date.now() > deadline) throw new Error("shard workers did not start in time");
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  private async replaced(w: number): Promise<void> {
    let error: Error | null = null;
    try {
      const deadline = Date.now() + CLAIM_TIMEOUT_MS;
      while (Atomics.load(this.claims, w) === 0) {
        if (this.closing) return;
        if (Date.now() > deadline) throw new Error(`no successor claimed shard worker ${w}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      await this.adoptInto?.(w);
      if (w < this.threads) this.router.serve(w);
      this.onWorkerServes?.(w);
    } catch (err) {
      error = err as Error;
    }
    this.onWorkerReplaced?.(w, error);
  }

  /** One task to worker w (a number up to `builder`). */
  run<T>(w: number, task: ShardTask, transfer: (ArrayBuffer | MessagePort)[] = []): Promise<T> {
    const routed = Object.assign(task, { [Piscina.queueOptionsSymbol]: { worker: w } });
    return this.piscina.run(routed, { transferList: transfer }) as Promise<T>;
  }

  /**
   * One task to each worker, the builder included, but those of `except`: the same task, or one
   * made for each worker.
   * Settles only once every worker has answered, rejecting with the first error: a caller
   * cleaning up after a failure must not race workers still writing files, nor see a later
   * error in place of the first.
   */
  broadcast<T>(task: ShardTask | ((w: number) => ShardTask), except: ReadonlySet<number> = new Set()): Promise<T[]> {
    const runs: Promise<T>[] = [];
    for (let w = 0; w <= this.builder; w++)
      if (!except.has(w)) runs.push(this.run<T>(w, typeof task === "function" ? task(w) : { ...task }));
    return allSettledOrFirstError(runs);
  }

  /** One request to one slice of a generation, batched with its neighbours in time. */
  request(slice: number, gen: number, request: ShardRequest): Promise<ShardResponse> {
    return this.router.request(slice, gen, request);
  }

  /** Requests this thread sent to each worker since start. */
  get requestsSent(): readonly number[] {
    return this.router.requestsSent;
  }

  /** A fresh query port to worker w, for a router on another thread (a front thread's). */
  async openPort(w: number): Promise<MessagePort> {
    const { port1, port2 } = new MessageChannel();
    try {
      await this.run(w, { op: "attach", port: port2 }, [port2]);
    } catch (err) {
      port1.close();
      throw err;
    }
    return port1;
  }

  async close(): Promise<void> {
    this.closing = true;
    this.router.close("the shard pool is closing");
    await this.piscina.destroy();
  }
}

/** Every promise's value once all have settled; else the error of the first to reject. */
export async function allSettledOrFirstError<T>(runs: Promise<T>[]): Promise<T[]> {
  let first: { error: unknown } | null = null;
  const values = await Promise.all(
    runs.map((run) =>
      run.catch((error: unknown) => {
        first ??= { error };
        return undefined as T;
      }),
    ),
  );
  if (first !== null) throw (first as { error: unknown }).error;
  return values;
}
