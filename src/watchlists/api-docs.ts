// The watchlists' request bodies (checked with ajv), their OpenAPI operations and answer schemas.

import { ajv } from "../http/json-schema.js";
import type { JsonSchema, OperationDoc, ParamDoc } from "../http/route.js";
import { MAX_LEIS_PER_TENANT } from "./lei-input.js";

/** A list body's cap: 100,000 LEIs as JSON or CSV fit with room to spare. */
export const LIST_BODY = 4 * 1024 * 1024;

const leiPattern = "^\\s*[0-9A-Za-z]{18}[0-9]{2}\\s*$";
const leiString = { type: "string", minLength: 1, maxLength: 64 } as const;
const leiList = { type: "array", maxItems: MAX_LEIS_PER_TENANT, items: leiString } as const;
const filterSchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
  properties: {
    ultimateParent: { ...leiString, description: "Every entity whose ultimate accounting consolidation parent is this LEI" },
    directParent: { ...leiString, description: "Every entity whose direct accounting consolidation parent is this LEI" },
  },
} as const;

export const watchlistCreateSchema = {
  type: "object",
  additionalProperties: false,
  anyOf: [{ required: ["leis"] }, { required: ["filter"] }],
  properties: { name: { type: "string", minLength: 1, maxLength: 200 }, leis: leiList, filter: filterSchema },
} as const;

export const watchlistLeisSchema = {
  type: "object",
  required: ["leis"],
  additionalProperties: false,
  properties: { leis: { ...leiList, minItems: 1 } },
} as const;

export const watchValidators = {
  create: ajv.compile<{ name?: string; leis?: string[]; filter?: { ultimateParent?: string; directParent?: string } }>(
    watchlistCreateSchema,
  ),
  leis: ajv.compile<{ leis: string[] }>(watchlistLeisSchema),
};

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
const str = { type: "string" };
const watchlistFields = {
  id: str,
  name: str,
  filter: {
    type: ["object", "null"],
    properties: { ultimateParent: str, directParent: str },
    description: "The list's filter, evaluated when an event is due; null for a list of named LEIs only",
  },
  lei_count: { type: "integer", description: "LEIs named in the list (a filter's members are not counted)" },
  created_at: str,
  updated_at: str,
};
const object = (properties: Record<string, unknown>): JsonSchema => ({ type: "object", required: Object.keys(properties), properties });

export const WATCHLIST_SCHEMAS: Record<string, JsonSchema> = {
  Watchlist: object(watchlistFields),
  WatchlistPage: object({
    ...watchlistFields,
    leis: { type: "array", items: { type: "string", pattern: leiPattern } },
    next_after: { type: ["string", "null"], description: "Pass as after= for the next page; null on the last" },
  }),
};

const id: ParamDoc = { name: "id", description: "The watchlist's id", example: "wl_5kq2v0c1x2b7m4ph9d3a" };
const noList = { description: "No such watchlist (or another tenant's)" };
const bad = { description: "Invalid body: a malformed LEI (form or ISO 17442 check digits), a bad CSV, an unknown field" };
const overCap = {
  description: `The tenant's watchlists would hold more than ${MAX_LEIS_PER_TENANT} LEIs (or it has 1,000 lists); nothing stored`,
};
const csvBody = "a CSV upload (Content-Type: text/csv): one LEI a line, or a header with an LEI column";

export const WATCHLIST_DOCS: Record<string, OperationDoc> = {
  "watchlists-create": {
    summary: "Create a watchlist",
    description:
      `From a JSON list of LEIs, a filter ({"filter": {"ultimateParent": LEI}} or directParent), or ${csvBody} (its name in ?name=). ` +
      "Events of the watched LEIs go to the tenant's webhooks subscribed to lei.* event types.",
    query: [{ name: "name", description: "The list's name, for a CSV upload" }],
    body: {
      schema: watchlistCreateSchema,
      example: { name: "counterparties", leis: ["549300YRNUQ0FK60YT75"] },
      required: true,
    },
    responses: {
      201: { description: "The watchlist", schema: ref("Watchlist") },
      400: bad,
      409: overCap,
      413: { description: "The body is over 4 MiB" },
    },
  },
  "watchlists-list": {
    summary: "List the tenant's watchlists",
    responses: {
      200: { description: "The watchlists", schema: object({ watchlists: { type: "array", items: ref("Watchlist") } }) },
      401: { description: "Missing or unknown key" },
    },
  },
  "watchlists-get": {
    summary: "Get a watchlist with a page of its LEIs",
    params: [id],
    query: [
      { name: "limit", description: "1–1000, default 100", schema: { type: "integer", minimum: 1, maximum: 1000 } },
      { name: "after", description: "The cursor next_after of the previous page" },
    ],
    responses: {
      200: { description: "The list and a page of LEIs, in LEI order", schema: ref("WatchlistPage") },
      400: { description: "A bad parameter" },
      404: noList,
    },
  },
  "watchlists-add": {
    summary: "Add LEIs to a watchlist",
    description: `A JSON list {"leis": [...]} or ${csvBody}; LEIs already in the list are left as they are.`,
    params: [id],
    body: { schema: watchlistLeisSchema, example: { leis: ["549300XULF26SE267B93"] }, required: true },
    responses: {
      200: { description: "How many were new", schema: object({ id: str, added: { type: "integer" }, lei_count: { type: "integer" } }) },
      400: bad,
      404: noList,
      409: overCap,
      413: { description: "The body is over 4 MiB" },
    },
  },
  "watchlists-remove": {
    summary: "Remove LEIs from a watchlist",
    description: `A JSON list {"leis": [...]} or ${csvBody}; LEIs not in the list are ignored.`,
    params: [id],
    body: { schema: watchlistLeisSchema, example: { leis: ["549300XULF26SE267B93"] }, required: true },
    responses: {
      200: { description: "How many went", schema: object({ id: str, removed: { type: "integer" }, lei_count: { type: "integer" } }) },
      400: bad,
      404: noList,
    },
  },
  "watchlists-delete": {
    summary: "Delete a watchlist",
    params: [id],
    responses: { 200: { description: "Deleted", schema: object({ id: str, deleted: { type: "boolean" } }) }, 404: noList },
  },
};
