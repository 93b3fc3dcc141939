// The OpenAPI 3.1 document of every route, generated from the routes the front registered
// (src/http/route.ts): each operation's own answers, plus the ones the pipeline gives itself
// (its guard's 401/403/429, the rate limit's 429, a body's 400/408/413/415, a keyed write's 503
// when the state store cannot take it, 500), its security scheme, tag and error shape.

import { ERROR_SCHEMA, type Area } from "./error-shapes.js";
import {
  RETRY_AFTER,
  type DeclaredRoute,
  type JsonSchema,
  type OperationDoc,
  type ParamDoc,
  type ResponseDoc,
  type SecurityScheme,
} from "./route.js";

const TAGS: Record<Area, { name: string; description: string }> = {
  public: {
    name: "Public LEI API",
    description: "Search and lookup over the GLEIF golden copy. No key; CORS open; rate limited per client address.",
  },
  mcp: {
    name: "MCP",
    description: "The public API as Model Context Protocol tools, over Streamable HTTP. No key; rate limited with the public API.",
  },
  engine: {
    name: "Engine API (Typesense-compatible)",
    description:
      "Keys, collections, aliases, search, documents, import and export, synonyms, presets and stopwords in Typesense's conventions; the official typesense client works.",
  },
  webhooks: {
    name: "Mail event webhooks",
    description: "Tenants, event intake, signed and retried webhook dispatch, delivery logs, suppressions and inbound routes.",
  },
  ops: { name: "Operations", description: "Liveness, readiness and Prometheus metrics. No key." },
};

const SECURITY_SCHEMES: Record<SecurityScheme, object> = {
  engineKey: {
    type: "apiKey",
    in: "header",
    name: "X-SEARCH-API-KEY",
    description:
      "An API key (also accepted as X-TYPESENSE-API-KEY, or as the query parameter x-search-api-key or x-typesense-api-key); scoped keys too.",
  },
  operatorKey: {
    type: "http",
    scheme: "bearer",
    description: "The operator key (--operator-key): tenants, their keys, event intake and inbound routes.",
  },
  tenantKey: { type: "http", scheme: "bearer", description: "A tenant's key: its webhooks and suppressions." },
};

const STATUS_WORDS: Record<number, string> = {
  400: "Bad request",
  401: "Missing or unknown key",
  403: "The key may not do this",
  404: "Not found",
  405: "Method not allowed",
  408: "The body did not arrive in time",
  409: "Conflict",
  413: "The body is too large",
  415: "The body is not JSON",
  429: "Too many requests",
  431: "Headers too large",
  500: "Internal error",
  503: "Unavailable for now",
};

