// Inbound routes (operator key): CRUD under /v1/tenants/{id}/inbound-routes, and POST /v1/inbound,
// where the MX side hands over a received message. The matching route's URL gets it as a signed
// `inbound` dispatch through the outbox (stored before the 202, retried like webhook deliveries).

import type { Reply, Request } from "../http/server.js";
import { BACKLOG_RETRY_AFTER_SECONDS } from "./backlog.js";
import type { DispatchCenter } from "./dispatch-center.js";
import { publicRoute } from "./inbound-store.js";
import { describeSchemaError } from "../http/json-schema.js";
import { SMALL_BODY, validators } from "./schemas.js";
import type { DeliveryLog, InboundIntake, InboundRoutes, Tenants } from "./webhook-state.js";
import { refuseUrl, type UrlGuard } from "./url-guard.js";

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
    tenants: Tenants;
    inbound: InboundRoutes;
    intake: InboundIntake;
    log: DeliveryLog;
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
    const r = await inbound.create(tenantId, body.match, body.url, body.max_concurrency);
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
    reply.json(200, JSON.stringify(publicRoute(await inbound.update(r, body))));
  });
  route("del", "/v1/tenants/:id/inbound-routes/:route", "inbound-routes-delete", null, async ({ req, reply }) => {
    const r = inbound.get(req.params[0], req.params[1]);
    if (!r) {
      reply.error(404, "no such inbound route");
      return;
    }
    await inbound.delete(r);
    await deps.log.failPending(r.id, deps.nowMs());
    reply.json(200, JSON.stringify({ id: r.id, deleted: true }));
  });

  route("post", "/v1/inbound", "inbound-receive", 1024 * 1024, async ({ reply, body }) => {
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
    const stored = await deps.intake.store(r, m.id, payload, now, deps.dispatch.mayHandStraight(r.id));
    if (stored.over !== null) {
      reply.header("Retry-After", String(BACKLOG_RETRY_AFTER_SECONDS));
      reply.error(429, `message refused, nothing stored: ${stored.over}`);
      return;
    }
    const handOff = stored.handOff;
    reply.json(202, JSON.stringify({ route_id: r.id, tenant_id: r.tenant_id, duplicate: handOff.rows.length === 0 }));
    deps.dispatch.handOff(handOff);
  });
}
