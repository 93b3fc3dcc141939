// Inbound routes: per tenant, administered by the operator. A route matches a recipient address
// exactly (`support@in.example.com`), by domain (`@in.example.com`), or catches all (`*`); the most
// specific match wins across tenants (then the oldest). Matched inbound mail is dispatched to the
// route's URL, signed with the route's own secret, through the same outbox and dispatchers.

import { randomKey } from "../store/persisted-key.js";
import { migrate, type StateDb } from "../store/state-db.js";
import { DEFAULT_CONCURRENCY, newSecret } from "./webhook-store.js";

export interface InboundRoute {
  id: string;
  tenant_id: string;
  match: string;
  url: string;
  secret: string;
  max_concurrency: number;
  created_at: string;
}

export const publicRoute = (r: InboundRoute): Record<string, unknown> => ({
  id: r.id,
  tenant_id: r.tenant_id,
  match: r.match,
  url: r.url,
  max_concurrency: r.max_concurrency,
  created_at: r.created_at,
});

export class InboundStore {
  private readonly byId = new Map<string, InboundRoute>();

  constructor(private readonly db: StateDb) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS inbound_routes (
         id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, match TEXT NOT NULL, url TEXT NOT NULL, secret TEXT NOT NULL,
         max_concurrency INTEGER NOT NULL, created_at TEXT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS inbound_messages (id TEXT PRIMARY KEY, route_id TEXT NOT NULL, received_at INTEGER NOT NULL)`,
    ]);
    for (const r of db.prepare("SELECT * FROM inbound_routes").all() as InboundRoute[]) this.byId.set(r.id, r);
  }

  create(tenantId: string, match: string, url: string, maxConcurrency: number = DEFAULT_CONCURRENCY): InboundRoute {
    const r: InboundRoute = {
      id: randomKey("ir_", 20),
      tenant_id: tenantId,
      match: match.toLowerCase(),
      url,
      secret: newSecret(),
      max_concurrency: maxConcurrency,
      created_at: new Date().toISOString(),
    };
    this.db
      .prepare("INSERT INTO inbound_routes (id, tenant_id, match, url, secret, max_concurrency, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(r.id, r.tenant_id, r.match, r.url, r.secret, r.max_concurrency, r.created_at);
    this.byId.set(r.id, r);
    return r;
  }

  get(tenantId: string, id: string): InboundRoute | null {
    const r = this.byId.get(id);
    return r && r.tenant_id === tenantId ? r : null;
  }

  byIdAnyTenant(id: string): InboundRoute | null {
    return this.byId.get(id) ?? null;
  }

  list(tenantId: string): InboundRoute[] {
    return [...this.byId.values()]
      .filter((r) => r.tenant_id === tenantId)
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  update(r: InboundRoute, change: Partial<Pick<InboundRoute, "match" | "url" | "max_concurrency">>): InboundRoute {
    const next = { ...r, ...change, match: (change.match ?? r.match).toLowerCase() };
    this.db
      .prepare("UPDATE inbound_routes SET match = ?, url = ?, max_concurrency = ? WHERE id = ?")
      .run(next.match, next.url, next.max_concurrency, next.id);
    this.byId.set(next.id, next);
    return next;
  }

  delete(r: InboundRoute): void {
    this.db.prepare("DELETE FROM inbound_routes WHERE id = ?").run(r.id);
    this.byId.delete(r.id);
  }

  /** The route for a recipient: exact address, then domain, then catch-all; oldest first. */
  match(recipient: string): InboundRoute | null {
    const address = recipient.trim().toLowerCase();
    const domain = address.slice(address.lastIndexOf("@"));
    const rank = (r: InboundRoute): number => (r.match === address ? 0 : r.match === domain ? 1 : r.match === "*" ? 2 : 3);
    const found = [...this.byId.values()]
      .filter((r) => rank(r) < 3)
      .sort((a, b) => rank(a) - rank(b) || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    return found[0] ?? null;
  }

  /** Records an inbound message id; false when it was seen before. */
  firstTime(id: string, routeId: string, now: number): boolean {
    return (
      this.db.prepare("INSERT OR IGNORE INTO inbound_messages (id, route_id, received_at) VALUES (?, ?, ?)").run(id, routeId, now).changes >
      0
    );
  }
}
