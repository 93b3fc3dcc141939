// Messages between the front and the intake writer thread (workers/intake.ts). The front posts
// each batch as it is accepted into the queue (so that copying it costs one small message per
// request, not one large one per slice), then asks for one slice at a time: the writer commits
// the batches it holds for at most sliceMs in one transaction and answers with their outcomes.
// One slice at a time keeps the front's own writes from starving: between slices the write lock
// is free.

import type { Delivery } from "./outbox.js";
import type { BacklogCaps } from "./backlog.js";
import type { EventKind } from "./model.js";

export interface MailEvent {
  id: string;
  tenant_id: string;
  message_id: string;
  type: EventKind;
  recipient: string;
  /** Unix seconds */
  timestamp: number;
  bounce_type?: "hard" | "soft";
  smtp_code?: number;
  reason?: string;
  url?: string;
  user_agent?: string;
  ip?: string;
  http_method?: string;
  method?: string;
}

export interface IntakeResult {
  accepted: number;
  duplicates: number;
  deliveries: number;
}

export interface IntakeWorkerData {
  /** state.db's path: the writer opens its own connection to it */
  path: string;
  caps: BacklogCaps;
}

export type ToIntakeWorker =
  | { type: "batch"; id: number; events: MailEvent[] }
  /**
   * Commit the held batches, oldest first, for at most sliceMs (at least one). `now` is the
   * front's clock; `rooms` says how many outbox rows may be stored leased for the front to hand
   * straight to dispatchers (the others wait in the outbox for the poll).
   */
  | { type: "slice"; now: number; rooms: DirectRooms; sliceMs: number };

/**
 * New outbox rows that may be stored leased and handed straight over: `total` in all, and at most
 * `of.get(id)` of an endpoint listed (0 while older rows of it wait in the outbox); an endpoint not
 * listed has nothing on its way and may take its hand-out bound (fair-share.ts).
 */
export interface DirectRooms {
  total: number;
  of: Map<string, number>;
}

/** A batch's fate: stored (with the rows it added, and which of them were stored leased) or refused whole. */
export type BatchOutcome =
  | { id: number; ok: IntakeResult; rows: Delivery[]; direct: boolean[] }
  | { id: number; refused: { status: number; message: string; retryAfterSeconds: number | null } };

export type FromIntakeWorker =
  | { type: "slice"; outcomes: BatchOutcome[] }
  /** the slice's transaction failed (disk full, I/O error, a bug): none of these batches is stored */
  | { type: "failed"; ids: number[]; error: { message: string; code: string | null } };
