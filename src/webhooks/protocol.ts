// Messages between the front and the dispatcher workers. Jobs and results travel in batches (one
// message per batch, not per delivery): at thousands of deliveries a second the per-message cost
// of postMessage on both sides is what a batch saves.

export interface DispatchJob {
  /** delivery id, or a test id */
  key: string;
  /** which hand-out this is: a result whose token no longer matches (the delivery was taken back when its thread died) is stale */
  token: number;
  webhookId: string;
  url: string;
  secret: string;
  eventType: string;
  eventId: string;
  /** exact JSON bytes to POST (identical on every attempt) */
  body: string;
  /** the endpoint's concurrency cap, taken from the newest job of the endpoint */
  cap: number;
}

export interface DispatchResult {
  key: string;
  token: number;
  webhookId: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  snippet: string;
  /** Retry-After as sent, on 429 and 503 */
  retryAfter: string | null;
}

export type ToWorker =
  | { type: "jobs"; jobs: DispatchJob[] }
  /**
   * Sent to a thread that replaces one that died: `slots` requests of the endpoint may still be
   * running at the receiver (the dead thread's connections were cut, but the receiver need not
   * notice), so they count against the cap until an attempt would have timed out.
   */
  | { type: "hold"; webhookId: string; slots: number; forMs: number };
export type FromWorker = { type: "results"; results: DispatchResult[] };

export interface DispatcherWorkerData {
  caFile: string | null;
  allowHosts: string[];
  timeoutMs: number;
  /** which partition of the endpoints this thread owns (for log lines) */
  partition: number;
}

/** Which dispatcher owns an endpoint: FNV-1a of its id. */
export function ownerOf(webhookId: string, workers: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < webhookId.length; i++) h = Math.imul(h ^ webhookId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % workers;
}
