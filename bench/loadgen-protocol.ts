// Messages between the load generator's parent API and its child process.

import type { LatencySummary } from './histogram.js';

export interface LoadConfig {
  readonly host: string;
  readonly port: number;
  /** Request targets (path + query), already URL-encoded. */
  readonly paths: readonly string[];
  readonly connections: number;
  readonly durationMs: number;
  readonly warmupMs: number;
  /** 'cycle' walks the list in order (shuffle it first); 'random' samples with a seeded PRNG. */
  readonly order: 'cycle' | 'random';
  readonly seed: number;
  /** A request outstanding this long counts as an error and its connection is replaced. */
  readonly requestTimeoutMs: number;
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
}

export type ChildMessage = { readonly type: 'result'; readonly result: LoadResult } | { readonly type: 'error'; readonly message: string };
