// The main thread's side of the front threads (workers/front.ts, front-thread.ts). Each is a
// worker thread with a uWS app of its own; the main thread's acceptor hands connections round
// robin to its own app and theirs (HttpServer.listen). A front thread answers the lookups and
// searches itself, from a view of the collection this side keeps up with every generation, over
// query ports of its own to the shard workers; every other request it relays here, where the
// route's pipeline answers it (relayed-request.ts). This side also:
// - gives each thread the rate limiter's shared buckets, and what its own answers need of this
//   thread's state as it changes (the licence's rate entitlement, readiness); and (with --database) collects what each address spent there;
// - asks the threads for their counts when /metrics is scraped;
// - starts a thread that died again, its app leaving the acceptor meanwhile: its clients'
//   connections are cut, nothing it answers is stored, so nothing accepted is lost.

import { Worker, type MessagePort } from "node:worker_threads";
import type { Collection } from "../engine/collection.js";
import type { ShardPool } from "../engine/pool.js";
import { RestartBackoff } from "../os/restart-backoff.js";
import type { FromFront, FrontCounts, FrontRoute, FrontThreadData, LiveMeta, FrontStatus, ToFront } from "./front-protocol.js";
import type { Metrics } from "./metrics.js";
import type { RateLimiter } from "./rate-limit.js";
import { RelayedResponse, relayedPair } from "./relayed-request.js";
import { SharedStatus } from "./shared-status.js";
import type { HttpServer } from "./server.js";

type Transferable = ArrayBuffer | MessagePort;

/** How long a thread may take to open a generation, or let go of one, before it is left out. */
const ANSWER_TIMEOUT_MS = 60_000;
/** How long a thread may take to close its connections and end. */
const CLOSE_TIMEOUT_MS = 5_000;
/** How long a scrape waits for a thread's counts. */
const COUNTS_TIMEOUT_MS = 2_000;
/** How often the state the threads were given (licence, readiness) is compared with this thread's. */
const STATUS_CHECK_MS = 1_000;

export interface FrontThreadsOptions {
  /** threads besides the main one */
  count: number;
  pool: ShardPool;
  collection: Collection;
  server: HttpServer;
  metrics: Metrics;
  limiter: RateLimiter;
  trustProxy: string[];
  /** each thread's answer cache */
  cacheBytes: number;
  /** search rounds each thread answers itself (--front-search-budget) */
  searchBudget: number;
  /** what the threads' own answers need of this thread's state, now */
  status: () => FrontStatus;
  /** whether the server takes licences */
  acceptsLicenses: boolean;
  /** the OpenAPI document */
  openApi: () => object;
  log: (line: string) => void;
}

class FrontThread {
  worker: Worker | null = null;
  descriptor: number | null = null;
  counts: FrontCounts | null = null;
  readonly restarts = new RestartBackoff();
  constructor(readonly index: number) {}
}

export class FrontThreads {
  private readonly threads: FrontThread[];
  private nextId = 1;
  private readonly waiting = new Map<number, { thread: FrontThread; resolve: () => void }>();
  /** relayed requests being answered, by thread and relay id */
  private readonly relayed = new Map<string, RelayedResponse>();
  private status = "";
  /** what the threads' own answers read of this thread's state */
  private readonly shared = new SharedStatus<FrontStatus>(SharedStatus.create());
  private statusTimer: NodeJS.Timeout | null = null;
  private stopping = false;

  constructor(private readonly options: FrontThreadsOptions) {
    this.threads = Array.from({ length: options.count }, (_, i) => new FrontThread(i));
    const { collection, pool } = options;
    collection.followers = {
      opened: (gen, slices) => this.everyThread((id) => ({ op: "open", id, gen, slices })),
      released: (gen) => this.everyThread((id) => ({ op: "release", id, gen })),
    };
    collection.onSwap((live) => this.broadcast({ op: "swap", live: metaOf(live) }));
    pool.onWorkerDown = (worker) => this.broadcast({ op: "down", worker });
    pool.onWorkerServes = (worker) => this.broadcast({ op: "serve", worker });
  }

