// HTTP routes of area C. Errors are {"error": "..."} like area A. The operator key (Bearer) runs
// /v1/tenants and /v1/events; a tenant key (Bearer) runs /v1/webhooks and /v1/suppressions, scoped
// to its tenant: another tenant's webhook is a 404. Missing or unknown credential: 401; the wrong
// kind of key (operator on a tenant route, tenant on an operator route): 403.

import { timingSafeEqual, createHash } from "node:crypto";
import { BAD_JSON, BAD_JSON_MESSAGE, describeSchemaError, parseJsonBody } from "../http/json-schema.js";
import { REFUSED, type BodyTypes, type Guard, type OperationDoc } from "../http/route.js";
import type { HttpServer, Reply, Request } from "../http/server.js";
import { WEBHOOK_DOCS } from "./api-docs.js";
import type { RateLimiter } from "../http/rate-limit.js";
import { randomKey } from "../store/persisted-key.js";
import { guardWrites } from "../store/write-failure.js";
import type { DispatchCenter } from "./dispatch-center.js";
import { IntakeError } from "./event-plan.js";
import { normalAddress } from "./mailbox.js";
import { registerInboundRoutes } from "./inbound-routes.js";
import type { MailEvent } from "./intake-protocol.js";
import { SMALL_BODY, validators } from "./schemas.js";
import { isSuccess } from "./retry.js";
import { refuseUrl, type UrlGuard } from "./url-guard.js";
import { DEFAULT_CONCURRENCY, newSecret, publicWebhook } from "./webhook-store.js";
import type {
  DeliveryLog,
  EventIntake,
  InboundIntake,
  InboundRoutes,
  Suppressions,
  Tenants,
  WebhookChange,
  Webhooks,
} from "./webhook-state.js";

const EVENTS_BODY = 1024 * 1024;

export interface WebhookArea {
  operatorKey: string;
  tenants: Tenants;
  webhooks: Webhooks;
  inbound: InboundRoutes;
  inboundIntake: InboundIntake;
  suppressions: Suppressions;
  log: DeliveryLog;
  intake: EventIntake;
  dispatch: DispatchCenter;
  guard: UrlGuard;
  /** unknown keys per address (shared with the keyed API), then 429; valid keys still work */
  guessing: RateLimiter;
  nowMs: () => number;
  /** further tenant routes under the same key, error shape and 405s (watchlists) */
  more?: (route: TenantRoute) => void;
}

/** A body that came as text/csv (routes that take it), unparsed. */
export interface CsvBody {
  csv: Buffer;
}

/** A tenant route of another module of area C: its own OpenAPI operation; a body of `bodyTypes` "json-or-csv" may come as CSV. */
export type TenantRoute = (
  method: "get" | "post" | "del",
  pattern: string,
  name: string,
  doc: OperationDoc,
  maxBody: number | null,
  handler: (ctx: { req: Request; reply: Reply; tenantId: string; body: unknown }) => void | Promise<void>,
  bodyTypes?: BodyTypes,
) => void;

type Method = "get" | "post" | "patch" | "del";
type Who = { kind: "operator" } | { kind: "tenant"; tenantId: string };

const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();

function bearer(req: Request): string | null {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.header("authorization"));
  return m ? m[1] : null;
}

const ALLOW_NAMES: Record<Method, string> = { get: "GET", post: "POST", patch: "PATCH", del: "DELETE" };

