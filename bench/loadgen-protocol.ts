// Messages between the load generator's parent API and its child process.

import type { LatencySummary } from "./histogram.js";

export interface LoadConfig {
  readonly host: string;
  readonly port: number;
  /** Request targets (path + query), already URL-encoded. */
  readonly paths: readonly string[];
  readonly connections: number;
  readonly durationMs: number;
  readonly warmupMs: number;
  /** 'cycle' walks the list in order (shuffle it first); 'random' samples with a seeded PRNG. */
  readonly order: "cycle" | "random";
  readonly seed: number;
  /** A request outstanding this long counts as an error and its connection is replaced. */
  readonly requestTimeoutMs: number;
  /**
   * Open loop: requests are due at this fixed rate whatever the server does, and latency counts
   * from when each was due (so time spent waiting for a free connection is not hidden). Null:
   * closed loop, each connection sends its next request when the previous answer is complete.
   */
  readonly ratePerS: number | null;
  /** POST bodies, one per path (same index); null: GET requests. */
  readonly bodies: readonly string[] | null;
  /** Headers sent with every request besides Host, User-Agent and Accept (which these may replace). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Closed loop: requests each connection writes together and keeps in flight (HTTP/1.1
   * pipelining), its next ones sent once all are answered; 1: one at a time. A pipelined client
   * spends a fraction of the CPU a request that one sending them singly does, so on a box whose
   * cores the client shares with the server it measures the server, not the client. Only routes
   * answered at once can take it: uWebSockets.js closes a connection that pipelines a request
   * behind one still being answered (docs/http.md).
   */
  readonly pipeline: number;
  /** Stop once this many requests are sent and answered (the window ends then, or at durationMs); null: run for durationMs. */
  readonly total: number | null;
}

/** The parent ends the measured window early (loadgen.ts runLoad's signal). */
export interface StopMessage {
  readonly type: "stop";
}

export interface LoadResult {
  readonly durationS: number;
  readonly requests: number;
  readonly rps: number;
  readonly latency: LatencySummary;
  readonly statusCounts: Readonly<Record<string, number>>;
  readonly non2xx: number;
  readonly errors: number;
  readonly errorKinds: Readonly<Record<string, number>>;
  readonly bytesReceived: number;
  /** CPU the load generator itself used during the window, as % of one core: near 100 means the client, not the server, set the pace. */
  readonly clientCpuPct: number;
  readonly connections: number;
  readonly distinctPaths: number;
  /** Open loop only: the rate asked for, and requests still waiting for a connection at the end. */
  readonly offeredRps: number | null;
  readonly backlog: number;
}

export type ChildMessage = { readonly type: "result"; readonly result: LoadResult } | { readonly type: "error"; readonly message: string };
