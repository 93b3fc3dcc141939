// Load generator API: runs one load in a forked child process (see
// loadgen-child.ts) and returns its figures. The child never shares an event loop
// with the caller or with a server under test, and it is killed if it outlives
// its window by more than a grace period.

import { fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ChildMessage, LoadConfig, LoadResult, StopMessage } from "./loadgen-protocol.js";
import { onCleanup } from "./proc.js";

export type { LoadConfig, LoadResult } from "./loadgen-protocol.js";

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), "loadgen-child.js");

export interface LoadOptions {
  readonly host: string;
  readonly port: number;
  readonly paths: readonly string[];
  readonly connections: number;
  readonly durationS: number;
  readonly warmupS?: number;
  readonly order?: "cycle" | "random";
  readonly seed?: number;
  readonly requestTimeoutMs?: number;
  /** Open loop at this many requests a second (see LoadConfig.ratePerS); default closed loop. */
  readonly ratePerS?: number;
  /** POST bodies, one per path (LoadConfig.bodies); default GET. */
  readonly bodies?: readonly string[];
  /** Headers for every request (LoadConfig.headers). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Requests each connection keeps in flight, written together (LoadConfig.pipeline); default 1. */
  readonly pipeline?: number;
  /** Stop after this many requests are answered (LoadConfig.total). */
  readonly total?: number;
  /** Aborting it ends the measured window at once; the figures are those of the window so far. */
  readonly signal?: AbortSignal;
}

/** Why `pipeline` cannot be used with this loop, or null: a closed loop takes any count of 1 or more. */
export function pipelineRefusal(pipeline: number, ratePerS: number | null): string | null {
  if (!Number.isInteger(pipeline) || pipeline < 1) return "pipeline must be a whole number of requests, 1 or more";
  if (pipeline > 1 && ratePerS !== null) return "pipelining is for closed loops: an open loop sends each request when it falls due";
  return null;
}

export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  // The calling process shares the 2 cores with the server too. The bench's holds every
  // scenario's request list and the query sets (~260 MB of RSS at 1M records), and V8's memory
  // reducer collected that heap while it sat waiting, with four helper threads: both cores gone
  // for ~100 ms in the middle of a measurement. So it collects now, before the load starts, and
  // `npm run bench` runs it with --expose-gc, --single-threaded-gc and --no-memory-reducer.
  (globalThis as { gc?: () => void }).gc?.();
  const cfg: LoadConfig = {
    host: opts.host,
    port: opts.port,
    paths: opts.paths,
    connections: opts.connections,
    durationMs: Math.round(opts.durationS * 1000),
    warmupMs: Math.round((opts.warmupS ?? 2) * 1000),
    order: opts.order ?? "cycle",
    seed: opts.seed ?? 1,
    requestTimeoutMs: opts.requestTimeoutMs ?? 10_000,
    ratePerS: opts.ratePerS ?? null,
    bodies: opts.bodies ?? null,
    headers: opts.headers ?? {},
    total: opts.total ?? null,
    pipeline: opts.pipeline ?? 1,
  };
  const refusal = pipelineRefusal(cfg.pipeline, cfg.ratePerS);
  if (refusal !== null) return Promise.reject(new Error(refusal));
  return new Promise<LoadResult>((resolve, reject) => {
    // The client's own garbage collections run on its own thread: by default V8 adds up to four
    // helper threads to each one, and on a 2-core box they preempt the server under test for
    // tens of ms at a time, a stall that an open loop then reports as the server's latency.
    // --expose-gc lets the child collect its set-up's garbage before it starts measuring.
    const child = fork(CHILD, [], { stdio: ["ignore", "inherit", "inherit", "ipc"], execArgv: ["--single-threaded-gc", "--expose-gc"] });
    const unregister = onCleanup(() => child.kill("SIGKILL"));
    let settled = false;
    const finish = (err: Error | null, result?: LoadResult): void => {
      if (settled) return;
      settled = true;
      unregister();
      clearTimeout(deadline);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      if (err !== null) reject(err);
      else resolve(result!);
    };
    const deadline = setTimeout(() => finish(new Error("load generator did not report in time")), cfg.warmupMs + cfg.durationMs + 30_000);
    child.on("message", (msg: ChildMessage) => {
      if (msg.type === "result") finish(null, msg.result);
      else finish(new Error(`load generator: ${msg.message}`));
    });
    child.on("error", (err) => finish(err));
    child.on("exit", (code, signal) => finish(new Error(`load generator exited (${code ?? signal}) without a result`)));
    child.send(cfg);
    const stop = (): void => {
      if (child.connected) child.send({ type: "stop" } satisfies StopMessage);
    };
    if (opts.signal?.aborted) stop();
    else opts.signal?.addEventListener("abort", stop, { once: true });
  });
}
