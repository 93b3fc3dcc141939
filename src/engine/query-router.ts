// Where a thread's shard requests go: queued per generation and slice, they leave in batches
// once the current event-loop turn has handed over every request it parsed (setImmediate), to
// the least busy serving worker, split evenly among the idle ones, at most MAX_IN_FLIGHT batches
// a worker, and to a worker resting (worker-loads.ts) only when no other serves. Each batch
// travels over the thread's own query channel to that worker (slice-channel.ts). Every thread
// that answers queries (the main front and each front thread) has a router of its own; any
// worker answers any slice of a live generation (pool.ts).

import { availableParallelism } from "node:os";
import type { MessagePort } from "node:worker_threads";
import { decodeResponses, encodeRequests } from "./shard-codec.js";
import type { ShardRequest, ShardResponse } from "./protocol.js";
import { SliceChannel } from "./slice-channel.js";
import type { WorkerLoads } from "./worker-loads.js";

const MAX_IN_FLIGHT = 2;
const MAX_BATCH = 128;

interface Pending {
  request: ShardRequest;
  resolve: (r: ShardResponse) => void;
}

export class QueryRouter {
  /** waiting requests by generation, then slice */
  private readonly queues = new Map<number, Map<number, Pending[]>>();
  private readonly inFlight: number[];
  /** requests sent to each worker since start */
  readonly requestsSent: number[];
  /** whether the worker serves every live slice: false from its death until its successor does */
  private readonly serving: boolean[];
  private flushScheduled = false;
  private readonly channels: (SliceChannel | null)[];
  private readonly attaching: (Promise<SliceChannel> | null)[];

  constructor(
    /** what every thread's router shares of each worker */
    private readonly loads: WorkerLoads,
    /** a fresh query port to worker w (its other end attached there) */
    private readonly openPort: (worker: number) => Promise<MessagePort>,
    /** workers batches spread over before the others take any: the cores this process may run on */
    private readonly spread = availableParallelism(),
  ) {
    const threads = loads.threads;
    this.inFlight = new Array<number>(threads).fill(0);
    this.requestsSent = new Array<number>(threads).fill(0);
    this.serving = new Array<boolean>(threads).fill(true);
    this.channels = new Array<SliceChannel | null>(threads).fill(null);
    this.attaching = new Array<Promise<SliceChannel> | null>(threads).fill(null);
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

  private get threads(): number {
    return this.loads.threads;
  }

  /** Worker w is gone: its batches in flight fail, and it takes no more until serve(w). */
  down(w: number, reason: string): void {
    this.serving[w] = false;
    this.channels[w]?.close(reason);
    this.channels[w] = null;
  }

  /** Worker w (a successor) serves every live slice again. */
  serve(w: number): void {
    this.serving[w] = true;
    this.scheduleFlush();
  }

  close(reason: string): void {
    for (let w = 0; w < this.threads; w++) this.down(w, reason);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /**
   * The serving worker with the fewest batches in flight and room for one more, or -1: among the
   * first `spread` awake ones while one of those has room. Resting workers only when every
   * serving worker rests.
   */
  private leastBusy(): number {
    let first = -1;
    let overflow = -1;
    let resting = -1;
    let awake = 0;
    for (let w = 0; w < this.threads; w++) {
      if (!this.serving[w]) continue;
      const rests = this.loads.resting(w);
      if (!rests) awake++;
      if (this.inFlight[w] >= MAX_IN_FLIGHT) continue;
      if (rests) resting = this.lessBusy(w, resting);
      else if (awake <= this.spread) first = this.lessBusy(w, first);
      else overflow = this.lessBusy(w, overflow);
    }
    if (awake === 0) return resting;
    return first >= 0 ? first : overflow;
  }

  /** w or best (-1: none yet), whichever has fewer batches in flight; best on a tie. */
  private lessBusy(w: number, best: number): number {
    return best < 0 || this.inFlight[w] < this.inFlight[best] ? w : best;
  }

  /** Idle awake workers among the first `spread` awake ones: those a flush splits its queue over. */
  private idleWorkers(): number {
    let idle = 0;
    let awake = 0;
    for (let w = 0; w < this.threads && awake < this.spread; w++) {
      if (!this.serving[w] || this.loads.resting(w)) continue;
      awake++;
      if (this.inFlight[w] === 0) idle++;
    }
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
    this.loads.sent(w);
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
        this.loads.settled(w);
        this.flush();
      });
  }

  /** Worker w's query channel, once opened; concurrent callers share one attempt. */
  private attach(w: number): Promise<SliceChannel> {
    const pending = this.attaching[w];
    if (pending) return pending;
    // cleared once settled, so that a failed attempt is not the answer for good
    const attempt = this.openPort(w)
      .then((port) => (this.channels[w] = new SliceChannel(port)))
      .finally(() => {
        this.attaching[w] = null;
      });
    this.attaching[w] = attempt;
    return attempt;
  }
}