const RATE_HEADERS = {
  "X-RateLimit-Limit": { description: "Requests allowed per window", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in the window", schema: { type: "integer" } },
};

/** The description's version (SPEC.md: area A's description is version 1.0.0). */
const API_VERSION = "1.0.0";

const toOpenApiPath = (pattern: string): string => pattern.replace(/:([A-Za-z_]+)/g, "{$1}");
const httpMethod = (method: string): string => (method === "del" ? "delete" : method);

/** A keyed route's store refusing, answered by the front (store/write-failure.ts). */
const STORE_UNAVAILABLE: ResponseDoc = {
  description:
    "The state store cannot take this now: state.db's disk is full or failing, or, with --database, PostgreSQL is away or busy (a lock or a statement past its time limit, no connection free in time); reads from memory still work",
  headers: RETRY_AFTER,
};

/** The answers the pipeline gives on its own, beside the route's. */
function pipelineAnswers(route: DeclaredRoute, method: string): Record<number, ResponseDoc> {
  const { options } = route;
  const answers: Record<number, ResponseDoc> = {};
  // keyed writes, and every route of area C (some of its reads ask the database)
  if (options.auth && (method !== "get" || options.area === "webhooks")) answers[503] = STORE_UNAVAILABLE;
  if (options.auth) {
    answers[401] = {
      description: "Missing or unknown key",
      ...(options.auth.scheme === "engineKey"
        ? {}
        : { headers: { "WWW-Authenticate": { description: "Bearer", schema: { type: "string" } } } }),
    };
    answers[403] = { description: "The key may not do this" };
    answers[429] = { description: "Too many unknown keys from this address", headers: RETRY_AFTER };
  }
  if (options.rateLimited) answers[429] = { description: "The per-address rate limit is spent", headers: RETRY_AFTER };
  if (options.maxBodyBytes !== undefined || options.uploadDir !== undefined) {
    answers[400] = { description: "The body is not valid JSON, or breaks the schema" };
    answers[408] = { description: "The body did not arrive within 30 s" };
    answers[413] = { description: "The body is larger than the route takes" };
    if (options.maxBodyBytes !== undefined) answers[415] = { description: "Content-Type is not JSON" };
  }
  // answered by uWebSockets.js itself, before any route: not in the area's shape
  answers[431] = {
    description: "The request line and headers exceed 16 KiB; the connection is closed",
    contentType: "text/plain",
    schema: { type: "string" },
  };
  answers[500] = { description: "An unexpected error; the server goes on serving" };
  return answers;
}

function responseObject(status: number, doc: ResponseDoc, area: Area, rateLimited: boolean): object {
  const error = status >= 400;
  const schema = doc.schema ?? (error ? { $ref: `#/components/schemas/${ERROR_SCHEMA[area].name}` } : undefined);
  const headers = { ...(rateLimited ? RATE_HEADERS : {}), ...doc.headers };
  return {
    description: doc.description || STATUS_WORDS[status] || "Answer",
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(schema
      ? { content: { [doc.contentType ?? "application/json"]: { schema, ...(doc.example !== undefined ? { example: doc.example } : {}) } } }
      : {}),
  };
}

function parameter(where: "path" | "query", p: ParamDoc): object {
  return {
    name: p.name,
    in: where,
    required: where === "path" ? true : (p.required ?? false),
    description: p.description,
    schema: p.schema ?? { type: "string" },
    ...(p.example !== undefined ? { example: p.example } : {}),
  };
}

function operation(route: DeclaredRoute, doc: OperationDoc): object {
  const { options } = route;
  const pathParams = [...route.pattern.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
  const documented = new Map((doc.params ?? []).map((p) => [p.name, p]));
  const responses: Record<string, object> = {};
  const pipeline = pipelineAnswers(route, route.method === "any" ? (doc.method ?? "") : route.method);
  const answers = { ...pipeline, ...doc.responses };
  // a route's own 503 (not ready, busy intake) and the store's: either may be the answer
  if (pipeline[503] && doc.responses[503])
    answers[503] = { ...doc.responses[503], description: `${doc.responses[503].description}; or: ${pipeline[503].description}` };
  for (const status of Object.keys(answers)
    .map(Number)
    .sort((a, b) => a - b)) {
    responses[String(status)] = responseObject(
      status,
      answers[status],
      options.area,
      options.rateLimited !== undefined && options.rateLimited !== false,
    );
  }
  return {
    operationId: options.name,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [TAGS[options.area].name],
    security: options.auth ? [{ [options.auth.scheme]: [] }] : [],
    parameters: [
      ...pathParams.map((name) => parameter("path", documented.get(name) ?? { name, description: name })),
      ...(doc.query ?? []).map((p) => parameter("query", p)),
    ],
    ...(doc.body
      ? {
          requestBody: {
            required: doc.body.required ?? false,
            content: {
              [doc.body.contentType ?? "application/json"]: {
                schema: doc.body.schema,
                ...(doc.body.example !== undefined ? { example: doc.body.example } : {}),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/** The document for these routes; routes without an operation (catch-alls, refusals) stay out. */
/** `schemas`: the named JSON Schemas the operations refer to with #/components/schemas/NAME. */
export function openApiDocument(routes: readonly DeclaredRoute[], schemas: Record<string, JsonSchema>): object {
  const paths: Record<string, Record<string, object>> = {};
  const areas = new Set<Area>();
  for (const route of routes) {
    const doc = route.options.doc;
    if (doc === undefined || doc === "refusal") continue;
    const method = route.method === "any" ? doc.method : route.method;
    if (method === undefined) throw new Error(`${route.options.name}: a route of method any must say which method it is documented under`);
    const path = toOpenApiPath(route.pattern);
    paths[path] ??= {};
    paths[path][httpMethod(method)] = operation(route, doc);
    areas.add(route.options.area);
  }
  const errorSchemas = Object.fromEntries([...areas].map((area) => [ERROR_SCHEMA[area].name, ERROR_SCHEMA[area].schema]));
  return {
    openapi: "3.1.0",
    info: {
      title: "Leidex",
      version: API_VERSION,
      description:
        "A self-hosted server for the GLEIF LEI registry: the public LEI API, MCP tools, a Typesense-compatible engine API and mail event webhooks. " +
        "Each area answers errors in its own shape (see the tags).",
      license: { name: "MIT (server); data: CC0 1.0", identifier: "MIT" },
    },
    servers: [{ url: "http://127.0.0.1:8080", description: "A local server (npm start)" }],
    tags: (Object.keys(TAGS) as Area[]).filter((a) => areas.has(a)).map((a) => TAGS[a]),
    paths,
    components: { schemas: { ...schemas, ...errorSchemas }, securitySchemes: SECURITY_SCHEMES },
  };
}
