// Request bodies of area C, checked with ajv.

import { ajv } from "../http/json-schema.js";
import { EVENT_KINDS, MAX_CONCURRENCY, SUBSCRIBABLE_KINDS, SUPPRESSION_REASONS } from "./model.js";

/** The cap on a JSON body of area C, except event batches. */
export const SMALL_BODY = 64 * 1024;
/** The most events one POST /v1/events may carry. */
export const MAX_BATCH_EVENTS = 1000;

const maxConcurrency = { type: "integer", minimum: 1, maximum: MAX_CONCURRENCY } as const;

export const tenantCreateSchema = {
  type: "object",
  required: ["name"],
  additionalProperties: false,
  properties: { name: { type: "string", minLength: 1, maxLength: 200 } },
} as const;

const eventTypes = {
  type: "array",
  minItems: 1,
  maxItems: SUBSCRIBABLE_KINDS.length,
  uniqueItems: true,
  items: { type: "string", enum: [...SUBSCRIBABLE_KINDS] },
} as const;

export const webhookCreateSchema = {
  type: "object",
  required: ["url", "event_types"],
  additionalProperties: false,
  properties: {
    url: { type: "string", minLength: 1, maxLength: 2048 },
    event_types: eventTypes,
    max_concurrency: maxConcurrency,
  },
} as const;

export const webhookUpdateSchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    url: { type: "string", minLength: 1, maxLength: 2048 },
    event_types: eventTypes,
    enabled: { type: "boolean" },
    max_concurrency: maxConcurrency,
  },
} as const;

const bounceType = { type: "string", enum: ["hard", "soft"] } as const;

export const eventBatchSchema = {
  type: "object",
  required: ["events"],
  additionalProperties: false,
  properties: {
    events: {
      type: "array",
      minItems: 1,
      maxItems: MAX_BATCH_EVENTS,
      items: {
        type: "object",
        required: ["id", "tenant_id", "message_id", "type", "recipient", "timestamp"],
        additionalProperties: false,
        properties: {
          id: { type: "string", minLength: 1, maxLength: 200 },
          tenant_id: { type: "string", minLength: 1, maxLength: 100 },
          message_id: { type: "string", minLength: 1, maxLength: 500 },
          type: { type: "string", enum: [...EVENT_KINDS] },
          recipient: { type: "string", minLength: 3, maxLength: 320, pattern: "^[^@\\s]+@[^@\\s]+$" },
          timestamp: { type: "integer", minimum: 0, maximum: 99_999_999_999 },
          bounce_type: bounceType,
          smtp_code: { type: "integer", minimum: 200, maximum: 599 },
          reason: { type: "string", maxLength: 2000 },
          url: { type: "string", maxLength: 4096 },
          user_agent: { type: "string", maxLength: 2000 },
          ip: { type: "string", maxLength: 64 },
          http_method: { type: "string", maxLength: 16 },
          method: { type: "string", enum: ["one_click_post", "link", "mailto", "other"] },
        },
        if: { properties: { type: { const: "bounced" } } },
        then: { required: ["bounce_type"], properties: { bounce_type: bounceType } },
      },
    },
  },
} as const;

export const suppressionCreateSchema = {
  type: "object",
  required: ["address"],
  additionalProperties: false,
  properties: {
    address: { type: "string", minLength: 3, maxLength: 320, pattern: "^[^@\\s]+@[^@\\s]+$" },
    reason: { type: "string", enum: [...SUPPRESSION_REASONS] },
  },
} as const;

export const testDispatchSchema = {
  type: "object",
  additionalProperties: false,
  properties: { event_type: { type: "string", enum: [...SUBSCRIBABLE_KINDS] } },
} as const;

export const redeliverSchema = {
  type: "object",
  required: ["since"],
  additionalProperties: false,
  properties: { since: { type: "integer", minimum: 0, maximum: 99_999_999_999 } },
} as const;

const routeMatch = { type: "string", minLength: 1, maxLength: 320, pattern: "^(\\*|@[^@\\s]+|[^@\\s]+@[^@\\s]+)$" } as const;

export const inboundCreateSchema = {
  type: "object",
  required: ["match", "url"],
  additionalProperties: false,
  properties: { match: routeMatch, url: { type: "string", minLength: 1, maxLength: 2048 }, max_concurrency: maxConcurrency },
} as const;

export const inboundUpdateSchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: { match: routeMatch, url: { type: "string", minLength: 1, maxLength: 2048 }, max_concurrency: maxConcurrency },
} as const;

export const inboundMessageSchema = {
  type: "object",
  required: ["id", "recipient", "from", "timestamp"],
  additionalProperties: false,
  properties: {
    id: { type: "string", minLength: 1, maxLength: 200 },
    recipient: { type: "string", minLength: 3, maxLength: 320, pattern: "^[^@\\s]+@[^@\\s]+$" },
    from: { type: "string", minLength: 1, maxLength: 998 },
    subject: { type: "string", maxLength: 998 },
    text: { type: "string", maxLength: 900_000 },
    html: { type: "string", maxLength: 900_000 },
    headers: { type: "object", maxProperties: 200, additionalProperties: { type: "string", maxLength: 8192 } },
    timestamp: { type: "integer", minimum: 0, maximum: 99_999_999_999 },
  },
} as const;

export const validators = {
  tenantCreate: ajv.compile<{ name: string }>(tenantCreateSchema),
  webhookCreate: ajv.compile<{ url: string; event_types: string[]; max_concurrency?: number }>(webhookCreateSchema),
  webhookUpdate: ajv.compile<{ url?: string; event_types?: string[]; enabled?: boolean; max_concurrency?: number }>(webhookUpdateSchema),
  eventBatch: ajv.compile<{ events: unknown[] }>(eventBatchSchema),
  suppressionCreate: ajv.compile<{ address: string; reason?: string }>(suppressionCreateSchema),
  testDispatch: ajv.compile<{ event_type?: string }>(testDispatchSchema),
  redeliver: ajv.compile<{ since: number }>(redeliverSchema),
  inboundCreate: ajv.compile<{ match: string; url: string; max_concurrency?: number }>(inboundCreateSchema),
  inboundUpdate: ajv.compile<{ match?: string; url?: string; max_concurrency?: number }>(inboundUpdateSchema),
  inboundMessage: ajv.compile<{
    id: string;
    recipient: string;
    from: string;
    subject?: string;
    text?: string;
    html?: string;
    headers?: Record<string, string>;
    timestamp: number;
  }>(inboundMessageSchema),
};
