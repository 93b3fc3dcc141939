// Inbound routes: per tenant, administered by the operator. A route matches a recipient address
// exactly (`support@in.example.com`), by domain (`@in.example.com`), or catches all (`*`); the most
// specific match wins across tenants (then the oldest). Matched inbound mail is dispatched to the
// route's URL, signed with the route's own secret, through the same outbox and dispatchers.

import { randomKey } from "../store/persisted-key.js";
import { migrate, type StateDb } from "../store/state-db.js";
import type { Backlog } from "./backlog.js";
import type { HandOff } from "./dispatch-center.js";
import { normalRouteMatch } from "./mailbox.js";
import { DUE_AT_ONCE, type Outbox } from "./outbox.js";
import { Directory, DirectoryReads, matchRoute } from "./endpoint-directory.js";
import type { InboundChange, InboundIntake, InboundRoutes, InboundStored } from "./webhook-state.js";
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

/** A new route with a fresh id and secret, whichever store keeps it; matches are in their normal form (mailbox.ts). */
export function newInboundRoute(tenantId: string, match: string, url: string, maxConcurrency: number = DEFAULT_CONCURRENCY): InboundRoute {
  return {
    id: randomKey("ir_", 20),
    tenant_id: tenantId,
    match: normalRouteMatch(match),
    url,
    secret: newSecret(),
    max_concurrency: maxConcurrency,
    created_at: new Date().toISOString(),
  };
}

export class InboundStore extends DirectoryReads<InboundRoute> implements InboundRoutes {
  protected readonly known = new Directory<InboundRoute>();

  constructor(private readonly db: StateDb) {
    super();
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS inbound_routes (
         id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, match TEXT NOT NULL, url TEXT NOT NULL, secret TEXT NOT NULL,
         max_concurrency INTEGER NOT NULL, created_at TEXT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS inbound_messages (id TEXT PRIMARY KEY, route_id TEXT NOT NULL, received_at INTEGER NOT NULL)`,
    ]);
    this.known.load(db.prepare("SELECT * FROM inbound_routes").all() as InboundRoute[]);
  }

  create(tenantId: string, match: string, url: string, maxConcurrency: number = DEFAULT_CONCURRENCY): InboundRoute {
    const r = newInboundRoute(tenantId, match, url, maxConcurrency);
    this.db
      .prepare("INSERT INTO inbound_routes (id, tenant_id, match, url, secret, max_concurrency, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(r.id, r.tenant_id, r.match, r.url, r.secret, r.max_concurrency, r.created_at);
    this.known.set(r);
    return r;
  }

  update(r: InboundRoute, change: InboundChange): InboundRoute {
    const next = { ...r, ...change, match: normalRouteMatch(change.match ?? r.match) };
    this.db
      .prepare("UPDATE inbound_routes SET match = ?, url = ?, max_concurrency = ? WHERE id = ?")
      .run(next.match, next.url, next.max_concurrency, next.id);
    this.known.set(next);
    return next;
  }

  delete(r: InboundRoute): void {
    this.db.prepare("DELETE FROM inbound_routes WHERE id = ?").run(r.id);
    this.known.remove(r.id);
  }

  match(recipient: string): InboundRoute | null {
    return matchRoute(this.known.all(), recipient);
  }

  /** Records an inbound message id; false when it was seen before. */
  firstTime(id: string, routeId: string, now: number): boolean {
    return (
      this.db.prepare("INSERT OR IGNORE INTO inbound_messages (id, route_id, received_at) VALUES (?, ?, ?)").run(id, routeId, now).changes >
      0
    );
  }
}

/** thrown inside the transaction to undo a message over a pending cap */
class BacklogFull extends Error {
  constructor(readonly over: string) {
    super(over);
  }
}

/** A received inbound message into state.db's outbox, counted against the route's and tenant's pending caps, in one transaction. */
export class SqliteInboundIntake implements InboundIntake {
  constructor(
    private readonly db: StateDb,
    private readonly inbound: InboundStore,
    private readonly outbox: Outbox,
    private readonly backlog: Backlog,
  ) {}

  store(r: InboundRoute, messageId: string, body: string, now: number, direct: boolean): InboundStored {
    const handOff: HandOff = { rows: [], direct };
    try {
      this.db.transaction(() => {
        if (!this.inbound.firstTime(messageId, r.id, now)) return;
        const d = {
          webhook_id: r.id,
          tenant_id: r.tenant_id,
          event_id: messageId,
          event_type: "inbound",
          body,
          next_attempt_at: DUE_AT_ONCE,
          created_at: now,
        };
        handOff.rows.push(this.outbox.add(d, direct));
        // over the route's or tenant's pending cap: the throw rolls the transaction back
        this.backlog.added(new Map([[r.id, { tenantId: r.tenant_id, n: 1 }]]));
        const over = this.backlog.overCap([r.id], [r.tenant_id]);
        if (over) throw new BacklogFull(over);
      })();
    } catch (err) {
      if (err instanceof BacklogFull) return { over: err.over };
      throw err;
    }
    return { over: null, handOff };
  }
}
