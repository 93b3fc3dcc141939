// Area A over HTTP: GET /v1/entities, /v1/entities/{lei}, /v1/facets/{field} and /v1/stats.
// No credential; CORS open; rate limited per IP; errors are {"error": ...}.

import { NotReadyError, ShardFailedError } from "../engine/collection.js";
import { FACET_PARAMS, type FacetParam } from "../engine/schema.js";
import { BAD_JSON, BAD_JSON_MESSAGE, parseJsonBody } from "../http/json-schema.js";
import { NOT_READY_RESPONSE, replyNotReady } from "../http/not-ready.js";
import { RETRY_AFTER, type OperationDoc, type RouteOptions } from "../http/route.js";
import { EXPORT_RETRY_AFTER_SECONDS, ExportSlots, exportStallMs } from "../engine-api/keyed-limits.js";
import { FrontWork, sendJson } from "../http/front-work.js";
import type { HttpServer, Reply } from "../http/server.js";
import { answeredNotModified, CONDITIONAL_HEADERS, NOT_MODIFIED } from "./conditional.js";
import { EXPORT_LINE_SCHEMA, EXPORT_WEIGHT, exportParams, MAX_EXPORTS_PER_ADDRESS, MAX_QUERY_EXPORT, streamExport } from "./export.js";
import {
  batchAnswerInTurns,
  batchProblem,
  type IdentifierResolver,
  batchRequestSchema,
  MAX_BATCH_BODY_BYTES,
  MAX_BATCH_LEIS,
} from "./batch-lookup.js";
import { ParamError, parseSearchParams, searchQuerySchema } from "./search-params.js";
import type { LeiService } from "./service.js";

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });

/**
 * `batchSizeFor`: a client's own batch size where a licence grants one, else null; `work`: the
 * front's scheduler of bulk work, which batch lookups run in.
 */
