// The Piscina pool of shard workers. Each worker claims a slice number at start-up (a shared array
// maps slice -> owning thread id) and the load balancer sends every task to its slice's owner. A
// generation may use fewer slices than there are threads (slice-count.ts); the rest hold none of it.
// Requests go through each slice's query channel (slice-channel.ts), attached to its owner by a
// task, and are batched per slice: a batch leaves once the current event-loop turn has handed
// over every request it parsed (setImmediate), and while a slice has batches in flight new
// requests queue and go out together. That keeps the per-message cost off each query.

import { availableParallelism } from "node:os";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { Piscina } from "piscina";
import { decodeResponses, encodeRequests } from "./shard-codec.js";
import { type ShardRequest, type ShardResponse, type ShardTask } from "./protocol.js";
import { SliceChannel } from "./slice-channel.js";

type PiscinaWorker = Parameters<NonNullable<ConstructorParameters<typeof Piscina>[0]>["loadBalancer"] & {}>[1][number];
type PiscinaTask = Parameters<NonNullable<ConstructorParameters<typeof Piscina>[0]>["loadBalancer"] & {}>[0];

const MAX_IN_FLIGHT_PER_SLICE = 2;
/**
 * A shard's young generation, in MB. V8's default (about 48 MB a thread) is sized for
 * throughput; a shard's garbage is a query's few KB, or a record being indexed, so a smaller
 * nursery costs little and keeps a reload's peak lower: each thread holds its nursery in full.
 */
export const WORKER_YOUNG_GENERATION_MB = 12;
const MAX_BATCH = 128;

interface Pending {
  request: ShardRequest;
  resolve: (r: ShardResponse) => void;
}
interface SliceQueue {
  gen: number;
  items: Pending[];
}

export class ShardUnavailableError extends Error {}

export class ShardPool {
  readonly threads: number;
  private readonly claims: Int32Array;
  private readonly piscina: Piscina;
  private readonly queues: Map<number, Pending[]>[];
  private readonly inFlight: number[];
  private readonly flushScheduled: boolean[];
  private readonly channels: (SliceChannel | null)[];
  private readonly attaching: (Promise<SliceChannel> | null)[];
  private closing = false;
  /** Called when a worker dies and its slice's data is gone with it. */
  onSliceLost: ((slice: number) => void) | null = null;

  constructor(threads = availableParallelism()) {
    this.threads = threads;
    const shared = new SharedArrayBuffer(4 * threads);
    this.claims = new Int32Array(shared);
    this.queues = Array.from({ length: threads }, () => new Map());
    this.inFlight = new Array<number>(threads).fill(0);
    this.flushScheduled = new Array<boolean>(threads).fill(false);
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
    // a dead worker's slice is released so that its replacement can claim it
    this.piscina.on("workerDestroy", (worker: PiscinaWorker) => {
      for (let s = 0; s < threads; s++) {
        if (Atomics.compareExchange(this.claims, s, worker.id, 0) !== worker.id) continue;
        this.dropChannel(s, `slice ${s} lost its shard worker`);
        if (!this.closing) this.onSliceLost?.(s);
      }
    });
  }

  private owner(task: PiscinaTask, workers: PiscinaWorker[]): PiscinaWorker | null {
    const options = (task as unknown as Record<symbol, { slice: number } | null>)[Piscina.queueOptionsSymbol];
    if (!options) return null;
    const id = Atomics.load(this.claims, options.slice);
    return workers.find((w) => w.id === id) ?? null;
  }

