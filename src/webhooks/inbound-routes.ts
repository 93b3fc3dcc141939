// Inbound routes (operator key): CRUD under /v1/tenants/{id}/inbound-routes, and POST /v1/inbound,
// where the MX side hands over a received message. The matching route's URL gets it as a signed
// `inbound` dispatch through the outbox (stored before the 202, retried like webhook deliveries).

import type { Reply, Request } from "../http/server.js";
import type { StateDb } from "../store/state-db.js";
import { BACKLOG_RETRY_AFTER_SECONDS, type Backlog } from "./backlog.js";
import type { DispatchCenter, HandOff } from "./dispatch-center.js";
import { publicRoute, type InboundStore } from "./inbound-store.js";
import type { Outbox } from "./outbox.js";
import { describeSchemaError } from "../http/json-schema.js";
import { SMALL_BODY, validators } from "./schemas.js";
import type { TenantStore } from "./tenant-store.js";
import { refuseUrl, type UrlGuard } from "./url-guard.js";

/** thrown inside the transaction to undo a message over a pending cap */
class BacklogFull extends Error {}

export type OperatorRoute = (
  method: "get" | "post" | "patch" | "del",
  pattern: string,
  name: string,
  maxBody: number | null,
  handler: (ctx: { req: Request; reply: Reply; body: unknown }) => void | Promise<void>,
) => void;

export function registerInboundRoutes(
  route: OperatorRoute,
  deps: {
    db: StateDb;
    backlog: Backlog;
    tenants: TenantStore;
    inbound: InboundStore;
    outbox: Outbox;
    dispatch: DispatchCenter;
    guard: UrlGuard;
    nowMs: () => number;
  },
): void {
  const { tenants, inbound, guard } = deps;

  route("post", "/v1/tenants/:id/inbound-routes", "inbound-routes-create", SMALL_BODY, async ({ req, reply, body }) => {
    const tenantId = req.params[0];
    if (!tenants.get(tenantId)) {
      reply.error(404, "no such tenant");
      return;
    }
    if (!validators.inboundCreate(body)) {
      reply.error(400, describeSchemaError("inbound route", validators.inboundCreate.errors));
      return;
    }
    if (await refuseUrl(guard, body.url, reply)) return;
    const r = inbound.create(tenantId, body.match, body.url, body.max_concurrency);
    reply.json(201, JSON.stringify({ ...publicRoute(r), secret: r.secret }));
  });
  route("get", "/v1/tenants/:id/inbound-routes", "inbound-routes-list", null, ({ req, reply }) => {
    if (!tenants.get(req.params[0])) {
      reply.error(404, "no such tenant");
      return;
    }
    reply.json(200, JSON.stringify({ inbound_routes: inbound.list(req.params[0]).map(publicRoute) }));
  });
  route("get", "/v1/tenants/:id/inbound-routes/:route", "inbound-routes-get", null, ({ req, reply }) => {
    const r = inbound.get(req.params[0], req.params[1]);
    if (!r) reply.error(404, "no such inbound route");
    else reply.json(200, JSON.stringify(publicRoute(r)));
  });
  route("patch", "/v1/tenants/:id/inbound-routes/:route", "inbound-routes-update", SMALL_BODY, async ({ req, reply, body }) => {
    const [tenantId, routeId] = req.params;
    if (!inbound.get(tenantId, routeId)) {
      reply.error(404, "no such inbound route");
      return;
    }
    if (!validators.inboundUpdate(body)) {
      reply.error(400, describeSchemaError("inbound route update", validators.inboundUpdate.errors));
      return;
    }
    if (body.url !== undefined && (await refuseUrl(guard, body.url, reply))) return;
    // read again: the route may have changed or gone while the name was being resolved
    const r = inbound.get(tenantId, routeId);
    if (!r) {
      reply.error(404, "no such inbound route");
      return;
    }
    reply.json(200, JSON.stringify(publicRoute(inbound.update(r, body))));
  });
  route("del", "/v1/tenants/:id/inbound-routes/:route", "inbound-routes-delete", null, ({ req, reply }) => {
    const r = inbound.get(req.params[0], req.params[1]);
    if (!r) {
      reply.error(404, "no such inbound route");
      return;
    }
    inbound.delete(r);
    deps.outbox.failPending(r.id);
    reply.json(200, JSON.stringify({ id: r.id, deleted: true }));
  });

  route("post", "/v1/inbound", "inbound-receive", 1024 * 1024, ({ reply, body }) => {
    if (!validators.inboundMessage(body)) {
      reply.error(400, describeSchemaError("inbound message", validators.inboundMessage.errors));
      return;
    }
    const m = body;
    const r = inbound.match(m.recipient);
    if (!r) {
      reply.error(404, `no inbound route matches ${m.recipient}`);
      return;
    }
    const now = deps.nowMs();
    const handOff: HandOff = { rows: [], direct: false };
    let over: string | null = null;
    try {
      deps.db.transaction(() => {
        if (!inbound.firstTime(m.id, r.id, now)) return;
        const data = {
          route_id: r.id,
          recipient: m.recipient,
          from: m.from,
          subject: m.subject ?? "",
          headers: m.headers ?? {},
          text: m.text ?? "",
          html: m.html ?? "",
          timestamp: m.timestamp,
        };
        const payload = JSON.stringify({
          id: m.id,
          type: "inbound",
          created_at: new Date(m.timestamp * 1000).toISOString(),
          tenant_id: r.tenant_id,
          data,
        });
        handOff.direct = deps.dispatch.directAllowance() >= 1;
        handOff.rows.push(
          deps.outbox.add(
            {
              webhook_id: r.id,
              tenant_id: r.tenant_id,
              event_id: m.id,
              event_type: "inbound",
              body: payload,
              next_attempt_at: now,
              created_at: now,
            },
            handOff.direct,
          ),
        );
        // over the route's or tenant's pending cap: undo (the throw rolls the transaction back) and refuse
        deps.backlog.added(new Map([[r.id, { tenantId: r.tenant_id, n: 1 }]]));
        over = deps.backlog.overCap([r.id], [r.tenant_id]);
        if (over) throw new BacklogFull();
      })();
    } catch (err) {
      if (!(err instanceof BacklogFull) || over === null) throw err;
      reply.header("Retry-After", String(BACKLOG_RETRY_AFTER_SECONDS));
      reply.error(429, `message refused, nothing stored: ${over}`);
      return;
    }
    reply.json(202, JSON.stringify({ route_id: r.id, tenant_id: r.tenant_id, duplicate: handOff.rows.length === 0 }));
    deps.dispatch.handOff(handOff);
  });
}
