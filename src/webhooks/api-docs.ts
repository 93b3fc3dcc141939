// The OpenAPI operations of area C by route name, and its answers as JSON Schemas. The request
// bodies' schemas are the ones that validate them (schemas.ts).

import { RETRY_AFTER, type JsonSchema, type OperationDoc, type ParamDoc } from "../http/route.js";
import { SUBSCRIBABLE_KINDS, SUPPRESSION_REASONS } from "./model.js";
import {
  eventBatchSchema,
  inboundCreateSchema,
  inboundMessageSchema,
  inboundUpdateSchema,
  redeliverSchema,
  suppressionCreateSchema,
  tenantCreateSchema,
  testDispatchSchema,
  webhookCreateSchema,
  webhookUpdateSchema,
} from "./schemas.js";

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
const str = { type: "string" };
const nullableStr = { type: ["string", "null"] };
const int = { type: "integer" };
const object = (properties: Record<string, unknown>, required = Object.keys(properties)): JsonSchema => ({
  type: "object",
  required,
  properties,
});
const listOf = (key: string, item: string, extra: Record<string, unknown> = {}): JsonSchema =>
  object({ [key]: { type: "array", items: ref(item) }, ...extra });

const webhookFields = {
  id: str,
  url: str,
  event_types: { type: "array", items: { type: "string", enum: [...SUBSCRIBABLE_KINDS] } },
  status: { type: "string", enum: ["enabled", "disabled"] },
  disabled_reason: nullableStr,
  max_concurrency: int,
  created_at: str,
  updated_at: str,
};
const inboundFields = {
  id: str,
  tenant_id: str,
  match: { ...str, description: "*, @domain or an address" },
  url: str,
  max_concurrency: int,
  created_at: str,
};

export const WEBHOOK_SCHEMAS: Record<string, JsonSchema> = {
  Tenant: object({ id: str, name: str, created_at: str }),
  TenantKey: object({ id: str, prefix: str, created_at: str }),
  TenantKeyCreated: object({
    id: str,
    key: { ...str, description: "The key itself; shown only in this answer" },
    prefix: str,
    created_at: str,
  }),
  Webhook: object(webhookFields),
  WebhookCreated: object({ ...webhookFields, secret: { ...str, description: "The signing secret; shown only here and on rotation" } }),
  Delivery: object({
    delivery_id: str,
    event_id: str,
    event_type: str,
    attempt: int,
    trigger: str,
    outcome: { type: "string", enum: ["success", "failure"] },
    status_code: { type: ["integer", "null"] },
    error: nullableStr,
    duration_ms: int,
    response_snippet: nullableStr,
    attempted_at: nullableStr,
    next_attempt_at: nullableStr,
  }),
  Suppression: object({ address: str, reason: { type: "string", enum: [...SUPPRESSION_REASONS] }, created_at: str }),
  InboundRoute: object(inboundFields),
  InboundRouteCreated: object({ ...inboundFields, secret: { ...str, description: "The signing secret; shown only here" } }),
};

const tenantId: ParamDoc = { name: "id", description: "The tenant's id", example: "tn_3kq9v0c1x2b7m4ph" };
const webhookId: ParamDoc = { name: "id", description: "The webhook's id", example: "wh_8d2k1m0q9z7x4c6v" };
const routeId: ParamDoc = { name: "route", description: "The inbound route's id" };
const address: ParamDoc = { name: "address", description: "The e-mail address, any case", example: "someone@example.com" };
const noTenant = { description: "No such tenant" };
const noWebhook = { description: "No such webhook (or another tenant's)" };
const noRoute = { description: "No such inbound route" };
const busy = { description: "Intake is restarting or full, nothing stored", headers: RETRY_AFTER };
const badUrl = { description: "Invalid body, or the url is not a public http(s) address" };
const dnsLater = { description: "The url's host could not be resolved right now", headers: RETRY_AFTER };
const deleted = (key: string): JsonSchema => object({ [key]: str, deleted: { type: "boolean" } });

