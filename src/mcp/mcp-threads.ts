// The front's side of the MCP threads (workers/mcp.ts), which run the MCP SDK so that its work
// per request (a server and a transport per exchange, schema validation, JSON-RPC) never holds
// up the front's event loop. The front hands each POST that passed its HTTP checks to the thread
// with the fewest waiting, answers the threads' data calls from LeiService and FamilyService
// (front-data.ts), and writes each answer back through the request's Reply.
//
// What may go wrong is answered, never left hanging:
// - more than MAX_WAITING requests (or MAX_WAITING_BYTES of bodies) waiting on a thread: 503 with
//   Retry-After, in JSON-RPC's error shape;
// - a thread that dies, or that has answered nothing for STALL_MS while it had work and owed the
//   front nothing (it is then terminated): its waiting requests get a 503 at once, and it is
//   started again, at once after a long life, later while it keeps dying quickly (the
//   dispatchers' back-off, os/restart-backoff.ts); until then the other threads serve.

import { Worker } from "node:worker_threads";
import { JSON_RPC_TRANSPORT_ERROR, jsonRpcError } from "../http/error-shapes.js";
import type { Metrics } from "../http/metrics.js";
import type { Reply } from "../http/server.js";
import { RestartBackoff } from "../os/restart-backoff.js";
import type { DataCallMessage, FromMcpThread, McpRequestMessage, McpResponseMessage, ToMcpThread } from "./thread-protocol.js";
import type { DataAnswer, DataOp, ToolData } from "./tool-data.js";

/** Requests waiting on one thread (queued or being answered); about a second of a thread's work. */
export const MAX_WAITING = 1024;
/** Bodies waiting on one thread, in bytes (a body is at most 64 KiB). */
export const MAX_WAITING_BYTES = 16 * 1024 * 1024;
/** A thread with work that has sent nothing for this long is stuck: no honest request takes a thread this long. */
export const STALL_MS = 10_000;

const RESTARTS_METRIC = "leidex_mcp_thread_restarts_total";
const RESTARTS_HELP = "MCP threads that died or stalled and were replaced.";

class McpThread {
  worker: Worker | null = null;
  /** the SDK is loaded (before that, a slow start is not a stall) */
  ready = false;
  waiting = 0;
  waitingBytes = 0;
  /** data calls the front owes this thread: while any is open, the thread is not stalled */
  owed = 0;
  /** when the thread last showed progress, or was given work while idle */
  heardAt = 0;
  /** when a thread that died comes back */
  restartAt = 0;
  restartTimer: NodeJS.Timeout | null = null;
  readonly restarts = new RestartBackoff();

  constructor(readonly index: number) {}
}

/** One request handed to a thread. A class (ARCHITECTURE.md, garbage rules): it lives until its answer comes. */
class Waiting {
  constructor(
    readonly reply: Reply,
    readonly thread: McpThread,
    /** the JSON-RPC id, for an answer the front gives itself */
    readonly rpcId: string | number | null,
    readonly bytes: number,
  ) {}
}

export interface McpThreadsOptions {
  threads: number;
  log: (line: string) => void;
  metrics: Metrics | null;
}

