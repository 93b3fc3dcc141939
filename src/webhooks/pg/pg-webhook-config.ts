// Tenants, their keys, webhooks and inbound routes in the shared PostgreSQL store: small tables
// that every request and every dispatch reads, so every node keeps a copy in memory (a Replica,
// one version for the four), read again whole when another node moves the version. A write of
// this node commits first, then changes its copy.

import { randomKey } from "../../store/persisted-key.js";
import type { SharedDb } from "../../store/pg/shared-db.js";
import { VersionedTable, type Query } from "../../store/pg/versioned.js";
import { Replica } from "../../store/replica.js";
import { Directory, DirectoryReads, matchRoute, oldestFirst } from "../endpoint-directory.js";
import { newInboundRoute, type InboundRoute } from "../inbound-store.js";
import { normalRouteMatch } from "../mailbox.js";
import { hashKey, TENANT_KEY_PREFIX, type Tenant } from "../tenant-store.js";
import type { HealthChange, InboundChange, InboundRoutes, TenantKeyInfo, Tenants, WebhookChange, Webhooks } from "../webhook-state.js";
import { newWebhook, WEBHOOK_INSERT_COLUMNS, webhookInsertValues, type Webhook } from "../webhook-store.js";

interface KeyRow extends TenantKeyInfo {
  tenant_id: string;
  hash: string;
}

interface ConfigSnapshot {
  version: number;
  tenants: Tenant[];
  keys: KeyRow[];
  webhooks: Webhook[];
  routes: InboundRoute[];
}

const CHANGEABLE = new Set(["url", "event_types", "status", "disabled_reason", "max_concurrency", "secret", "failing_since"]);

/**
 * An UPDATE of only the columns `change` names, so that two nodes changing different columns of
 * one webhook (a tenant its URL, the endpoint's holder its health) never undo each other. A
 * failing streak keeps the start it has; a disable applies only to an enabled webhook.
 */
function webhookUpdate(id: string, change: WebhookChange, health: boolean): { sql: string; values: unknown[] } {
  const values: unknown[] = [id, new Date().toISOString()];
  const sets = ["updated_at = $2"];
  for (const [column, value] of Object.entries(change)) {
    if (value === undefined || !CHANGEABLE.has(column)) continue;
    values.push(column === "event_types" ? JSON.stringify(value) : value);
    const p = `$${values.length}`;
    sets.push(
      column === "event_types"
        ? `event_types = ${p}::jsonb`
        : health && column === "failing_since" && value !== null
          ? `failing_since = COALESCE(failing_since, ${p})`
          : `${column} = ${p}`,
    );
  }
  const guard = health && change.status === "disabled" ? " AND status = 'enabled'" : "";
  return { sql: `UPDATE webhooks SET ${sets.join(", ")} WHERE id = $1${guard} RETURNING *`, values };
}

/** A webhook row as PostgreSQL returns it (failing_since is a BIGINT: a number already). */
const asWebhook = (row: Record<string, unknown>): Webhook => row as unknown as Webhook;

export class PgWebhookConfig extends VersionedTable {
  readonly tenants = new Map<string, Tenant>();
  readonly keysByHash = new Map<string, KeyRow>();
  readonly webhooks = new Directory<Webhook>();
  readonly routes = new Directory<InboundRoute>();
  private readonly replica: Replica<ConfigSnapshot>;

  private constructor(db: SharedDb) {
    super(db, "webhook_config");
    this.replica = new Replica(this, (s) => this.apply(s));
  }

  static async open(db: SharedDb): Promise<PgWebhookConfig> {
    const config = new PgWebhookConfig(db);
    await config.replica.start();
    return config;
  }

  async read(): Promise<ConfigSnapshot> {
    const { version, value } = await this.snapshot<Omit<ConfigSnapshot, "version">>(
      `SELECT json_build_object(
         'tenants', COALESCE((SELECT json_agg(t) FROM tenants t), '[]'),
         'keys', COALESCE((SELECT json_agg(k) FROM tenant_keys k), '[]'),
         'webhooks', COALESCE((SELECT json_agg(w) FROM webhooks w), '[]'),
         'routes', COALESCE((SELECT json_agg(r) FROM inbound_routes r), '[]'))`,
    );
    return { version, ...value };
  }

  private apply(s: ConfigSnapshot): void {
    this.tenants.clear();
    for (const t of s.tenants) this.tenants.set(t.id, t);
    this.keysByHash.clear();
    for (const k of s.keys) this.keysByHash.set(k.hash, k);
    this.webhooks.load(s.webhooks.map((w) => ({ ...w, failing_since: w.failing_since === null ? null : Number(w.failing_since) })));
    this.routes.load(s.routes);
  }

  /**
   * Runs `work` in a transaction that moves the version on (when it reports a change), then
   * applies `local` to this node's copy. `health` rides along: endpoint health a batch of
   * dispatch results changed, written by the same transaction.
   */
  async commit<T>(
    work: (q: Query, version: number) => Promise<{ changed: boolean; result: T }>,
    local: (result: T) => void,
    health: readonly HealthChange[] = [],
  ): Promise<T> {
    let changed: Webhook[] = [];
    const { result, version } = await this.write(async (q, version) => {
      changed = [];
      for (const h of health) {
        const { sql, values } = webhookUpdate(h.id, h.change, true);
        const { rows } = await q(sql, values);
        if (rows.length > 0) changed.push(asWebhook(rows[0]));
      }
      const r = await work(q, version);
      return { changed: r.changed || changed.length > 0, result: r.result };
    });
    if (version !== null) {
      for (const w of changed) this.webhooks.set(w);
      local(result);
      this.replica.wrote(version);
    }
    return result;
  }