  /** Starts every thread; resolves with their apps' descriptors once each is ready. */
  async start(): Promise<number[]> {
    const descriptors = await Promise.all(this.threads.map((t) => this.startThread(t)));
    this.publishStatus();
    this.statusTimer = setInterval(() => this.publishStatus(), STATUS_CHECK_MS);
    this.statusTimer.unref();
    return descriptors;
  }

  private startThread(thread: FrontThread): Promise<number> {
    const { server, collection, limiter } = this.options;
    const options = this.options;
    const live = collection.current;
    const data: FrontThreadData = {
      routes: server.routes.map((r): FrontRoute => ({
        method: r.method,
        pattern: r.pattern,
        name: r.options.name,
        cors: r.options.cors === true,
        takesBody: r.options.maxBodyBytes !== undefined || r.options.uploadDir !== undefined,
      })),
      shardThreads: options.pool.threads,
      workerLoads: options.pool.loads.buffer,
      rateLimit: limiter.limit,
      rateWindowSeconds: limiter.windowSeconds,
      buckets: limiter.sharedBuffer,
      trustProxy: options.trustProxy,
      cacheBytes: options.cacheBytes,
      searchBudget: options.searchBudget,
      openApi: JSON.stringify(options.openApi()),
      status: this.shared.buffer,
      acceptsLicenses: options.acceptsLicenses,
      generations: collection.servedFiles(),
      live: live ? metaOf(live) : null,
    };
    const worker = new Worker(new URL("../../workers/front.js", import.meta.url), { workerData: data });
    thread.worker = worker;
    thread.restarts.started();
    return new Promise((resolve, reject) => {
      let ready = false;
      worker.on("message", (m: FromFront) => {
        if (m.op === "ready") {
          ready = true;
          thread.descriptor = m.descriptor;
          resolve(m.descriptor);
        } else this.onMessage(thread, m);
      });
      worker.on("error", (err) => {
        if (!ready) reject(err);
        else this.options.log(`front thread ${thread.index} failed: ${err.message}`);
      });
      worker.on("exit", () => this.exited(thread, worker, ready));
    });
  }

  /** A thread that died: its app leaves the acceptor, its relayed requests are dropped, and it starts again. */
  private exited(thread: FrontThread, worker: Worker, wasReady: boolean): void {
    if (thread.worker !== worker) return;
    thread.worker = null;
    if (thread.descriptor !== null) this.options.server.removeFrontApp(thread.descriptor);
    thread.descriptor = null;
    for (const [key, response] of this.relayed) if (key.startsWith(`${thread.index}:`)) response.abort();
    for (const [id, w] of this.waiting) if (w.thread === thread) this.settle(id);
    if (this.stopping || !wasReady) return;
    const delay = thread.restarts.died();
    this.options.log(`front thread ${thread.index} stopped; starting it again in ${delay} ms`);
    setTimeout(() => {
      this.startThread(thread).then(
        (descriptor) => this.options.server.addFrontApp(descriptor),
        (err: Error) => this.options.log(`front thread ${thread.index} could not start again: ${err.message}`),
      );
    }, delay).unref();
  }

