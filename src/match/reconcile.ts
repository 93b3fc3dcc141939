// The Reconciliation Service API 0.2 at /reconcile, the protocol OpenRefine and other tools speak,
// over the same matcher as POST /v1/match: GET /reconcile is the manifest; a batch of queries
// comes as the `queries` parameter (query string or an urlencoded form) or as a JSON body;
// candidates are LEIs with the entity's name, a score from 0 to 100 and `match` for a sure
// one. Preview (a small HTML card) and entity suggest come with it. CORS is open.

import { NotReadyError, ShardFailedError } from "../engine/collection.js";
import type { LegalEntity } from "../engine/schema.js";
import { ajv, BAD_JSON, describeSchemaError, parseJsonBody } from "../http/json-schema.js";
import { NOT_READY_RESPONSE, replyNotReady } from "../http/not-ready.js";
import { QueryStringError, queryRecord } from "../http/query-string.js";
import type { JsonSchema, ParamDoc, ResponseDoc } from "../http/route.js";
import type { HttpServer, Reply, Request } from "../http/server.js";
import type { LeiService } from "../lei/service.js";
import type { IdentifierResolver } from "../lei/batch-lookup.js";
import { AnswerBytes } from "../http/answer-bytes.js";
import { FrontWork, sendJson } from "../http/front-work.js";
import { Matcher, type MatchRow, type RowMatch } from "./matcher.js";
import { LegalFormWords } from "./legal-form-words.js";
import { matchRowsInTurns, type MatchSink } from "./routes.js";

export const MAX_RECONCILE_QUERIES = 1000;
const MAX_BODY = 1024 * 1024;
const ENTITY_TYPE = { id: "LegalEntity", name: "Legal entity (GLEIF LEI record)" };
const PROPERTIES = ["country", "city", "postalCode", "lei", "registeredAs"] as const;
type Property = (typeof PROPERTIES)[number];

const queryBatchSchema = {
  type: "object",
  maxProperties: MAX_RECONCILE_QUERIES,
  additionalProperties: {
    type: "object",
    required: ["query"],
    properties: {
      query: { type: "string", minLength: 1, maxLength: 500 },
      type: { oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] },
      limit: { type: "number", minimum: 1 },
      type_strict: { type: "string" },
      properties: {
        type: "array",
        maxItems: 20,
        items: {
          type: "object",
          required: ["pid", "v"],
          properties: { pid: { type: "string", enum: [...PROPERTIES] }, v: {} },
        },
      },
    },
  },
} as const;
interface ReconQuery {
  query: string;
  limit?: number;
  properties?: { pid: Property; v: unknown }[];
}
const validateBatch = ajv.compile<Record<string, ReconQuery>>(queryBatchSchema);

/** How a candidate or suggestion is named. */
const CANDIDATE_NAMING = {
  id: { type: "string", description: "The LEI" },
  name: { type: "string" },
  description: { type: "string", description: "City · country · entity and registration status" },
};

export const RECONCILE_SCHEMAS: Record<string, JsonSchema> = {
  ReconciliationQueryBatch: queryBatchSchema,
  ReconciliationSuggestions: {
    type: "object",
    required: ["result"],
    properties: { result: { type: "array", items: { type: "object", required: ["id", "name"], properties: CANDIDATE_NAMING } } },
  },
  ReconciliationResultBatch: {
    type: "object",
    additionalProperties: {
      type: "object",
      required: ["result"],
      properties: {
        result: {
          type: "array",
          items: {
            type: "object",
            required: ["id", "name", "score"],
            properties: {
              ...CANDIDATE_NAMING,
              score: { type: "number", minimum: 0, maximum: 100 },
              match: { type: "boolean" },
              type: { type: "array", items: { type: "object", properties: { id: { type: "string" }, name: { type: "string" } } } },
              features: {
                type: "array",
                items: { type: "object", properties: { id: { type: "string" }, value: { type: ["number", "boolean"] } } },
              },
            },
          },
        },
      },
    },
  },
};

/** A property value as text: a string, number or boolean, the first of a list, or a reconciled entity's id. */
function valueText(v: unknown): string | undefined {
  const one = Array.isArray(v) ? v[0] : v;
  if (typeof one === "string" || typeof one === "number" || typeof one === "boolean") return String(one);
  if (one !== null && typeof one === "object" && typeof (one as { id?: unknown }).id === "string") return (one as { id: string }).id;
  return undefined;
}