  /** Resolves once every slice has an owning worker (Piscina reports workers ready earlier). */
  async ready(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.claims.some((id) => id === 0)) {
      if (Date.now() > deadline) throw new Error("shard workers did not claim every slice in time");
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  run<T>(slice: number, task: ShardTask, transfer: (ArrayBuffer | MessagePort)[] = []): Promise<T> {
    const routed = Object.assign(task, { [Piscina.queueOptionsSymbol]: { slice } });
    return this.piscina.run(routed, { transferList: transfer }) as Promise<T>;
  }

  /**
   * One task to each of slices 0 … count-1 (every thread by default): the same task, or one made
   * for each slice. Settles only once every slice has answered, rejecting with the first error: a
   * caller cleaning up after a failure must not race slices still writing files, nor see a later
   * error in place of the first.
   */
  broadcast<T>(task: ShardTask | ((slice: number) => ShardTask), count = this.threads): Promise<T[]> {
    return allSettledOrFirstError(
      Array.from({ length: count }, (_, s) => this.run<T>(s, typeof task === "function" ? task(s) : { ...task })),
    );
  }

  /** One request to one slice's generation, batched with its neighbours in time. */
  request(slice: number, gen: number, request: ShardRequest): Promise<ShardResponse> {
    return new Promise((resolve) => {
      const byGen = this.queues[slice];
      let queue = byGen.get(gen);
      if (!queue) byGen.set(gen, (queue = []));
      queue.push({ request, resolve });
      if (this.inFlight[slice] < MAX_IN_FLIGHT_PER_SLICE && !this.flushScheduled[slice]) {
        this.flushScheduled[slice] = true;
        setImmediate(() => {
          this.flushScheduled[slice] = false;
          this.flush(slice);
        });
      }
    });
  }

  /** Sends queued requests as batches while the slice has room for tasks in flight. */
  private flush(slice: number): void {
    const byGen = this.queues[slice];
    for (const [gen, queue] of byGen) {
      while (queue.length > 0 && this.inFlight[slice] < MAX_IN_FLIGHT_PER_SLICE)
        this.send(slice, { gen, items: queue.splice(0, MAX_BATCH) });
      if (queue.length === 0) byGen.delete(gen);
      if (this.inFlight[slice] >= MAX_IN_FLIGHT_PER_SLICE) return;
    }
  }

  private send(slice: number, batch: SliceQueue): void {
    this.inFlight[slice]++;
    const payload = encodeRequests(batch.items.map((p) => p.request));
    const items = batch.items;
    // answers come in order, possibly in parts: each resolves the next waiting requests
    let answered = 0;
    const onPart = (bytes: Uint8Array): void => {
      for (const response of decodeResponses(bytes)) if (answered < items.length) items[answered++].resolve(response);
    };
    const channel = this.channels[slice];
    const batchSent = channel?.open
      ? channel.ask({ gen: batch.gen, payload }, onPart)
      : this.attach(slice).then((c) => c.ask({ gen: batch.gen, payload }, onPart));
    batchSent
      .then(
        () => {
          for (; answered < items.length; answered++) items[answered].resolve({ kind: "error", message: "missing response" });
        },
        (err: Error) => {
          for (; answered < items.length; answered++)
            items[answered].resolve({ kind: "error", message: `slice ${slice} failed: ${err.message}` });
        },
      )
      .finally(() => {
        this.inFlight[slice]--;
        this.flush(slice);
      });
  }

  /** The slice's query channel to its current owner, once opened; concurrent callers share one attempt. */
  private attach(slice: number): Promise<SliceChannel> {
    const pending = this.attaching[slice];
    if (pending) return pending;
    // cleared once settled, so that a failed attempt is not the answer for good
    const attempt = this.openChannel(slice).finally(() => {
      this.attaching[slice] = null;
    });
    this.attaching[slice] = attempt;
    return attempt;
  }

  private async openChannel(slice: number): Promise<SliceChannel> {
    const { port1, port2 } = new MessageChannel();
    try {
      await this.run(slice, { op: "attach", port: port2 }, [port2]);
    } catch (err) {
      port1.close();
      throw err;
    }
    return (this.channels[slice] = new SliceChannel(port1));
  }

  private dropChannel(slice: number, reason: string): void {
    this.channels[slice]?.close(reason);
    this.channels[slice] = null;
  }

  async close(): Promise<void> {
    this.closing = true;
    for (let s = 0; s < this.threads; s++) this.dropChannel(s, "the shard pool is closing");
    await this.piscina.destroy();
  }
}

/** Every promise's value once all have settled; else the error of the first to reject. */
async function allSettledOrFirstError<T>(runs: Promise<T>[]): Promise<T[]> {
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
