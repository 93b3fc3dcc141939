// The Piscina pool of shard workers. Each worker claims a number at start-up (a shared array maps
// number -> thread id), and a task for worker w goes to its holder: the tasks that build and open
// a slice go to the worker that holds its builder or opens its memory (see Collection), and every
// other worker then serves the slice from that same memory (shard.ts "adopt").
// Requests may go to any worker, since every worker serves every slice of a live generation.
// They are queued per slice and generation and leave in batches once the current event-loop turn
// has handed over every request it parsed (setImmediate): to the least busy workers, split
// evenly among the idle ones, at most MAX_IN_FLIGHT batches a worker. Each batch travels over the
// worker's query channel (slice-channel.ts); that keeps the per-message cost off each query.

import { availableParallelism } from "node:os";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { Piscina } from "piscina";
import { decodeResponses, encodeRequests } from "./shard-codec.js";
import { type ShardRequest, type ShardResponse, type ShardTask } from "./protocol.js";
import { SliceChannel } from "./slice-channel.js";

type PiscinaWorker = Parameters<NonNullable<ConstructorParameters<typeof Piscina>[0]>["loadBalancer"] & {}>[1][number];
type PiscinaTask = Parameters<NonNullable<ConstructorParameters<typeof Piscina>[0]>["loadBalancer"] & {}>[0];

const MAX_IN_FLIGHT = 2;
/**
 * A shard's young generation, in MB. V8's default (about 48 MB a thread) is sized for
 * throughput; a shard's garbage is a query's few KB, or a record being indexed, so a smaller
 * nursery costs little and keeps a reload's peak lower: each thread holds its nursery in full.
 */
export const WORKER_YOUNG_GENERATION_MB = 12;
const MAX_BATCH = 128;
/** How long a replaced worker's successor may take to claim its number. */
const CLAIM_TIMEOUT_MS = 30_000;

interface Pending {
  request: ShardRequest;
  resolve: (r: ShardResponse) => void;
}

export class ShardPool {
  readonly threads: number;
  private readonly claims: Int32Array;
  private readonly piscina: Piscina;
  /** waiting requests by generation, then slice */
  private readonly queues = new Map<number, Map<number, Pending[]>>();
  private readonly inFlight: number[];
  /** requests sent to each worker since start */
  readonly requestsSent: number[];
  /** whether the worker serves every live slice: false while a replaced worker's successor adopts them */
  private readonly serving: boolean[];
  private flushScheduled = false;
  private readonly channels: (SliceChannel | null)[];
  private readonly attaching: (Promise<SliceChannel> | null)[];
  private closing = false;
  /** Serves every live slice on worker w, whose thread was replaced; it takes requests once this settles. */
  adoptInto: ((worker: number) => Promise<void>) | null = null;
  /** Called when a worker died, with what became of its successor. */
  onWorkerReplaced: ((worker: number, error: Error | null) => void) | null = null;

