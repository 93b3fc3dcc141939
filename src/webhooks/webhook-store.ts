// Webhook subscriptions of each tenant. The signing secret is returned on creation and rotation
// only. status is "enabled" or "disabled" (by the tenant, by a 410 from the receiver, or after five
// days of failures; disabled_reason says which).

import { randomKey } from "../store/persisted-key.js";
import { migrate, type StateDb } from "../store/state-db.js";
import { Directory, DirectoryReads } from "./endpoint-directory.js";
import type { WebhookChange, Webhooks } from "./webhook-state.js";

export const DEFAULT_CONCURRENCY = 4;

export interface Webhook {
  id: string;
  tenant_id: string;
  url: string;
  event_types: string[];
  secret: string;
  status: "enabled" | "disabled";
  disabled_reason: string | null;
  max_concurrency: number;
  created_at: string;
  updated_at: string;
  /** ms since epoch of the first failure of the current failing streak; null when healthy */
  failing_since: number | null;
}

interface Row extends Omit<Webhook, "event_types"> {
  event_types: string;
}

const webhookFromRow = (r: Row): Webhook => ({ ...r, event_types: JSON.parse(r.event_types) as string[] });

/** The listed form: never the secret. */
export function publicWebhook(w: Webhook): Record<string, unknown> {
  return {
    id: w.id,
    url: w.url,
    event_types: w.event_types,
    status: w.status,
    disabled_reason: w.disabled_reason,
    max_concurrency: w.max_concurrency,
    created_at: w.created_at,
    updated_at: w.updated_at,
  };
}

export const newSecret = (): string => randomKey("whsec_", 32);

export const WEBHOOK_INSERT_COLUMNS =
  "id, tenant_id, url, event_types, secret, status, disabled_reason, max_concurrency, created_at, updated_at, failing_since";
/** The values of WEBHOOK_INSERT_COLUMNS for `w` (its event types as JSON text). */
export const webhookInsertValues = (w: Webhook): (string | number | null)[] => [
  w.id,
  w.tenant_id,
  w.url,
  JSON.stringify(w.event_types),
  w.secret,
  w.status,
  w.disabled_reason,
  w.max_concurrency,
  w.created_at,
  w.updated_at,
  w.failing_since,
];

/** A new enabled webhook with a fresh id and secret, whichever store keeps it. */
export function newWebhook(tenantId: string, url: string, eventTypes: string[], maxConcurrency: number): Webhook {
  const now = new Date().toISOString();
  return {
    id: randomKey("wh_", 20),
    tenant_id: tenantId,
    url,
    event_types: eventTypes,
    secret: newSecret(),
    status: "enabled",
    disabled_reason: null,
    max_concurrency: maxConcurrency,
    created_at: now,
    updated_at: now,
    failing_since: null,
  };
}

export class WebhookStore extends DirectoryReads<Webhook> implements Webhooks {
  protected readonly known = new Directory<Webhook>();

  constructor(private readonly db: StateDb) {
    super();
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS webhooks (
         id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, url TEXT NOT NULL, event_types TEXT NOT NULL, secret TEXT NOT NULL,
         status TEXT NOT NULL, disabled_reason TEXT, max_concurrency INTEGER NOT NULL, created_at TEXT NOT NULL,
         updated_at TEXT NOT NULL, failing_since INTEGER)`,
    ]);
    this.known.load((db.prepare("SELECT * FROM webhooks").all() as Row[]).map(webhookFromRow));
  }

  create(tenantId: string, url: string, eventTypes: string[], maxConcurrency: number): Webhook {
    const w = newWebhook(tenantId, url, eventTypes, maxConcurrency);
    this.db
      .prepare(
        `INSERT INTO webhooks (${WEBHOOK_INSERT_COLUMNS})
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(...webhookInsertValues(w));
    this.known.set(w);
    return w;
  }

  update(w: Webhook, change: WebhookChange): Webhook {
    const next: Webhook = { ...w, ...change, updated_at: new Date().toISOString() };
    this.db
      .prepare(
        `UPDATE webhooks SET url = ?, event_types = ?, secret = ?, status = ?, disabled_reason = ?, max_concurrency = ?,
      updated_at = ?, failing_since = ? WHERE id = ?`,
      )
      .run(
        next.url,
        JSON.stringify(next.event_types),
        next.secret,
        next.status,
        next.disabled_reason,
        next.max_concurrency,
        next.updated_at,
        next.failing_since,
        next.id,
      );
    this.known.set(next);
    return next;
  }

  delete(w: Webhook): void {
    this.db.prepare("DELETE FROM webhooks WHERE id = ?").run(w.id);
    this.known.remove(w.id);
  }
}