function rowOf(q: ReconQuery): MatchRow {
  const row: MatchRow = { name: q.query };
  for (const { pid, v } of q.properties ?? []) {
    const text = valueText(v);
    if (text !== undefined) row[pid] = text;
  }
  if (row.country !== undefined && !/^[A-Za-z]{2}$/.test(row.country)) delete row.country; // a country not in ISO 3166 letters cannot agree
  return row;
}

/**
 * A result batch, written query by query as the rows are scored: {id: {result: [...]}, ...} in
 * the order of the queries' ids, each id written as JSON text (no object keyed by them).
 */
class ReconcileAnswer implements MatchSink {
  readonly rows: MatchRow[] = [];
  /** candidates each query asks for */
  private readonly limits: number[] = [];
  private readonly ids: string[] = [];
  /** the most any query asks for: what the matcher is asked */
  readonly deepest: number;
  private readonly out = new AnswerBytes(64 * 1024);

  constructor(batch: [string, ReconQuery][]) {
    for (const [id, query] of batch) {
      this.ids.push(id);
      this.rows.push(rowOf(query));
      this.limits.push(Math.min(25, Math.max(1, Math.floor(query.limit ?? 5))));
    }
    this.deepest = Math.max(...this.limits, 1);
    this.out.text("{");
  }

  add(m: RowMatch, row: number): void {
    const result = m.candidates.slice(0, this.limits[row]).map((c, k) => ({
      id: c.lei,
      name: c.name ?? c.lei,
      description: describe(c.entity),
      score: Math.round(c.score * 1000) / 10,
      match: k === 0 && m.verdict === "match",
      type: [ENTITY_TYPE],
      features: [
        { id: "name_similarity", value: c.explanation.name.similarity },
        { id: "country_agrees", value: c.explanation.country === "agrees" },
      ],
    }));
    this.out.text(`${row > 0 ? "," : ""}${JSON.stringify(this.ids[row])}:${JSON.stringify({ result })}`);
  }

  finish(): Buffer {
    return this.out.text("}").view();
  }
}

const describe = (e: LegalEntity): string =>
  [e.city, e.country, e.entityStatus, e.registrationStatus].filter((x): x is string => x !== null && x !== "").join(" · ");

/** The base URL clients reach this server by, for the manifest's service URLs. */
function baseUrl(req: Request): string {
  const proto = req.header("x-forwarded-proto") === "https" ? "https" : "http";
  const host = req.header("x-forwarded-host") || req.header("host") || "127.0.0.1";
  return `${proto}://${host.split(",")[0].trim()}`;
}

/** The `queries` of a request: the query string's, a form's, or a JSON body (the batch itself, or {"queries": ...}). */
function queriesOf(rawQuery: string, body: Buffer, contentType: string): unknown {
  const fromText = (text: string | undefined): unknown => (text === undefined ? undefined : parseJsonBody(Buffer.from(text)));
  if (body.length > 0) {
    if (contentType.startsWith("application/x-www-form-urlencoded"))
      return fromText(new URLSearchParams(body.toString("utf8")).get("queries") ?? undefined);
    const json = parseJsonBody(body);
    if (json !== null && typeof json === "object" && "queries" in json) {
      const inner = (json as { queries: unknown }).queries;
      return typeof inner === "string" ? fromText(inner) : inner;
    }
    return json;
  }
  return fromText(queryRecord(rawQuery).queries);
}

