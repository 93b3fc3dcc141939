// What a route declares: its method and path, its area (error shape), who may call it (a Guard,
// run by the front before the handler, whose principal the handler receives), the limits the
// front applies, and its OpenAPI operation. The front runs every route through one pipeline
// (src/http/server.ts); the OpenAPI document is generated from these declarations
// (src/http/openapi.ts).

import type { Area } from "./error-shapes.js";
import type { Reply, Request } from "./server.js";

export type Method = "get" | "post" | "put" | "patch" | "del";

/** The OpenAPI security scheme a guard stands for. */
export type SecurityScheme = "engineKey" | "operatorKey" | "tenantKey";

/** Returned by a guard that has answered the request itself (401, 403, 429, ...). */
export const REFUSED: unique symbol = Symbol("refused");

/**
 * Who may call a route. admit() runs synchronously before the handler and before any body is
 * read: it answers a refusal itself and returns REFUSED, or returns the caller (the principal).
 */
export interface Guard<P> {
  readonly scheme: SecurityScheme;
  admit(req: Request, reply: Reply): P | typeof REFUSED;
}

export type JsonSchema = Record<string, unknown>;

export interface ParamDoc {
  name: string;
  description: string;
  schema?: JsonSchema;
  required?: boolean;
  example?: unknown;
}

export interface ResponseDoc {
  description: string;
  schema?: JsonSchema;
  /** default application/json */
  contentType?: string;
  example?: unknown;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

/** A route's OpenAPI operation; the errors the pipeline gives itself are added by the generator. */
export interface OperationDoc {
  /** for a route of method "any": the method it is documented under */
  method?: Method;
  summary: string;
  description?: string;
  /** path parameters, in the path's order */
  params?: ParamDoc[];
  query?: ParamDoc[];
  body?: { schema: JsonSchema; example?: unknown; contentType?: string; required?: boolean };
  responses: Record<number, ResponseDoc>;
}

export type BodyTypes = "json" | "json-or-form" | "json-or-text" | "json-or-csv";

export interface RouteOptions<P = undefined> {
  /** the metrics label, and the operation's id in the OpenAPI document */
  name: string;
  area: Area;
  auth?: Guard<P>;
  /**
   * Its OpenAPI operation, or "refusal" for a route that answers every request with an error
   * (a read-only resource's writes): those stay out of the document. Only the catch-alls of
   * method "any" (405s naming the allowed methods, the 404 fallback) may have neither.
   */
  doc?: OperationDoc | "refusal";
  cors?: boolean;
  /** true: each request spends one of the address's tokens; "by-weight": one, and the handler the rest of its weight (HttpServer.rateLimit) */
  rateLimited?: boolean | "by-weight";
  /** read request bodies up to this many bytes; another Content-Type than bodyTypes allows is a 415 */
  maxBodyBytes?: number;
  /**
   * the media types a body may have: JSON (the default); JSON or an HTML form (urlencoded); or
   * JSON sent as text/plain, as browsers' clients do to spare a CORS preflight (Typesense's); or
   * JSON or a CSV upload (text/csv: watchlists)
   */
  bodyTypes?: BodyTypes;
  /** stream request bodies into files in this directory (see Request.upload) */
  uploadDir?: string;
  maxUploadBytes?: number;
}

export type Handler<P = undefined> = (req: Request, reply: Reply, principal: P) => void | Promise<void>;

/** A route as the front registered it. */
export interface DeclaredRoute {
  method: Method | "any";
  pattern: string;
  options: RouteOptions<unknown>;
}

/** The header every 429 and 503 carries. */
export const RETRY_AFTER = { "Retry-After": { description: "Seconds to wait before trying again", schema: { type: "integer" } } };
