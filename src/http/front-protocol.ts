// The messages between the main thread and a front thread (front-threads.ts, front-thread.ts).
// A front thread answers the hot routes itself and relays every other request to the main
// thread, whose pipeline answers it as if it had arrived there (relayed-request.ts).

import type { MessagePort } from "node:worker_threads";
import type { LiveGeneration, SliceFiles } from "../engine/collection.js";
import type { Behind } from "../golden-copy/peer-publications.js";
import type { Method } from "./route.js";

/** A route as a front thread registers it: answered there (`local`), or relayed by its index. */
export interface FrontRoute {
  method: Method | "any";
  pattern: string;
  /** the route's name (the metrics label): a front thread answers "search" and "entity" itself */
  name: string;
  cors: boolean;
  /** it reads a body or an upload: the thread relays the body's chunks */
  takesBody: boolean;
}

export interface FrontThreadData {
  routes: FrontRoute[];
  shardThreads: number;
  /** the shard pool's WorkerLoads memory, which this thread's router shares */
  workerLoads: SharedArrayBuffer;
  rateLimit: number;
  rateWindowSeconds: number;
  /** the rate limiter's buckets, shared by every front thread */
  buckets: SharedArrayBuffer | null;
  trustProxy: string[];
  cacheBytes: number;
  /** search rounds the thread answers itself (--front-search-budget) */
  searchBudget: number;
  /** whether the server takes licences (--license-public-key): only then may a client have a rate limit of its own */
  acceptsLicenses: boolean;
  /** the main thread's state the thread's own answers need, as it changes (shared-status.ts) */
  status: SharedArrayBuffer;
  /** the main thread's OpenAPI document, which the thread serves as it is */
  openApi: string;
  /** the generations served when the thread starts, and the live one */
  generations: [number, SliceFiles[]][];
  live: LiveMeta | null;
}

/** A live generation as a view needs it (its Level 2 data stays on the main thread). */
export type LiveMeta = Omit<LiveGeneration, "family">;

/** The addresses a valid licence gives a rate limit of their own, and that limit. */
export interface RateEntitlement {
  clients: string[];
  limit: number;
}

/** What a front thread's own answers need of the main thread's state, posted whenever it changes. */
export interface FrontStatus {
  entitlement: RateEntitlement | null;
  /** whether a licence is active (the stats say so) */
  licensed: boolean;
  /** with --database: a peer serving a newer publication (readiness says so) */
  behind: Behind | null;
}

/** What a front thread counted: requests by route (latency buckets), counters, shard requests sent. */
export interface FrontCounts {
  routes: [string, { byStatus: [number, number][]; buckets: number[]; sum: number; count: number }][];
  counters: [string, string, number][];
  shardRequests: number[];
  /** requests that arrived on the thread's connections */
  received: number;
}

export type ToFront =
  | { op: "open"; id: number; gen: number; slices: SliceFiles[] }
  | { op: "swap"; live: LiveMeta }
  | { op: "release"; id: number; gen: number }
  | { op: "port"; id: number; port?: MessagePort; error?: string }
  | { op: "down"; worker: number }
  | { op: "serve"; worker: number }
  | { op: "counts"; id: number }
  | { op: "drain"; id: number }
  /** close every connection and end: a thread's loop may not end with uWS's sockets open */
  | { op: "stop" }
  // the answer to a relayed request: its head (status line and headers), then its body
  | { op: "head"; rid: number; status: string; headers: [string, string][] }
  | { op: "write"; rid: number; chunk: Uint8Array }
  | { op: "end"; rid: number; body: Uint8Array | null; close: boolean }
  | { op: "close"; rid: number };

export type FromFront =
  | { op: "ready"; descriptor: number }
  | { op: "done"; id: number }
  | { op: "port"; id: number; worker: number }
  | { op: "counts"; id: number; counts: FrontCounts }
  | { op: "spent"; spent: [string, number][] }
  | { op: "log"; line: string }
  // a relayed request: its line, headers and the client's address, then its body's chunks
  | {
      op: "request";
      rid: number;
      route: number;
      method: string;
      url: string;
      query: string;
      params: string[];
      headers: [string, string][];
      peer: string;
    }
  | { op: "body"; rid: number; chunk: Uint8Array; last: boolean }
  | { op: "aborted"; rid: number }
  /** the thread's client took `bytes` more of a streamed answer */
  | { op: "drained"; rid: number; bytes: number };