  private onMessage(thread: FrontThread, m: FromFront): void {
    switch (m.op) {
      case "done":
        this.settle(m.id);
        return;
      case "counts":
        thread.counts = m.counts;
        this.settle(m.id);
        return;
      case "port":
        this.options.pool.openPort(m.worker).then(
          (port) => this.post(thread, { op: "port", id: m.id, port }, [port]),
          (err: Error) => this.post(thread, { op: "port", id: m.id, error: err.message }),
        );
        return;
      case "log":
        this.options.log(m.line);
        return;
      case "spent":
        for (const [ip, tokens] of m.spent) this.options.limiter.addSpent(ip, tokens);
        return;
      case "request": {
        const key = `${thread.index}:${m.rid}`;
        const response = new RelayedResponse(
          m.rid,
          m.peer,
          (message, transfer) => this.post(thread, message, transfer),
          () => this.relayed.delete(key),
        );
        this.relayed.set(key, response);
        const { res, raw } = relayedPair(m, response);
        this.options.server.dispatchRelayed(m.route, res, raw);
        return;
      }
      case "body":
        this.relayed.get(`${thread.index}:${m.rid}`)?.body(m.chunk, m.last);
        return;
      case "aborted":
        this.relayed.get(`${thread.index}:${m.rid}`)?.abort();
        return;
      case "drained":
        this.relayed.get(`${thread.index}:${m.rid}`)?.drained(m.bytes);
        return;
    }
  }

  /** Each thread's counts, asked afresh (a thread that does not answer in time keeps its last). */
  async refreshCounts(): Promise<FrontCounts[]> {
    await this.everyThread((id) => ({ op: "counts", id }), COUNTS_TIMEOUT_MS);
    return this.threads.flatMap((t) => (t.counts ? [t.counts] : []));
  }

  /** Requests that arrived on each thread's connections, as of the last counts: [thread number, count] (the main thread is 0). */
  received(): [number, number][] {
    return this.threads.map((t) => [t.index + 1, t.counts?.received ?? 0]);
  }

  /** Requests the threads sent to shard worker w, as of the last counts. */
  shardRequestsSent(w: number): number {
    return this.threads.reduce((sum, t) => sum + (t.counts?.shardRequests[w] ?? 0), 0);
  }

  /** Has every thread answer what it holds, closing each connection after its answer, as HttpServer.drain does. */
  async drain(): Promise<void> {
    this.stopping = true;
    await this.everyThread((id) => ({ op: "drain", id }));
  }

  /** Ends every thread, each closing its connections first (terminated only if it does not end in time). */
  async close(): Promise<void> {
    this.stopping = true;
    if (this.statusTimer) clearInterval(this.statusTimer);
    await Promise.all(
      this.threads.map(async (t) => {
        const worker = t.worker;
        if (!worker) return;
        const ended = new Promise<boolean>((resolve) => {
          worker.once("exit", () => resolve(true));
          setTimeout(() => resolve(false), CLOSE_TIMEOUT_MS).unref();
        });
        this.post(t, { op: "stop" });
        if (!(await ended)) await worker.terminate();
      }),
    );
  }

  /** Writes this thread's state for the front threads when it has changed: the next request on any of them reads it. */
  publishStatus(): void {
    const status = this.options.status();
    const text = JSON.stringify(status);
    if (text === this.status) return;
    this.status = text;
    this.shared.write(status);
  }

  private post(thread: FrontThread, message: ToFront, transfer: Transferable[] = []): void {
    try {
      thread.worker?.postMessage(message, transfer);
    } catch {
      // a thread exiting: its exit handler cleans up
    }
  }

  private broadcast(message: ToFront): void {
    for (const thread of this.threads) this.post(thread, message);
  }

  /** One request to every running thread; resolves once each has answered, or the time is up. */
  private async everyThread(make: (id: number) => ToFront, timeoutMs = ANSWER_TIMEOUT_MS): Promise<void> {
    await Promise.all(
      this.threads
        .filter((t) => t.worker !== null)
        .map(
          (thread) =>
            new Promise<void>((resolve) => {
              const id = this.nextId++;
              const timer = setTimeout(() => {
                this.waiting.delete(id);
                resolve();
              }, timeoutMs);
              timer.unref();
              this.waiting.set(id, {
                thread,
                resolve: () => {
                  clearTimeout(timer);
                  resolve();
                },
              });
              this.post(thread, make(id));
            }),
        ),
    );
  }

  private settle(id: number): void {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    waiting?.resolve();
  }
}

function metaOf(live: LiveMeta & { family?: unknown }): LiveMeta {
  const { family: _family, ...meta } = live;
  return meta;
}
