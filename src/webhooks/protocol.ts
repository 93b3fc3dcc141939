// Messages between the front and the dispatcher workers.

export interface DispatchJob {
  /** delivery id, or a test id */
  key: string;
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
  webhookId: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  snippet: string;
  /** Retry-After as sent, on 429 and 503 */
  retryAfter: string | null;
}

export type ToWorker = { type: "job"; job: DispatchJob };
export type FromWorker = { type: "result"; result: DispatchResult };

export interface DispatcherWorkerData {
  caFile: string | null;
  allowHosts: string[];
  timeoutMs: number;
}

/** Which dispatcher owns an endpoint: FNV-1a of its id. */
export function ownerOf(webhookId: string, workers: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < webhookId.length; i++) h = Math.imul(h ^ webhookId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % workers;
}