export class McpThreads {
  private readonly threads: McpThread[] = [];
  private readonly waiting = new Map<number, Waiting>();
  private ids = 0;
  private watchdog: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly data: ToolData,
    private readonly opts: McpThreadsOptions,
  ) {
    for (let i = 0; i < Math.max(1, opts.threads); i++) this.threads.push(new McpThread(i));
    opts.metrics?.increment(RESTARTS_METRIC, RESTARTS_HELP, 0);
    opts.metrics?.gauge("leidex_mcp_requests_waiting", "Requests to /mcp handed to the MCP threads and not yet answered.", () => [
      [{}, this.waiting.size],
    ]);
  }

  start(): void {
    for (const thread of this.threads) this.spawn(thread);
    this.watchdog = setInterval(() => this.watch(), 1000);
    this.watchdog.unref();
  }

  /**
   * Hands one POST to a thread; its Reply is answered when the thread's answer comes, or with a
   * 503 when no thread can take it or the thread is lost.
   */
  serve(reply: Reply, headers: string[], body: string, gzip: boolean, rpcId: string | number | null): void {
    let thread: McpThread | null = null;
    for (const t of this.threads) if (t.worker !== null && (thread === null || t.waiting < thread.waiting)) thread = t;
    if (thread === null) {
      const seconds = Math.max(1, Math.ceil((Math.min(...this.threads.map((t) => t.restartAt)) - performance.now()) / 1000));
      return unavailable(reply, seconds, `the MCP thread is restarting; retry after ${seconds} s`, rpcId);
    }
    const bytes = body.length; // characters: near enough to bytes for a bound
    if (thread.waiting >= MAX_WAITING || thread.waitingBytes + bytes > MAX_WAITING_BYTES) {
      return unavailable(reply, 1, `too many MCP requests are waiting (${thread.waiting}); retry after 1 s`, rpcId);
    }
    const id = ++this.ids;
    this.waiting.set(id, new Waiting(reply, thread, rpcId, bytes));
    if (thread.waiting === 0) thread.heardAt = performance.now();
    thread.waiting++;
    thread.waitingBytes += bytes;
    const message: McpRequestMessage = { t: "request", id, headers, body, gzip };
    thread.worker!.postMessage(message);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    for (const thread of this.threads) if (thread.restartTimer) clearTimeout(thread.restartTimer);
    await Promise.all(this.threads.map((t) => t.worker?.terminate()));
  }

  private spawn(thread: McpThread): void {
    const worker = new Worker(new URL("../../workers/mcp.js", import.meta.url), { name: `mcp-${thread.index}` });
    thread.worker = worker;
    thread.ready = false;
    thread.restarts.started();
    worker.on("message", (m: FromMcpThread) => this.heard(thread, worker, m));
    worker.on("error", (err) => this.opts.log(`mcp thread ${thread.index} failed: ${err.stack ?? err.message}`));
    worker.on("exit", (code) => this.exited(thread, worker, code));
    worker.unref();
  }

  private heard(thread: McpThread, worker: Worker, m: FromMcpThread): void {
    if (thread.worker !== worker) return;
    thread.heardAt = performance.now();
    if (m.t === "response") this.answered(m);
    else if (m.t === "data") this.dataCall(thread, worker, m);
    else thread.ready = true;
  }

  private answered(m: McpResponseMessage): void {
    const w = this.waiting.get(m.id);
    if (w === undefined) return;
    this.waiting.delete(m.id);
    w.thread.waiting--;
    w.thread.waitingBytes -= w.bytes;
    // an aborted Reply writes nothing: the client is gone
    for (let i = 0; i < m.headers.length; i += 2) w.reply.header(m.headers[i], m.headers[i + 1]);
    if (m.gzipped) w.reply.send(m.status, m.gzipped, m.contentType, m.gzipped);
    else w.reply.send(m.status, m.body, m.contentType);
  }

  private dataCall(thread: McpThread, worker: Worker, m: DataCallMessage): void {
    thread.owed++;
    const reply = (answer: DataAnswer<DataOp>): void => {
      if (thread.worker !== worker) return; // the thread is gone, and its requests answered
      thread.owed--;
      thread.heardAt = performance.now();
      const message: ToMcpThread = { t: "data", id: m.id, answer };
      worker.postMessage(message);
    };
    // FrontData answers every failure itself; a rejection here would be a bug in it
    this.data.call(m.op, m.args as never).then(reply, () => reply({ failure: "internal error" }));
  }

  /** Terminates a thread that has work, owes nothing and has sent nothing for STALL_MS. */
  private watch(): void {
    const now = performance.now();
    for (const t of this.threads) {
      if (t.worker === null || !t.ready || t.waiting === 0 || t.owed > 0 || now - t.heardAt < STALL_MS) continue;
      this.opts.log(
        `mcp thread ${t.index} has answered nothing for ${Math.round((now - t.heardAt) / 1000)} s with ${t.waiting} requests waiting: replacing it`,
      );
      void t.worker.terminate();
    }
  }

  private exited(thread: McpThread, worker: Worker, code: number): void {
    if (this.stopped || thread.worker !== worker) return;
    thread.worker = null;
    this.opts.metrics?.increment(RESTARTS_METRIC, RESTARTS_HELP);
    let lost = 0;
    for (const [id, w] of this.waiting) {
      if (w.thread !== thread) continue;
      this.waiting.delete(id);
      lost++;
      unavailable(w.reply, 1, "the MCP thread answering this request stopped; retry", w.rpcId);
    }
    thread.waiting = 0;
    thread.waitingBytes = 0;
    thread.owed = 0;
    const delay = thread.restarts.died();
    thread.restartAt = performance.now() + delay;
    this.opts.log(
      `mcp thread ${thread.index} exited (code ${code}); ${lost} requests waiting on it were answered 503; restarting it${delay ? ` in ${delay} ms` : ""}`,
    );
    thread.restartTimer = setTimeout(() => {
      thread.restartTimer = null;
      if (!this.stopped) this.spawn(thread);
    }, delay);
  }
}

/** 503 with Retry-After, in JSON-RPC's error shape. */
function unavailable(reply: Reply, retryAfterSeconds: number, why: string, rpcId: string | number | null): void {
  reply
    .header("Retry-After", String(retryAfterSeconds))
    .json(503, jsonRpcError(JSON_RPC_TRANSPORT_ERROR, `Service Unavailable: ${why}`, rpcId));
}