  constructor(threads = availableParallelism()) {
    this.threads = threads;
    const shared = new SharedArrayBuffer(4 * threads);
    this.claims = new Int32Array(shared);
    this.inFlight = new Array<number>(threads).fill(0);
    this.requestsSent = new Array<number>(threads).fill(0);
    this.serving = new Array<boolean>(threads).fill(true);
    this.channels = new Array<SliceChannel | null>(threads).fill(null);
    this.attaching = new Array<Promise<SliceChannel> | null>(threads).fill(null);
    this.piscina = new Piscina({
      filename: new URL("../../workers/shard.js", import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
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
    // a dead worker's number is released for its successor, which serves the live slices again
    this.piscina.on("workerDestroy", (worker: PiscinaWorker) => {
      for (let w = 0; w < threads; w++) {
        if (Atomics.compareExchange(this.claims, w, worker.id, 0) !== worker.id) continue;
        this.serving[w] = false;
        this.dropChannel(w, `shard worker ${w} is gone`);
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
      this.serving[w] = true;
      this.scheduleFlush();
    } catch (err) {
      error = err as Error;
    }
    this.onWorkerReplaced?.(w, error);
  }

  /** One task to worker w (a number below `threads`). */
  run<T>(w: number, task: ShardTask, transfer: (ArrayBuffer | MessagePort)[] = []): Promise<T> {
    const routed = Object.assign(task, { [Piscina.queueOptionsSymbol]: { worker: w } });
    return this.piscina.run(routed, { transferList: transfer }) as Promise<T>;
  }

  /**
   * One task to each worker but those of `except`: the same task, or one made for each worker.
   * Settles only once every worker has answered, rejecting with the first error: a caller
   * cleaning up after a failure must not race workers still writing files, nor see a later
   * error in place of the first.
   */
  broadcast<T>(task: ShardTask | ((w: number) => ShardTask), except: ReadonlySet<number> = new Set()): Promise<T[]> {
    const runs: Promise<T>[] = [];
    for (let w = 0; w < this.threads; w++)
      if (!except.has(w)) runs.push(this.run<T>(w, typeof task === "function" ? task(w) : { ...task }));
    return allSettledOrFirstError(runs);
  }

  /** One request to one slice of a generation, batched with its neighbours in time. */
  request(slice: number, gen: number, request: ShardRequest): Promise<ShardResponse> {
    return new Promise((resolve) => {
      let bySlice = this.queues.get(gen);
      if (!bySlice) this.queues.set(gen, (bySlice = new Map()));
      let queue = bySlice.get(slice);
      if (!queue) bySlice.set(slice, (queue = []));
      queue.push({ request, resolve });
      // with every worker busy, the next batch to finish sends what waits (send's finally)
      if (this.leastBusy() >= 0) this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /** The serving worker with the fewest batches in flight and room for one more, or -1. */
  private leastBusy(): number {
    let best = -1;
    for (let w = 0; w < this.threads; w++)
      if (this.serving[w] && this.inFlight[w] < MAX_IN_FLIGHT && (best < 0 || this.inFlight[w] < this.inFlight[best])) best = w;
    return best;
  }

  private idleWorkers(): number {
    let idle = 0;
    for (let w = 0; w < this.threads; w++) if (this.serving[w] && this.inFlight[w] === 0) idle++;
    return idle;
  }

  /** Sends queued requests as batches while some worker has room for one. */
  private flush(): void {
    for (const [gen, bySlice] of this.queues) {
      for (const [slice, queue] of bySlice) {
        while (queue.length > 0) {
          const w = this.leastBusy();
          if (w < 0) return;
          const size = Math.min(MAX_BATCH, Math.ceil(queue.length / Math.max(1, this.idleWorkers())));
          this.send(w, gen, slice, queue.splice(0, size));
        }
        bySlice.delete(slice);
      }
      this.queues.delete(gen);
    }
  }

  private send(w: number, gen: number, slice: number, items: Pending[]): void {
    this.inFlight[w]++;
    this.requestsSent[w] += items.length;
    const payload = encodeRequests(items.map((p) => p.request));
    // answers come in order, possibly in parts: each resolves the next waiting requests
    let answered = 0;
    const onPart = (bytes: Uint8Array): void => {
      for (const response of decodeResponses(bytes)) if (answered < items.length) items[answered++].resolve(response);
    };
    const channel = this.channels[w];
    const batch = { gen, slice, payload };
    const batchSent = channel?.open ? channel.ask(batch, onPart) : this.attach(w).then((c) => c.ask(batch, onPart));
    batchSent
      .then(
        () => {
          for (; answered < items.length; answered++) items[answered].resolve({ kind: "error", message: "missing response" });
        },
        (err: Error) => {
          for (; answered < items.length; answered++)
            items[answered].resolve({ kind: "error", message: `shard worker ${w} failed: ${err.message}` });
        },
      )
      .finally(() => {
        this.inFlight[w]--;
        this.flush();
      });
  }

  /** Worker w's query channel, once opened; concurrent callers share one attempt. */
  private attach(w: number): Promise<SliceChannel> {
    const pending = this.attaching[w];
    if (pending) return pending;
    // cleared once settled, so that a failed attempt is not the answer for good
    const attempt = this.openChannel(w).finally(() => {
      this.attaching[w] = null;
    });
    this.attaching[w] = attempt;
    return attempt;
  }

  private async openChannel(w: number): Promise<SliceChannel> {
    const { port1, port2 } = new MessageChannel();
    try {
      await this.run(w, { op: "attach", port: port2 }, [port2]);
    } catch (err) {
      port1.close();
      throw err;
    }
    return (this.channels[w] = new SliceChannel(port1));
  }

  private dropChannel(w: number, reason: string): void {
    this.channels[w]?.close(reason);
    this.channels[w] = null;
  }

  async close(): Promise<void> {
    this.closing = true;
    for (let w = 0; w < this.threads; w++) this.dropChannel(w, "the shard pool is closing");
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