export const WEBHOOK_DOCS: Record<string, OperationDoc> = {
  "tenants-create": {
    summary: "Create a tenant",
    body: { schema: tenantCreateSchema, example: { name: "Acme Mail" }, required: true },
    responses: { 201: { description: "The tenant", schema: ref("Tenant") }, 400: { description: "Invalid body" } },
  },
  "tenants-list": { summary: "List tenants", responses: { 200: { description: "The tenants", schema: listOf("tenants", "Tenant") } } },
  "tenants-get": {
    summary: "Get a tenant",
    params: [tenantId],
    responses: { 200: { description: "The tenant", schema: ref("Tenant") }, 404: noTenant },
  },
  "tenant-keys-create": {
    summary: "Create a tenant key",
    description: "The key's value is shown only in this answer.",
    params: [tenantId],
    responses: { 201: { description: "The key", schema: ref("TenantKeyCreated") }, 404: noTenant },
  },
  "tenant-keys-list": {
    summary: "List a tenant's keys",
    params: [tenantId],
    responses: { 200: { description: "Ids and prefixes", schema: listOf("keys", "TenantKey") }, 404: noTenant },
  },
  "tenant-keys-delete": {
    summary: "Revoke a tenant key",
    params: [tenantId, { name: "key", description: "The key's id" }],
    responses: {
      200: { description: "Revoked", schema: object({ id: str, revoked: { type: "boolean" } }) },
      404: { description: "No such key" },
    },
  },
  "events-intake": {
    summary: "Submit mail events",
    description:
      "Up to 1,000 events, committed before the 202; each is fanned out to the tenant's subscribed webhooks. An event id seen before is a duplicate, not stored again.",
    body: {
      schema: eventBatchSchema,
      required: true,
      example: {
        events: [
          {
            id: "ev_1",
            tenant_id: "tn_3kq9v0c1x2b7m4ph",
            message_id: "m_1",
            type: "delivered",
            recipient: "someone@example.com",
            timestamp: 1764151200,
          },
        ],
      },
    },
    responses: {
      202: { description: "Stored", schema: object({ accepted: int, duplicates: int, deliveries: int }) },
      400: { description: "Invalid batch, or an unknown tenant" },
      409: { description: "An event's state may not follow its message's; nothing stored" },
      429: { description: "A webhook's or tenant's backlog is full", headers: RETRY_AFTER },
      503: busy,
    },
  },
  "webhooks-create": {
    summary: "Create a webhook",
    description: "The signing secret is shown only in this answer.",
    body: {
      schema: webhookCreateSchema,
      example: { url: "https://hooks.example.com/mail", event_types: ["delivered", "bounced"] },
      required: true,
    },
    responses: { 201: { description: "The webhook with its secret", schema: ref("WebhookCreated") }, 400: badUrl, 503: dnsLater },
  },
  "webhooks-list": {
    summary: "List the tenant's webhooks",
    responses: { 200: { description: "The webhooks", schema: listOf("webhooks", "Webhook") } },
  },
  "webhooks-get": {
    summary: "Get a webhook",
    params: [webhookId],
    responses: { 200: { description: "The webhook", schema: ref("Webhook") }, 404: noWebhook },
  },
  "webhooks-update": {
    summary: "Change a webhook: url, event types, cap, enabled",
    description: "Disabling it fails its pending deliveries.",
    params: [webhookId],
    body: { schema: webhookUpdateSchema, example: { enabled: false }, required: true },
    responses: { 200: { description: "The webhook", schema: ref("Webhook") }, 400: badUrl, 404: noWebhook, 503: dnsLater },
  },
  "webhooks-delete": {
    summary: "Delete a webhook",
    description: "Its pending deliveries fail.",
    params: [webhookId],
    responses: { 200: { description: "Deleted", schema: deleted("id") }, 404: noWebhook },
  },
  "webhooks-rotate": {
    summary: "Rotate a webhook's signing secret",
    params: [webhookId],
    responses: { 200: { description: "The new secret", schema: object({ id: str, secret: str }) }, 404: noWebhook },
  },
  "webhooks-deliveries": {
    summary: "A webhook's delivery log, newest first",
    params: [webhookId],
    query: [
      { name: "outcome", description: "success or failure", schema: { type: "string", enum: ["success", "failure"] } },
      { name: "limit", description: "1–100, default 20", schema: { type: "integer", minimum: 1, maximum: 100 } },
      { name: "before", description: "The cursor next_before of the previous page", schema: { type: "integer" } },
    ],
    responses: {
      200: { description: "A page of attempts", schema: listOf("deliveries", "Delivery", { next_before: { type: ["integer", "null"] } }) },
      400: { description: "A bad parameter" },
      404: noWebhook,
    },
  },
  "webhooks-redeliver-one": {
    summary: "Deliver one delivery again",
    params: [webhookId, { name: "delivery", description: "The delivery's id" }],
    responses: {
      202: { description: "Queued", schema: object({ redelivering: int }) },
      404: { description: "No such webhook or delivery" },
      409: { description: "The webhook is disabled" },
    },
  },
  "webhooks-redeliver-failed": {
    summary: "Deliver again every failed delivery since a time",
    params: [webhookId],
    body: { schema: redeliverSchema, example: { since: 1764151200 }, required: true },
    responses: {
      202: { description: "Queued", schema: object({ redelivering: int }) },
      400: { description: "Invalid body" },
      404: noWebhook,
      409: { description: "The webhook is disabled" },
    },
  },
  "webhooks-test": {
    summary: "Send a signed test event now and report the answer",
    params: [webhookId],
    body: { schema: testDispatchSchema, example: { event_type: "delivered" } },
    responses: {
      200: {
        description: "What the endpoint answered",
        schema: object({
          event_id: str,
          event_type: str,
          success: { type: "boolean" },
          status_code: { type: ["integer", "null"] },
          error: nullableStr,
          duration_ms: int,
          response_snippet: nullableStr,
        }),
      },
      400: { description: "Invalid body" },
      404: noWebhook,
    },
  },
  "inbound-routes-create": {
    summary: "Create an inbound route for a tenant",
    params: [tenantId],
    body: { schema: inboundCreateSchema, example: { match: "@in.example.com", url: "https://hooks.example.com/inbound" }, required: true },
    responses: {
      201: { description: "The route with its secret", schema: ref("InboundRouteCreated") },
      400: badUrl,
      404: noTenant,
      503: dnsLater,
    },
  },
  "inbound-routes-list": {
    summary: "List a tenant's inbound routes",
    params: [tenantId],
    responses: { 200: { description: "The routes", schema: listOf("inbound_routes", "InboundRoute") }, 404: noTenant },
  },
  "inbound-routes-get": {
    summary: "Get an inbound route",
    params: [tenantId, routeId],
    responses: { 200: { description: "The route", schema: ref("InboundRoute") }, 404: noRoute },
  },
  "inbound-routes-update": {
    summary: "Change an inbound route",
    params: [tenantId, routeId],
    body: { schema: inboundUpdateSchema, example: { max_concurrency: 4 }, required: true },
    responses: { 200: { description: "The route", schema: ref("InboundRoute") }, 400: badUrl, 404: noRoute, 503: dnsLater },
  },
  "inbound-routes-delete": {
    summary: "Delete an inbound route",
    description: "Its pending dispatches fail.",
    params: [tenantId, routeId],
    responses: { 200: { description: "Deleted", schema: deleted("id") }, 404: noRoute },
  },
  "inbound-receive": {
    summary: "Hand over a received message",
    description: "The matching route's URL gets it as a signed inbound dispatch, stored before the 202.",
    body: {
      schema: inboundMessageSchema,
      example: { id: "in_1", recipient: "support@in.example.com", from: "someone@example.com", subject: "Hello", timestamp: 1764151200 },
      required: true,
    },
    responses: {
      202: {
        description: "Stored (or a duplicate of one stored)",
        schema: object({ route_id: str, tenant_id: str, duplicate: { type: "boolean" } }),
      },
      400: { description: "Invalid message" },
      404: { description: "No inbound route matches the recipient" },
      429: { description: "The route's or tenant's backlog is full", headers: RETRY_AFTER },
    },
  },
  "suppressions-list": {
    summary: "List the tenant's suppressed addresses",
    query: [
      { name: "limit", description: "1–1000, default 100", schema: { type: "integer", minimum: 1, maximum: 1000 } },
      { name: "after", description: "The cursor next_after of the previous page" },
    ],
    responses: {
      200: { description: "A page, in address order", schema: listOf("suppressions", "Suppression", { next_after: nullableStr }) },
      400: { description: "A bad limit" },
    },
  },
  "suppressions-get": {
    summary: "Whether an address is suppressed",
    params: [address],
    responses: { 200: { description: "The suppression", schema: ref("Suppression") }, 404: { description: "Not suppressed" } },
  },
  "suppressions-add": {
    summary: "Suppress an address",
    body: { schema: suppressionCreateSchema, example: { address: "someone@example.com", reason: "manual" }, required: true },
    responses: { 201: { description: "The suppression", schema: ref("Suppression") }, 400: { description: "Invalid body" } },
  },
  "suppressions-delete": {
    summary: "Lift a suppression",
    params: [address],
    responses: { 200: { description: "Lifted", schema: deleted("address") }, 404: { description: "Not suppressed" } },
  },
};