export function registerLeiRoutes(
  server: HttpServer,
  service: LeiService,
  batchSizeFor: (ip: string) => number | null = () => null,
  resolve: IdentifierResolver = () => null,
  work: FrontWork = new FrontWork(),
): void {
  registerLookupRoutes(server, service);
  const exportSlots = new ExportSlots(MAX_EXPORTS_PER_ADDRESS);
  const stallMs = exportStallMs();
  server.route(
    "get",
    "/v1/entities/export",
    {
      name: "entity-export",
      area: "public",
      cors: true,
      rateLimited: "by-weight",
      doc: {
        summary: "Every match of a search, as JSON lines",
        description:
          `With q: the best ${MAX_QUERY_EXPORT} matches in relevance order, as paging through the search gives them. With filters only: every match in LEI order. ` +
          `Streamed with backpressure; a reader that takes nothing for 30 s is cut off. An export weighs ${EXPORT_WEIGHT} requests on the rate limit, ` +
          `and one address runs at most ${MAX_EXPORTS_PER_ADDRESS} at once.`,
        query: Object.entries(searchQuerySchema.properties)
          .filter(([name]) => name !== "page" && name !== "limit" && name !== "facets")
          .map(([name, schema]) => ({ name, description: schema.description, schema: { ...schema, "x-hint": undefined } })),
        responses: {
          200: { description: "One LegalEntity per line", contentType: "application/x-ndjson", schema: EXPORT_LINE_SCHEMA },
          400: { description: "A bad parameter, or page, limit or facets" },
          429: {
            description: `The rate limit, or ${MAX_EXPORTS_PER_ADDRESS} exports already running from this address`,
            headers: RETRY_AFTER,
          },
          503: NOT_READY_RESPONSE,
        },
      },
    },
    async (req, reply) => {
      const params = guard(reply, () => exportParams(req.rawQuery));
      if (!params || !server.rateLimit(req.ip, EXPORT_WEIGHT - 1, reply)) return;
      if (service.liveEtag() === null) return replyNotReady(reply, "temporarily unavailable: no collection is loaded yet");
      const slot = exportSlots.take(req.ip);
      if (!slot) {
        reply.header("Retry-After", String(EXPORT_RETRY_AFTER_SECONDS));
        return reply.error(
          429,
          `this address already runs ${MAX_EXPORTS_PER_ADDRESS} exports, the most it may at once; retry when one has finished`,
        );
      }
      const out = reply.stream("application/x-ndjson", stallMs);
      try {
        await streamExport(service, params, (chunk) => out.write(chunk));
      } finally {
        out.end();
        slot.release();
      }
    },
  );

  server.route(
    "post",
    "/v1/entities/batch",
    {
      name: "entity-batch",
      area: "public",
      cors: true,
      rateLimited: "by-weight",
      maxBodyBytes: MAX_BATCH_BODY_BYTES,
      doc: {
        summary: `Look up to ${MAX_BATCH_LEIS} LEIs at once`,
        description:
          "One row per input, in request order (a repeated LEI is answered each time), with the single lookup's rules: " +
          "an ISIN or BIC stands for the LEI GLEIF maps it to (a malformed one is invalid, an unknown one not_found); " +
          "an LEI failing its check digits is found when it is in the data, else invalid. " +
          "The request spends one rate-limit token per LEI (one when the body is refused).",
        body: { schema: batchRequestSchema, required: true, example: { leis: ["529900SIW684OP07HP11", "NOT-AN-LEI"] } },
        responses: {
          200: { description: "A row per LEI", schema: ref("BatchAnswer") },
          400: { description: "Not JSON, or not a list of strings: the message names the row" },
          413: { description: `More than ${MAX_BATCH_LEIS} LEIs, or a body over 1 MiB` },
          503: NOT_READY_RESPONSE,
        },
      },
    },
    async (req, reply) => {
      const ip = req.ip;
      // parsed, checked and looked up in turns on the front, so that the requests that come meanwhile are answered
      const job = work.job(reply);
      try {
        const bytes = await req.body();
        if (!(await job.turn())) return;
        const body = parseJsonBody(bytes);
        if (body === BAD_JSON) return reply.error(400, BAD_JSON_MESSAGE);
        const problem = batchProblem(body, batchSizeFor(ip) ?? MAX_BATCH_LEIS);
        if (problem) return reply.error(problem.status, problem.message);
        const leis = (body as { leis: string[] }).leis;
        if (!server.rateLimit(ip, leis.length - 1, reply) || !(await job.place())) return;
        const answer = await batchAnswerInTurns(job, service, leis, resolve);
        if (answer !== null) await sendJson(reply, 200, answer);
      } catch (err) {
        unavailable(reply, err);
      } finally {
        job.finish();
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
        200: {
          description: "Every value with its count",
          schema: { type: "array", items: ref("FacetValue") },
          headers: CONDITIONAL_HEADERS,
        },
        304: NOT_MODIFIED,
        400: { description: "Not a facetable field" },
        503: NOT_READY_RESPONSE,
      },
    }),
    (req, reply) => {
      const field = req.params[0];
      if (!(FACET_PARAMS as readonly string[]).includes(field)) {
        return reply.error(400, `'${field}' is not a facetable field; facetable: ${FACET_PARAMS.join(", ")}`);
      }
      if (answeredNotModified(req, reply, service.liveEtag())) return;
      return service.facetValues(field as FacetParam).then(
        (values) => reply.json(200, JSON.stringify(values.map(([value, count]) => ({ value, count })))),
        (err: unknown) => unavailable(reply, err),
      );
    },
  );

  for (const [pattern, allowed] of [
    ["/v1/entities", "GET"],
    ["/v1/entities/:lei", "GET"],
    ["/v1/entities/batch", "POST"],
    ["/v1/facets/:field", "GET"],
    ["/v1/stats", "GET"],
  ]) {
    server.route("any", pattern, options("method-not-allowed"), (req, reply) => {
      reply.header("Allow", `${allowed}, OPTIONS`).error(405, `method ${req.method} is not allowed here; use ${allowed}`);
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

/** A public route: open CORS, one rate-limit token a request. */
function options(name: string, doc?: OperationDoc): RouteOptions {
  return { name, area: "public", cors: true, rateLimited: true, ...(doc ? { doc } : {}) };
}

/**
 * The routes every front thread answers itself (front-thread.ts), from its own view of the
 * collection: the hottest, search and lookup by LEI, and the dataset's stats.
 */
export function registerLookupRoutes(server: HttpServer, service: LeiService): void {
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
        200: { description: "A page of entities", schema: ref("SearchPage"), headers: CONDITIONAL_HEADERS },
        304: NOT_MODIFIED,
        400: { description: "A bad parameter; the message says which and how it is written" },
        503: NOT_READY_RESPONSE,
      },
    }),
    (req, reply) => {
      const params = guard(reply, () => parseSearchParams(req.rawQuery));
      if (!params || answeredNotModified(req, reply, service.liveEtag())) return;
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
        200: { description: "The entity", schema: ref("LegalEntity"), headers: CONDITIONAL_HEADERS },
        304: NOT_MODIFIED,
        400: { description: "Malformed LEI, or failed check digits and not in the data" },
        404: { description: "No such entity" },
        503: NOT_READY_RESPONSE,
      },
    }),
    (req, reply) => {
      if (answeredNotModified(req, reply, service.liveEtag())) return;
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
    "/v1/stats",
    options("stats", {
      summary: "Dataset statistics: records, publication, load times",
      responses: { 200: { description: "The live dataset", schema: ref("DatasetStats"), headers: CONDITIONAL_HEADERS }, 304: NOT_MODIFIED },
    }),
    (req, reply) => {
      if (answeredNotModified(req, reply, service.liveEtag())) return;
      reply.json(200, JSON.stringify(service.stats()));
    },
  );
}
