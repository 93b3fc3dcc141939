// Webhook subscriptions of each tenant. The signing secret is returned on creation and rotation
// only. status is "enabled" or "disabled" (by the tenant, by a 410 from the receiver, or after five
// days of failures; disabled_reason says which).

import { randomKey } from "../store/persisted-key.js";
import { migrate, type StateDb } from "../store/state-db.js";

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

const fromRow = (r: Row): Webhook => ({ ...r, event_types: JSON.parse(r.event_types) as string[] });

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

export class WebhookStore {
  private readonly byId = new Map<string, Webhook>();
  /** subscribers per "tenant kind", asked for every event at intake (only their ids are read); dropped when a webhook comes, goes, or changes status or event types */
  private subs = new Map<string, Webhook[]>();

  constructor(private readonly db: StateDb) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS webhooks (
         id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, url TEXT NOT NULL, event_types TEXT NOT NULL, secret TEXT NOT NULL,
         status TEXT NOT NULL, disabled_reason TEXT, max_concurrency INTEGER NOT NULL, created_at TEXT NOT NULL,
         updated_at TEXT NOT NULL, failing_since INTEGER)`,
    ]);
    for (const row of db.prepare("SELECT * FROM webhooks").all() as Row[]) this.byId.set(row.id, fromRow(row));
  }

  create(tenantId: string, url: string, eventTypes: string[], maxConcurrency: number): Webhook {
    const now = new Date().toISOString();
    const w: Webhook = {
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
    this.db
      .prepare(
        `INSERT INTO webhooks (id, tenant_id, url, event_types, secret, status, disabled_reason, max_concurrency, created_at, updated_at, failing_since)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
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
      );
    this.byId.set(w.id, w);
    this.subs = new Map();
    return w;
  }

  /** The webhook if it belongs to the tenant (another tenant's is as absent as a missing one). */
  get(tenantId: string, id: string): Webhook | null {
    const w = this.byId.get(id);
    return w && w.tenant_id === tenantId ? w : null;
  }

  byIdAnyTenant(id: string): Webhook | null {
    return this.byId.get(id) ?? null;
  }

  list(tenantId: string): Webhook[] {
    return [...this.byId.values()]
      .filter((w) => w.tenant_id === tenantId)
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  /** Enabled webhooks of the tenant that take this kind. */
  subscribers(tenantId: string, kind: string): Webhook[] {
    const key = `${tenantId} ${kind}`;
    let found = this.subs.get(key);
    if (!found) this.subs.set(key, (found = this.list(tenantId).filter((w) => w.status === "enabled" && w.event_types.includes(kind))));
    return found;
  }

  update(
    w: Webhook,
    change: Partial<Pick<Webhook, "url" | "event_types" | "status" | "disabled_reason" | "max_concurrency" | "secret" | "failing_since">>,
  ): Webhook {
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
    this.byId.set(next.id, next);
    // subscribers depend on status and event types only (a failing endpoint updates often)
    if (change.status !== undefined || change.event_types !== undefined) this.subs = new Map();
    return next;
  }

  delete(w: Webhook): void {
    this.db.prepare("DELETE FROM webhooks WHERE id = ?").run(w.id);
    this.byId.delete(w.id);
    this.subs = new Map();
  }
}
