// Area A over HTTP: GET /v1/entities, /v1/entities/{lei}, /v1/facets/{field} and /v1/stats.
// No credential; CORS open; rate limited per IP; errors are {"error": ...}.

import { NotReadyError, ShardFailedError } from "../engine/collection.js";
import { FACET_PARAMS, type FacetParam } from "../engine/schema.js";
import { NOT_READY_RESPONSE, replyNotReady } from "../http/not-ready.js";
import type { OperationDoc, RouteOptions } from "../http/route.js";
import type { HttpServer, Reply } from "../http/server.js";
import { ParamError, parseSearchParams, searchQuerySchema } from "./search-params.js";
import type { LeiService } from "./service.js";

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });

export function registerLeiRoutes(server: HttpServer, service: LeiService): void {
  const options = (name: string, doc?: OperationDoc): RouteOptions => ({
    name,
    area: "public",
    cors: true,
    rateLimited: true,
    ...(doc ? { doc } : {}),
  });

  server.route(
    "get",
    "/v1/entities",
    options("search", {
      summary: "Search legal entities (free text, typo tolerant, relevance order)",
      query: Object.entries(searchQuerySchema.properties).map(([name, schema]) => ({
        name,
        description: schema.description,
        schema: { ...schema, "x-hint": undefined },
      })),
      responses: {
        200: { description: "A page of entities", schema: ref("SearchPage") },
        400: { description: "A bad parameter; the message says which and how it is written" },
        503: NOT_READY_RESPONSE,
      },
    }),
    (req, reply) => {
      const params = guard(reply, () => parseSearchParams(req.rawQuery));
      if (!params) return;
      // the page's bytes are valid during the callback only: sent there
      return service.search(params, (page) => reply.json(200, page)).catch((err: unknown) => unavailable(reply, err));
    },
  );

  // the entity's bytes are valid during the callback only: sent there
  server.route(
    "get",
    "/v1/entities/:lei",
    options("entity", {
      summary: "Fetch one legal entity by LEI",
      params: [
        {
          name: "lei",
          description: "ISO 17442 LEI; check digits are verified, but an LEI that fails them is still served when it is in the data",
          example: "529900SIW684OP07HP11",
        },
      ],
      responses: {
        200: { description: "The entity", schema: ref("LegalEntity") },
        400: { description: "Malformed LEI, or failed check digits and not in the data" },
        404: { description: "No such entity" },
        503: NOT_READY_RESPONSE,
      },
    }),
    (req, reply) => {
      try {
        service.entity(req.params[0], (result) => {
          switch (result.kind) {
            case "found":
              return reply.json(200, result.json);
            case "malformed":
            case "bad-check-digits":
              return reply.error(400, result.message);
            case "not-found":
              return reply.error(404, result.message);
          }
        });
      } catch (err) {
        unavailable(reply, err);
      }
    },
  );

  server.route(
    "get",
    "/v1/facets/:field",
    options("facets", {
      summary: "All values of a facet across the dataset, most frequent first",
      params: [{ name: "field", description: "The facet", schema: { type: "string", enum: [...FACET_PARAMS] }, example: "country" }],
      responses: {
        200: { description: "Every value with its count", schema: { type: "array", items: ref("FacetValue") } },
        400: { description: "Not a facetable field" },
        503: NOT_READY_RESPONSE,
      },
    }),
    (req, reply) => {
      const field = req.params[0];
      if (!(FACET_PARAMS as readonly string[]).includes(field)) {
        return reply.error(400, `'${field}' is not a facetable field; facetable: ${FACET_PARAMS.join(", ")}`);
      }
      return service.facetValues(field as FacetParam).then(
        (values) => reply.json(200, JSON.stringify(values.map(([value, count]) => ({ value, count })))),
        (err: unknown) => unavailable(reply, err),
      );
    },
  );

  server.route(
    "get",
    "/v1/stats",
    options("stats", {
      summary: "Dataset statistics: records, publication, load times",
      responses: { 200: { description: "The live dataset", schema: ref("DatasetStats") } },
    }),
    (_req, reply) => {
      reply.json(200, JSON.stringify(service.stats()));
    },
  );

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
    if (err instanceof ParamError) {
      reply.error(400, err.message);
      return null;
    }
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