  /** One statement; `local` runs with the row it returned, when it returned one. */
  async one(sql: string, values: unknown[], local: (row: Record<string, unknown>) => void): Promise<boolean> {
    return this.commit(
      async (q) => {
        const { rows } = await q(sql, values);
        return { changed: rows.length > 0, result: rows[0] ?? null };
      },
      (row) => {
        if (row) local(row);
      },
    ).then((row) => row !== null);
  }
}

export class PgTenants implements Tenants {
  constructor(private readonly c: PgWebhookConfig) {}

  async create(name: string): Promise<Tenant> {
    const t: Tenant = { id: randomKey("tn_", 16), name, created_at: new Date().toISOString() };
    await this.c.one("INSERT INTO tenants (id, name, created_at) VALUES ($1, $2, $3) RETURNING id", [t.id, t.name, t.created_at], () =>
      this.c.tenants.set(t.id, t),
    );
    return t;
  }

  get(id: string): Tenant | null {
    return this.c.tenants.get(id) ?? null;
  }

  list(): Tenant[] {
    return [...this.c.tenants.values()].sort(oldestFirst);
  }

  async createKey(tenantId: string): Promise<TenantKeyInfo & { key: string }> {
    const key = randomKey(TENANT_KEY_PREFIX);
    const row: KeyRow = {
      id: randomKey("tk_", 16),
      tenant_id: tenantId,
      hash: hashKey(key),
      prefix: key.slice(0, TENANT_KEY_PREFIX.length + 4),
      created_at: new Date().toISOString(),
    };
    await this.c.one(
      "INSERT INTO tenant_keys (id, tenant_id, hash, prefix, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id",
      [row.id, row.tenant_id, row.hash, row.prefix, row.created_at],
      () => this.c.keysByHash.set(row.hash, row),
    );
    return { id: row.id, key, prefix: row.prefix, created_at: row.created_at };
  }

  listKeys(tenantId: string): TenantKeyInfo[] {
    return [...this.c.keysByHash.values()]
      .filter((k) => k.tenant_id === tenantId)
      .sort(oldestFirst)
      .map((k) => ({ id: k.id, prefix: k.prefix, created_at: k.created_at }));
  }

  revokeKey(tenantId: string, keyId: string): Promise<boolean> {
    return this.c.one("DELETE FROM tenant_keys WHERE tenant_id = $1 AND id = $2 RETURNING id", [tenantId, keyId], () => {
      for (const [hash, k] of this.c.keysByHash) if (k.id === keyId) this.c.keysByHash.delete(hash);
    });
  }

  tenantOfKey(value: string): string | null {
    return this.c.keysByHash.get(hashKey(value))?.tenant_id ?? null;
  }
}

export class PgWebhooks extends DirectoryReads<Webhook> implements Webhooks {
  constructor(private readonly c: PgWebhookConfig) {
    super();
  }

  protected get known(): Directory<Webhook> {
    return this.c.webhooks;
  }

  async create(tenantId: string, url: string, eventTypes: string[], maxConcurrency: number): Promise<Webhook> {
    const w = newWebhook(tenantId, url, eventTypes, maxConcurrency);
    await this.c.one(
      `INSERT INTO webhooks (${WEBHOOK_INSERT_COLUMNS}) VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
      webhookInsertValues(w),
      () => this.c.webhooks.set(w),
    );
    return w;
  }

  async update(w: Webhook, change: WebhookChange): Promise<Webhook> {
    const { sql, values } = webhookUpdate(w.id, change, false);
    let next: Webhook = { ...w, ...change };
    await this.c.one(sql, values, (row) => {
      next = asWebhook(row);
      this.c.webhooks.set(next);
    });
    return next;
  }

  async delete(w: Webhook): Promise<void> {
    await this.c.one("DELETE FROM webhooks WHERE id = $1 RETURNING id", [w.id], () => this.c.webhooks.remove(w.id));
  }
}

export class PgInboundRoutes extends DirectoryReads<InboundRoute> implements InboundRoutes {
  constructor(private readonly c: PgWebhookConfig) {
    super();
  }

  protected get known(): Directory<InboundRoute> {
    return this.c.routes;
  }

  async create(tenantId: string, match: string, url: string, maxConcurrency?: number): Promise<InboundRoute> {
    const r = newInboundRoute(tenantId, match, url, maxConcurrency);
    await this.c.one(
      "INSERT INTO inbound_routes (id, tenant_id, match, url, secret, max_concurrency, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
      [r.id, r.tenant_id, r.match, r.url, r.secret, r.max_concurrency, r.created_at],
      () => this.c.routes.set(r),
    );
    return r;
  }

  async update(r: InboundRoute, change: InboundChange): Promise<InboundRoute> {
    const next = { ...r, ...change, match: normalRouteMatch(change.match ?? r.match) };
    await this.c.one(
      "UPDATE inbound_routes SET match = $2, url = $3, max_concurrency = $4 WHERE id = $1 RETURNING id",
      [next.id, next.match, next.url, next.max_concurrency],
      () => this.c.routes.set(next),
    );
    return next;
  }

  async delete(r: InboundRoute): Promise<void> {
    await this.c.one("DELETE FROM inbound_routes WHERE id = $1 RETURNING id", [r.id], () => this.c.routes.remove(r.id));
  }

  match(recipient: string): InboundRoute | null {
    return matchRoute(this.c.routes.all(), recipient);
  }
}