export function registerWebhookRoutes(server: HttpServer, area: WebhookArea): void {
  /** the methods of each path, for the 405 that any other method gets */
  const methods = new Map<string, Method[]>();
  const operatorDigest = digest(area.operatorKey);
  const guessing = area.guessing;
  const whoIs = (presented: string | null): Who | null => {
    if (presented === null) return null;
    if (timingSafeEqual(digest(presented), operatorDigest)) return { kind: "operator" };
    const tenantId = area.tenants.tenantOfKey(presented);
    return tenantId ? { kind: "tenant", tenantId } : null;
  };

  const bearerGuard = (need: "operator" | "tenant"): Guard<string> => ({
    scheme: need === "operator" ? "operatorKey" : "tenantKey",
    admit(req, reply) {
      const presented = bearer(req);
      const who = whoIs(presented);
      if (!who) {
        if (presented !== null) {
          const d = guessing.take(req.ip);
          if (!d.allowed) {
            reply.header("Retry-After", String(d.retryAfterSeconds));
            reply.error(429, "too many unknown keys from this address; retry later");
            return REFUSED;
          }
        }
        reply.header("WWW-Authenticate", "Bearer");
        reply.error(401, "missing or unknown key: send Authorization: Bearer <key>");
        return REFUSED;
      }
      if (who.kind !== need) {
        reply.error(
          403,
          need === "operator"
            ? "this needs the operator key; a tenant key cannot do it"
            : "this needs a tenant key; the operator key is not a tenant key",
        );
        return REFUSED;
      }
      return who.kind === "tenant" ? who.tenantId : "";
    },
  });
  const guards = { operator: bearerGuard("operator"), tenant: bearerGuard("tenant") };

  /** A route of area C: its OpenAPI operation is WEBHOOK_DOCS[name]; the handler gets the tenant's id ("" for the operator). */
  const route = (
    method: Method,
    pattern: string,
    name: string,
    need: "operator" | "tenant",
    maxBody: number | null,
    handler: (ctx: { req: Request; reply: Reply; tenantId: string; body: unknown }) => void | Promise<void>,
    /** asked after the key check and before the body is parsed: a refusal (e.g. a full queue) costs no JSON parsing */
    admit?: () => IntakeError | null,
    given?: { doc: OperationDoc; bodyTypes?: BodyTypes },
  ): void => {
    methods.set(pattern, [...(methods.get(pattern) ?? []), method]);
    const doc = given?.doc ?? WEBHOOK_DOCS[name];
    if (!doc) throw new Error(`no OpenAPI operation for the route ${name}`);
    const options = {
      name,
      area: "webhooks",
      auth: guards[need],
      doc,
      ...(maxBody !== null ? { maxBodyBytes: maxBody } : {}),
      ...(given?.bodyTypes ? { bodyTypes: given.bodyTypes } : {}),
    } as const;
    server.route<string>(method, pattern, options, async (req, reply, tenantId) => {
      const refused = admit?.() ?? null;
      if (refused) {
        if (refused.retryAfterSeconds !== null) reply.header("Retry-After", String(refused.retryAfterSeconds));
        reply.error(refused.status, refused.message);
        return;
      }
      // read before the first await (the request's headers are gone after it)
      const csv = given?.bodyTypes === "json-or-csv" && req.header("content-type").split(";")[0].trim().toLowerCase() === "text/csv";
      // an empty body is undefined: each route's schema says whether it may be absent
      let body: unknown = undefined;
      if (maxBody !== null) {
        const bytes = await req.body();
        if (csv) body = { csv: bytes } satisfies CsvBody;
        else if (bytes.length > 0) {
          body = parseJsonBody(bytes);
          if (body === BAD_JSON) {
            reply.error(400, BAD_JSON_MESSAGE);
            return;
          }
        }
      }
      // a full or failing disk is a 503 with Retry-After, logged once a minute, not a 500 per request
      await guardWrites(reply, name, () => handler({ req, reply, tenantId, body }));
    });
  };

  // ---- operator: tenants and their keys
  route("post", "/v1/tenants", "tenants-create", "operator", SMALL_BODY, async ({ reply, body }) => {
    if (!validators.tenantCreate(body)) {
      reply.error(400, describeSchemaError("tenant", validators.tenantCreate.errors));
      return;
    }
    const t = await area.tenants.create(body.name);
    reply.json(201, JSON.stringify(t));
  });
  route("get", "/v1/tenants", "tenants-list", "operator", null, ({ reply }) => {
    reply.json(200, JSON.stringify({ tenants: area.tenants.list() }));
  });
  route("get", "/v1/tenants/:id", "tenants-get", "operator", null, ({ req, reply }) => {
    const t = area.tenants.get(req.params[0]);
    if (!t) reply.error(404, "no such tenant");
    else reply.json(200, JSON.stringify(t));
  });
  route("post", "/v1/tenants/:id/keys", "tenant-keys-create", "operator", null, async ({ req, reply }) => {
    const t = area.tenants.get(req.params[0]);
    if (!t) {
      reply.error(404, "no such tenant");
      return;
    }
    const k = await area.tenants.createKey(t.id);
    reply.json(201, JSON.stringify({ id: k.id, key: k.key, prefix: k.prefix, created_at: k.created_at }));
  });
  route("get", "/v1/tenants/:id/keys", "tenant-keys-list", "operator", null, async ({ req, reply }) => {
    const t = area.tenants.get(req.params[0]);
    if (!t) {
      reply.error(404, "no such tenant");
      return;
    }
    reply.json(200, JSON.stringify({ keys: await area.tenants.listKeys(t.id) }));
  });
  route("del", "/v1/tenants/:id/keys/:key", "tenant-keys-delete", "operator", null, async ({ req, reply }) => {
    if (!(await area.tenants.revokeKey(req.params[0], req.params[1]))) {
      reply.error(404, "no such key");
      return;
    }
    reply.json(200, JSON.stringify({ id: req.params[1], revoked: true }));
  });

  // ---- operator: event intake
  route(
    "post",
    "/v1/events",
    "events-intake",
    "operator",
    EVENTS_BODY,
    async ({ reply, body }) => {
      if (!validators.eventBatch(body)) {
        reply.error(400, describeSchemaError("events", validators.eventBatch.errors));
        return;
      }
      try {
        // the intake hands the new rows to the dispatchers itself, right after the commit
        const { accepted, duplicates, deliveries } = await area.intake.submit(body.events as MailEvent[]);
        reply.json(202, JSON.stringify({ accepted, duplicates, deliveries }));
      } catch (err) {
        if (err instanceof IntakeError) {
          if (err.retryAfterSeconds !== null) reply.header("Retry-After", String(err.retryAfterSeconds));
          reply.error(err.status, err.message);
          return;
        }
        throw err;
      }
    },
    () => area.intake.busy(),
  );

  // ---- tenant: webhooks
  route("post", "/v1/webhooks", "webhooks-create", "tenant", SMALL_BODY, async ({ reply, body, tenantId }) => {
    if (!validators.webhookCreate(body)) {
      reply.error(400, describeSchemaError("webhook", validators.webhookCreate.errors));
      return;
    }
    if (await refuseUrl(area.guard, body.url, reply)) return;
    const w = await area.webhooks.create(tenantId, body.url, body.event_types, body.max_concurrency ?? DEFAULT_CONCURRENCY);
    reply.json(201, JSON.stringify({ ...publicWebhook(w), secret: w.secret }));
  });
  route("get", "/v1/webhooks", "webhooks-list", "tenant", null, ({ reply, tenantId }) => {
    reply.json(200, JSON.stringify({ webhooks: area.webhooks.list(tenantId).map(publicWebhook) }));
  });
  route("get", "/v1/webhooks/:id", "webhooks-get", "tenant", null, ({ req, reply, tenantId }) => {
    const w = area.webhooks.get(tenantId, req.params[0]);
    if (!w) reply.error(404, "no such webhook");
    else reply.json(200, JSON.stringify(publicWebhook(w)));
  });
  route("patch", "/v1/webhooks/:id", "webhooks-update", "tenant", SMALL_BODY, async ({ req, reply, body, tenantId }) => {
    const id = req.params[0];
    if (!area.webhooks.get(tenantId, id)) {
      reply.error(404, "no such webhook");
      return;
    }
    if (!validators.webhookUpdate(body)) {
      reply.error(400, describeSchemaError("webhook update", validators.webhookUpdate.errors));
      return;
    }
    if (body.url !== undefined && (await refuseUrl(area.guard, body.url, reply))) return;
    // read again: the webhook may have changed or gone while the name was being resolved
    const w = area.webhooks.get(tenantId, id);
    if (!w) {
      reply.error(404, "no such webhook");
      return;
    }
    const change: WebhookChange = {};
    if (body.url !== undefined) change.url = body.url;
    if (body.event_types !== undefined) change.event_types = body.event_types;
    if (body.max_concurrency !== undefined) change.max_concurrency = body.max_concurrency;
    if (body.enabled === true) Object.assign(change, { status: "enabled", disabled_reason: null, failing_since: null });
    if (body.enabled === false) Object.assign(change, { status: "disabled", disabled_reason: "disabled by the tenant" });
    const next = await area.webhooks.update(w, change);
    if (body.enabled === false) await area.log.failPending(w.id, area.nowMs());
    reply.json(200, JSON.stringify(publicWebhook(next)));
  });
  route("del", "/v1/webhooks/:id", "webhooks-delete", "tenant", null, async ({ req, reply, tenantId }) => {
    const w = area.webhooks.get(tenantId, req.params[0]);
    if (!w) {
      reply.error(404, "no such webhook");
      return;
    }
    await area.webhooks.delete(w);
    await area.log.failPending(w.id, area.nowMs());
    reply.json(200, JSON.stringify({ id: w.id, deleted: true }));
  });
  route("post", "/v1/webhooks/:id/rotate-secret", "webhooks-rotate", "tenant", null, async ({ req, reply, tenantId }) => {
    const w = area.webhooks.get(tenantId, req.params[0]);
    if (!w) {
      reply.error(404, "no such webhook");
      return;
    }
    const next = await area.webhooks.update(w, { secret: newSecret() });
    reply.json(200, JSON.stringify({ id: next.id, secret: next.secret }));
  });
  route("get", "/v1/webhooks/:id/deliveries", "webhooks-deliveries", "tenant", null, async ({ req, reply, tenantId }) => {
    const w = area.webhooks.get(tenantId, req.params[0]);
    if (!w) {
      reply.error(404, "no such webhook");
      return;
    }
    const q = new URLSearchParams(req.rawQuery);
    const outcome = q.get("outcome");
    if (outcome !== null && outcome !== "success" && outcome !== "failure") {
      reply.error(400, "outcome must be success or failure");
      return;
    }
    const limitRaw = q.get("limit") ?? "20";
    const beforeRaw = q.get("before");
    if (!/^\d{1,3}$/.test(limitRaw) || Number(limitRaw) < 1 || Number(limitRaw) > 100) {
      reply.error(400, "limit must be an integer from 1 to 100");
      return;
    }
    if (beforeRaw !== null && !/^\d{1,15}$/.test(beforeRaw)) {
      reply.error(400, "before must be a cursor from next_before");
      return;
    }
    const limit = Number(limitRaw);
    const rows = await area.log.attempts(w.id, outcome, beforeRaw === null ? Number.MAX_SAFE_INTEGER : Number(beforeRaw), limit);
    const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
    reply.json(
      200,
      JSON.stringify({
        deliveries: rows.map((r) => ({
          delivery_id: r.delivery_id,
          event_id: r.event_id,
          event_type: r.event_type,
          attempt: r.attempt,
          trigger: r.trigger,
          outcome: r.outcome,
          status_code: r.status_code,
          error: r.error,
          duration_ms: r.duration_ms,
          response_snippet: r.response_snippet,
          attempted_at: iso(r.attempted_at),
          next_attempt_at: iso(r.next_attempt_at),
        })),
        next_before: rows.length === limit ? rows[rows.length - 1].row : null,
      }),
    );
  });
  route(
    "post",
    "/v1/webhooks/:id/deliveries/:delivery/redeliver",
    "webhooks-redeliver-one",
    "tenant",
    null,
    async ({ req, reply, tenantId }) => {
      const w = area.webhooks.get(tenantId, req.params[0]);
      if (!w) {
        reply.error(404, "no such webhook");
        return;
      }
      if (w.status !== "enabled") {
        reply.error(409, "webhook is disabled; enable it first");
        return;
      }
      if (!(await area.log.redeliver(w.id, req.params[1]))) {
        reply.error(404, "no such delivery");
        return;
      }
      area.dispatch.kick();
      reply.json(202, JSON.stringify({ redelivering: 1 }));
    },
  );
  route("post", "/v1/webhooks/:id/redeliver", "webhooks-redeliver-failed", "tenant", SMALL_BODY, async ({ req, reply, body, tenantId }) => {
    const w = area.webhooks.get(tenantId, req.params[0]);
    if (!w) {
      reply.error(404, "no such webhook");
      return;
    }
    if (!validators.redeliver(body)) {
      reply.error(400, describeSchemaError("redelivery", validators.redeliver.errors));
      return;
    }
    if (w.status !== "enabled") {
      reply.error(409, "webhook is disabled; enable it first");
      return;
    }
    const n = await area.log.redeliverFailed(w.id, body.since * 1000);
    area.dispatch.kick();
    reply.json(202, JSON.stringify({ redelivering: n }));
  });
  route("post", "/v1/webhooks/:id/test", "webhooks-test", "tenant", SMALL_BODY, async ({ req, reply, body, tenantId }) => {
    const w = area.webhooks.get(tenantId, req.params[0]);
    if (!w) {
      reply.error(404, "no such webhook");
      return;
    }
    const given = body ?? {}; // a test dispatch may come without a body
    if (!validators.testDispatch(given)) {
      reply.error(400, describeSchemaError("test", validators.testDispatch.errors));
      return;
    }
    const type = given.event_type ?? w.event_types[0];
    const eventId = randomKey("evt_test_", 20);
    const now = area.nowMs();
    // an LEI event's test carries an LEI (the bundled sample's first), a mail event's a message
    const data = type.startsWith("lei.")
      ? { lei: "001GPB6A9XPE8XJICC14", test: true }
      : { message_id: "msg_test", recipient: "test@example.com", timestamp: Math.floor(now / 1000), test: true };
    const payload = JSON.stringify({ id: eventId, type, created_at: new Date(now).toISOString(), tenant_id: tenantId, data });
    const r = await area.dispatch.test(w.id, type, payload, eventId);
    reply.json(
      200,
      JSON.stringify({
        event_id: eventId,
        event_type: type,
        success: isSuccess(r.statusCode),
        status_code: r.statusCode,
        error: r.error,
        duration_ms: r.durationMs,
        response_snippet: r.snippet,
      }),
    );
  });

  // ---- operator: inbound routes and inbound mail
  registerInboundRoutes((method, pattern, name, maxBody, handler) => route(method, pattern, name, "operator", maxBody, handler), {
    tenants: area.tenants,
    inbound: area.inbound,
    intake: area.inboundIntake,
    log: area.log,
    dispatch: area.dispatch,
    guard: area.guard,
    nowMs: area.nowMs,
  });

  // ---- tenant: suppressions
  route("get", "/v1/suppressions", "suppressions-list", "tenant", null, async ({ req, reply, tenantId }) => {
    const q = new URLSearchParams(req.rawQuery);
    const limitRaw = q.get("limit") ?? "100";
    if (!/^\d{1,4}$/.test(limitRaw) || Number(limitRaw) < 1 || Number(limitRaw) > 1000) {
      reply.error(400, "limit must be an integer from 1 to 1000");
      return;
    }
    const limit = Number(limitRaw);
    const rows = await area.suppressions.list(tenantId, limit, normalAddress(q.get("after") ?? ""));
    reply.json(200, JSON.stringify({ suppressions: rows, next_after: rows.length === limit ? rows[rows.length - 1].address : null }));
  });
  route("get", "/v1/suppressions/:address", "suppressions-get", "tenant", null, async ({ req, reply, tenantId }) => {
    const s = await area.suppressions.get(tenantId, req.params[0]);
    if (!s) reply.error(404, "address is not suppressed");
    else reply.json(200, JSON.stringify(s));
  });
  route("post", "/v1/suppressions", "suppressions-add", "tenant", SMALL_BODY, async ({ reply, body, tenantId }) => {
    if (!validators.suppressionCreate(body)) {
      reply.error(400, describeSchemaError("suppression", validators.suppressionCreate.errors));
      return;
    }
    const s = await area.suppressions.add(tenantId, body.address, (body.reason ?? "manual") as "manual");
    reply.json(201, JSON.stringify(s));
  });
  route("del", "/v1/suppressions/:address", "suppressions-delete", "tenant", null, async ({ req, reply, tenantId }) => {
    if (!(await area.suppressions.remove(tenantId, req.params[0]))) {
      reply.error(404, "address is not suppressed");
      return;
    }
    reply.json(200, JSON.stringify({ address: normalAddress(req.params[0]), deleted: true }));
  });

  area.more?.((method, pattern, name, doc, maxBody, handler, bodyTypes) =>
    route(method, pattern, name, "tenant", maxBody, handler, undefined, { doc, ...(bodyTypes ? { bodyTypes } : {}) }),
  );

  // Another method on a path of the area is a 405 naming the ones it takes (uWS prefers a
  // method's own handler to `any` on the same pattern); HEAD gets no body.
  for (const [pattern, allowed] of methods) {
    const allow = [...new Set(allowed.map((m) => ALLOW_NAMES[m]))].join(", ");
    server.route("any", pattern, { name: "method-not-allowed", area: "webhooks" }, (req, reply) => {
      reply.header("Allow", allow);
      if (req.method === "HEAD") reply.send(405, "", "application/json; charset=utf-8");
      else reply.error(405, `${req.method} is not allowed here; allowed: ${allow}`);
    });
  }
}