/** A query parameter that must be there, at most 500 characters; null once the 400 is answered. */
function requiredParam(req: Request, reply: Reply, name: string, what: string): string | null {
  let value: string | undefined;
  try {
    value = queryRecord(req.rawQuery)[name];
  } catch (err) {
    if (!(err instanceof QueryStringError)) throw err;
    reply.error(400, err.message);
    return null;
  }
  if (value === undefined || value.trim() === "" || value.length > 500) {
    reply.error(400, `the parameter '${name}' (${what}, at most 500 characters) is required`);
    return null;
  }
  return value;
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * `resolve`: the `lei` property may be an ISIN or BIC, standing for the LEI it maps to; `work`:
 * the front's scheduler of bulk work, which query batches run in.
 */
export function registerReconcileRoutes(
  server: HttpServer,
  service: LeiService,
  resolve: IdentifierResolver = () => null,
  work: FrontWork = new FrontWork(),
  forms: LegalFormWords = LegalFormWords.bundled(),
): void {
  const matcher = new Matcher(service, resolve, forms);
  const manifest = (base: string): object => {
    return {
      versions: ["0.2"],
      name: "Leidex: the GLEIF LEI registry",
      identifierSpace: "https://www.gleif.org/lei/",
      schemaSpace: "https://www.gleif.org/lei/schema/",
      documentation: `${base}/docs`,
      view: { url: "https://search.gleif.org/#/record/{{id}}" },
      defaultTypes: [ENTITY_TYPE],
      preview: { url: `${base}/reconcile/preview?id={{id}}`, width: 420, height: 140 },
      suggest: { entity: { service_url: base, service_path: "/reconcile/suggest/entity" } },
    };
  };

  const reconcile = async (req: Request, reply: Reply): Promise<void> => {
    // the request's headers are gone after the first await: read them now
    const ip = req.ip;
    const base = baseUrl(req);
    const contentType = req.method === "POST" ? req.header("content-type").toLowerCase() : "";
    const rawQuery = req.rawQuery;
    // parsed, checked and matched in turns on the front, so that the requests that come meanwhile are answered
    const job = work.job(reply);
    try {
      const body = await req.body();
      if ((body.length > 0 || rawQuery !== "") && !(await job.turn())) return;
      let queries: unknown;
      try {
        queries = queriesOf(rawQuery, body, contentType);
      } catch (err) {
        if (!(err instanceof QueryStringError)) throw err;
        return reply.error(400, err.message);
      }
      if (queries === undefined) return reply.json(200, JSON.stringify(manifest(base)));
      if (queries === BAD_JSON)
        return reply.error(400, 'queries must be a JSON object of queries, e.g. {"q0": {"query": "Deutsche Bank"}}');
      if (queries !== null && typeof queries === "object" && Object.keys(queries).length > MAX_RECONCILE_QUERIES) {
        return reply.error(413, `a batch holds at most ${MAX_RECONCILE_QUERIES} queries; split it`);
      }
      if (!validateBatch(queries)) return reply.error(400, describeSchemaError("queries", validateBatch.errors));
      // the ids are the client's: an id such as __proto__ is one like any other, never a key of an object here
      const batch = Object.entries(queries);
      // an empty batch costs its one token too
      if (!server.rateLimit(ip, Math.max(0, batch.length - 1), reply) || !(await job.place())) return;
      const answer = new ReconcileAnswer(batch);
      if (await matchRowsInTurns(job, matcher, answer.rows, answer.deepest, answer)) await sendJson(reply, 200, answer.finish());
    } catch (err) {
      if (!(err instanceof NotReadyError || err instanceof ShardFailedError)) throw err;
      replyNotReady(reply, `temporarily unavailable: ${err.message}`);
    } finally {
      job.finish();
    }
  };

  const about =
    "Reconciliation Service API 0.2 (OpenRefine). Properties: country, city, postalCode, lei, registeredAs (accepted, not compared). " +
    "Scores run 0–100; match is true for a candidate POST /v1/match calls a match. A batch spends one rate-limit token per query.";
  const queriesParam: ParamDoc = {
    name: "queries",
    description: "A JSON object of queries {id: {query, limit?, properties?: [{pid, v}]}}; without it, the manifest",
  };
  const responses: Record<number, ResponseDoc> = {
    200: {
      description: "The manifest, or a result batch: {id: {result: [{id, name, score, match, type}]}}",
      schema: { $ref: "#/components/schemas/ReconciliationResultBatch" },
    },
    400: { description: "queries is not a JSON object of queries, or a query breaks the schema" },
    413: { description: `More than ${MAX_RECONCILE_QUERIES} queries, or a body over 1 MiB` },
    503: NOT_READY_RESPONSE,
  };
  const shared = { area: "public", cors: true, rateLimited: "by-weight" } as const;
  server.route(
    "get",
    "/reconcile",
    {
      ...shared,
      name: "reconcile-get",
      doc: {
        summary: "Reconciliation: the manifest, or a batch of queries given as ?queries=",
        description: about,
        query: [queriesParam],
        responses,
      },
    },
    reconcile,
  );
  server.route(
    "post",
    "/reconcile",
    {
      ...shared,
      name: "reconcile-post",
      maxBodyBytes: MAX_BODY,
      bodyTypes: "json-or-form",
      doc: {
        summary: "Reconciliation: a batch of queries (form field queries, or JSON)",
        description: about,
        query: [queriesParam],
        body: {
          contentType: "application/x-www-form-urlencoded",
          schema: {
            type: "object",
            properties: {
              queries: {
                type: "string",
                description: "The same JSON object of queries",
                contentMediaType: "application/json",
                contentSchema: { $ref: "#/components/schemas/ReconciliationQueryBatch" },
              },
            },
          },
        },
        responses,
      },
    },
    reconcile,
  );

  server.route(
    "get",
    "/reconcile/preview",
    {
      name: "reconcile-preview",
      area: "public",
      cors: true,
      rateLimited: true,
      doc: {
        summary: "Reconciliation preview: an HTML card of one entity",
        query: [{ name: "id", required: true, description: "The LEI", example: "529900SIW684OP07HP11" }],
        responses: {
          200: { description: "The card", contentType: "text/html", schema: { type: "string" } },
          400: { description: "No id" },
          404: { description: "No such entity" },
        },
      },
    },
    (req, reply) => {
      const id = requiredParam(req, reply, "id", "an LEI");
      if (id === null) return;
      try {
        service.entity(id, (r) => {
          if (r.kind !== "found") return reply.error(r.kind === "not-found" ? 404 : 400, r.message);
          const e = JSON.parse(Buffer.from(r.json).toString("utf8")) as LegalEntity;
          const line = (label: string, value: string | null): string => (value ? `<div><b>${label}</b> ${escapeHtml(value)}</div>` : "");
          const html =
            `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(e.legalName ?? e.lei)}</title></head>` +
            `<body style="font:14px system-ui,sans-serif;margin:8px"><div style="font-weight:600">${escapeHtml(e.legalName ?? "")}</div>` +
            line("LEI", e.lei) +
            line("Address", [e.legalAddress, e.postalCode, e.city, e.country].filter(Boolean).join(", ")) +
            line("Status", [e.entityStatus, e.registrationStatus].filter(Boolean).join(" / ")) +
            line("Category", e.entityCategory) +
            "</body></html>";
          reply.send(200, html, "text/html; charset=utf-8");
        });
      } catch (err) {
        if (!(err instanceof NotReadyError)) throw err;
        replyNotReady(reply, `temporarily unavailable: ${err.message}`);
      }
    },
  );

  server.route(
    "get",
    "/reconcile/suggest/entity",
    {
      name: "reconcile-suggest",
      area: "public",
      cors: true,
      rateLimited: true,
      doc: {
        summary: "Reconciliation suggest: entities whose name starts with a prefix",
        query: [{ name: "prefix", required: true, description: "What the user typed", example: "deutsche ba" }],
        responses: {
          200: {
            description: "Up to 10 entities, best first",
            schema: { $ref: "#/components/schemas/ReconciliationSuggestions" },
          },
          400: { description: "No prefix" },
          503: NOT_READY_RESPONSE,
        },
      },
    },
    async (req, reply) => {
      const prefix = requiredParam(req, reply, "prefix", "what the user typed");
      if (prefix === null) return;
      try {
        const result = await service.searchOutcomeWith(
          { q: prefix, fields: "name", filters: {}, facets: [], page: 1, limit: 10 },
          (outcome) =>
            outcome.hits.map((hit) => {
              const e = JSON.parse(Buffer.from(hit[2]).toString("utf8")) as LegalEntity;
              return { id: e.lei, name: e.legalName ?? e.lei, description: describe(e), notable: [ENTITY_TYPE] };
            }),
        );
        reply.json(200, JSON.stringify({ result }));
      } catch (err) {
        if (!(err instanceof NotReadyError || err instanceof ShardFailedError)) throw err;
        replyNotReady(reply, `temporarily unavailable: ${err.message}`);
      }
    },
  );
}
