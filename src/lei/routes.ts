// Area A over HTTP: GET /v1/entities, /v1/entities/{lei}, /v1/facets/{field}, /v1/stats and
// the OpenAPI document. No credential; CORS open; rate limited per IP; errors are {"error": ...}.

import { NotReadyError, ShardFailedError } from "../engine/collection.js";
import { FACET_PARAMS, type FacetParam } from "../engine/schema.js";
import { replyNotReady } from "../http/not-ready.js";
import type { HttpServer, Reply, RouteOptions } from "../http/server.js";
import { openApiDocument } from "./openapi.js";
import { ParamError, parseSearchParams } from "./search-params.js";
import type { LeiService } from "./service.js";

export const leiErrorBody = (message: string): string => JSON.stringify({ error: message });

export function registerLeiRoutes(server: HttpServer, service: LeiService): void {
  const options = (name: string): RouteOptions => ({ name, errorBody: leiErrorBody, cors: true, rateLimited: true });
  const openapi = JSON.stringify(openApiDocument());

  server.route("get", "/v1/entities", options("search"), (req, reply) => {
    const params = guard(reply, () => parseSearchParams(req.rawQuery));
    if (!params) return;
    // the page's bytes are valid during the callback only: sent there
    return service.search(params, (page) => reply.json(200, page)).catch((err: unknown) => unavailable(reply, err));
  });

  // the entity's bytes are valid during the callback only: sent there
  server.route("get", "/v1/entities/:lei", options("entity"), (req, reply) => {
    try {
      service.entity(req.params[0], (result) => {
        switch (result.kind) {
          case "found": return reply.json(200, result.json);
          case "malformed":
          case "bad-check-digits": return reply.error(400, result.message);
          case "not-found": return reply.error(404, result.message);
        }
      });
    } catch (err) {
      unavailable(reply, err);
    }
  });

  server.route("get", "/v1/facets/:field", options("facets"), (req, reply) => {
    const field = req.params[0];
    if (!(FACET_PARAMS as readonly string[]).includes(field)) {
      return reply.error(400, `'${field}' is not a facetable field; facetable: ${FACET_PARAMS.join(", ")}`);
    }
    return service.facetValues(field as FacetParam).then(
      (values) => reply.json(200, JSON.stringify(values.map(([value, count]) => ({ value, count })))),
      (err: unknown) => unavailable(reply, err),
    );
  });

  server.route("get", "/v1/stats", options("stats"), (_req, reply) => {
    reply.json(200, JSON.stringify(service.stats()));
  });

  server.route("get", "/openapi.json", options("openapi"), (_req, reply) => reply.json(200, openapi));

  for (const pattern of ["/v1/entities", "/v1/entities/:lei", "/v1/facets/:field", "/v1/stats"]) {
    server.route("any", pattern, options("method-not-allowed"), (req, reply) => {
      reply.header("Allow", "GET, OPTIONS").error(405, `method ${req.method} is not allowed here; use GET`);
    });
  }
}

function guard<T>(reply: Reply, parse: () => T): T | null {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ParamError) { reply.error(400, err.message); return null; }
    throw err;
  }
}

/**
 * A collection not loaded yet, or a shard gone: 503 with Retry-After; anything else goes on up
 * (the server answers it 500). The routes chain it on the work's promise with one .then rather
 * than an async wrapper (each await layer is a promise hop on the busiest thread), or catch it
 * around a lookup, which answers at once.
 */
function unavailable(reply: Reply, err: unknown): void {
  if (err instanceof NotReadyError || err instanceof ShardFailedError) {
    replyNotReady(reply, `temporarily unavailable: ${(err as Error).message}`);
    return;
  }
  throw err;
}
