// Event intake: a batch of mail events from the pipeline becomes message state, suppressions and
// outbox rows, all in one SQLite transaction, before the 202. Idempotent by event id; a batch with
// an impossible transition or an unknown tenant is refused whole (nothing of it is stored).

import { randomKey } from "../keys/bootstrap.js";
import { migrate, type StateDb } from "../store/state-db.js";
import { machineVerdict } from "./bot.js";
import { isDeliveryKind, transitionProblem, type EventKind, type MessageState } from "./model.js";
import type { Outbox } from "./outbox.js";
import type { SuppressionStore } from "./suppression-store.js";
import type { TenantStore } from "./tenant-store.js";
import type { WebhookStore } from "./webhook-store.js";

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

export class IntakeError extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

export interface IntakeResult { accepted: number; duplicates: number; deliveries: number }

export class Intake {
  constructor(
    private readonly db: StateDb,
    private readonly tenants: TenantStore,
    private readonly webhooks: WebhookStore,
    private readonly suppressions: SuppressionStore,
    private readonly outbox: Outbox,
    private readonly nowMs: () => number,
  ) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS mail_events (id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, received_at INTEGER NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS messages (
         tenant_id TEXT NOT NULL, message_id TEXT NOT NULL, state TEXT NOT NULL, delivered_at INTEGER, updated_at INTEGER NOT NULL,
         PRIMARY KEY (tenant_id, message_id))`,
    ]);
  }

  /** Stores the batch; throws IntakeError (nothing stored) when any event is refused. */
  accept(events: MailEvent[]): IntakeResult {
    return this.db.transaction(() => {
      const result: IntakeResult = { accepted: 0, duplicates: 0, deliveries: 0 };
      const now = this.nowMs();
      for (const e of events) {
        if (!this.tenants.get(e.tenant_id)) throw new IntakeError(400, `event '${e.id}': unknown tenant '${e.tenant_id}'`);
        const seen = this.db.prepare("INSERT OR IGNORE INTO mail_events (id, tenant_id, received_at) VALUES (?, ?, ?)").run(e.id, e.tenant_id, now);
        if (seen.changes === 0) { result.duplicates++; continue; }
        result.accepted++;
        result.deliveries += this.one(e, now);
      }
      return result;
    })();
  }

  private one(e: MailEvent, now: number): number {
    const msg = this.db.prepare("SELECT state, delivered_at FROM messages WHERE tenant_id = ? AND message_id = ?")
      .get(e.tenant_id, e.message_id) as { state: MessageState; delivered_at: number | null } | undefined;
    let kind: EventKind = e.type;
    const data: Record<string, unknown> = { message_id: e.message_id, recipient: e.recipient, timestamp: e.timestamp };
    for (const k of ["bounce_type", "smtp_code", "reason", "url", "user_agent", "ip", "http_method", "method"] as const) {
      if (e[k] !== undefined) data[k] = e[k];
    }
    if (kind === "queued") {
      const suppressed = this.suppressions.get(e.tenant_id, e.recipient);
      if (suppressed) {
        kind = "dropped";
        data.reason = "suppressed";
        data.suppression_reason = suppressed.reason;
        data.reported_as = "queued";
      }
    }
    const problem = transitionProblem(msg?.state ?? null, kind);
    if (problem) throw new IntakeError(409, `event '${e.id}' (message '${e.message_id}'): ${problem}`);
    if (isDeliveryKind(kind)) {
      this.db.prepare(`INSERT INTO messages (tenant_id, message_id, state, delivered_at, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (tenant_id, message_id) DO UPDATE SET state = excluded.state, delivered_at = COALESCE(excluded.delivered_at, delivered_at), updated_at = excluded.updated_at`)
        .run(e.tenant_id, e.message_id, kind, kind === "delivered" ? e.timestamp : null, now);
    }
    if (kind === "bounced" && e.bounce_type === "hard") this.suppressions.add(e.tenant_id, e.recipient, "hard_bounce");
    if (kind === "unsubscribed") this.suppressions.add(e.tenant_id, e.recipient, "unsubscribe");
    if (kind === "opened" || kind === "clicked") Object.assign(data, machineVerdict(e, msg?.delivered_at ?? null));
    const body = JSON.stringify({ id: e.id, type: kind, created_at: new Date(e.timestamp * 1000).toISOString(), tenant_id: e.tenant_id, data });
    let n = 0;
    for (const w of this.webhooks.subscribers(e.tenant_id, kind)) {
      this.outbox.add({ id: randomKey("dl_", 20), webhook_id: w.id, tenant_id: e.tenant_id, event_id: e.id, event_type: kind, body, next_attempt_at: now, created_at: now });
      n++;
    }
    return n;
  }
}
