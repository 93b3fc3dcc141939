// Area A's Level 2 routes: relationships, children, family tree and ISINs of an entity, and the
// ISIN and BIC lookups. Public like the rest of /v1: no credential, CORS, rate limited per
// address, errors {"error": ...}.

import type { ValidateFunction } from "ajv";
import { NotReadyError, ShardFailedError } from "../engine/collection.js";
import { NOT_READY_RESPONSE, replyNotReady } from "../http/not-ready.js";
import { queryEntries } from "../http/query-string.js";
import type { JsonSchema, OperationDoc, ParamDoc, RouteOptions } from "../http/route.js";
import type { HttpServer, Reply } from "../http/server.js";
import {
  CHILDREN_LIMIT,
  childrenQuerySchema,
  familyQuerySchema,
  ISINS_LIMIT,
  isinsQuerySchema,
  validateChildren,
  validateFamily,
  validateIsins,
} from "./family-schemas.js";
import {
  FAMILY_DEFAULT_DEPTH,
  FAMILY_DEFAULT_LIMIT,
  FAMILY_MAX_DEPTH,
  FAMILY_MAX_LIMIT,
  type ChildKind,
  type FamilyAnswer,
  type FamilyService,
} from "./family-service.js";

/** members of a family tree one rate-limit token pays for */
const FAMILY_NODES_PER_TOKEN = 50;

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
const LEI_PARAM: ParamDoc = {
  name: "lei",
  description: "ISO 17442 LEI, validated as for GET /v1/entities/{lei}",
  example: "001GPB6A9XPE8XJICC14",
};

class QueryError extends Error {}

export function registerFamilyRoutes(server: HttpServer, family: FamilyService): void {
  const options = (name: string, doc: OperationDoc, rateLimited: true | "by-weight" = true): RouteOptions => ({
    name,
    area: "public",
    cors: true,
    rateLimited,
    doc,
  });
  /** `work` answers, or returns null when it has answered itself (refused by the rate limit) */
  const answer = (reply: Reply, work: () => FamilyAnswer | null): void => {
    let result: FamilyAnswer | null;
    try {
      result = work();
    } catch (err) {
      if (err instanceof QueryError) return reply.error(400, err.message);
      if (err instanceof NotReadyError || err instanceof ShardFailedError)
        return replyNotReady(reply, `temporarily unavailable: ${err.message}`);
      throw err;
    }
    if (result === null) return;
    if (result.ok) reply.json(200, result.json);
    else reply.error(result.status, result.message);
  };
  const entityErrors = {
    400: { description: "Malformed LEI, a bad query parameter, or failed check digits and not in the data" },
    404: { description: "Neither Level 1 nor Level 2 knows the LEI" },
    503: NOT_READY_RESPONSE,
  };

  server.route(
    "get",
    "/v1/entities/:lei/relationships",
    options("entity-relationships", {
      summary: "The entity's parents, reporting exceptions, fund manager, umbrella fund, head office and child counts (Level 2)",
      params: [LEI_PARAM],
      responses: { 200: { description: "Its relationships", schema: ref("EntityRelationships") }, ...entityErrors },
    }),
    (req, reply) => answer(reply, () => family.relationships(req.params[0])),
  );

  server.route(
    "get",
    "/v1/entities/:lei/children",
    options("entity-children", {
      summary: "One kind of child of the entity, paged in LEI order, with the count (Level 2)",
      params: [LEI_PARAM],
      query: queryDocs(childrenQuerySchema),
      responses: { 200: { description: "A page of children", schema: ref("ChildrenPage") }, ...entityErrors },
    }),
    (req, reply) =>
      answer(reply, () => {
        const q = query(req.rawQuery, validateChildren, childrenQuerySchema);
        const { page, limit } = paging(q, CHILDREN_LIMIT);
        return family.children(req.params[0], (q.type ?? "direct") as ChildKind, page, limit);
      }),
  );

  server.route(
    "get",
    "/v1/entities/:lei/family",
    options(
      "entity-family",
      {
        summary: "The entity's corporate family as one tree, from the ultimate parent down (Level 2)",
        description:
          `The top is the ultimate parent (else the top of the chain of direct parents, else the entity); the tree follows direct children ` +
          `down to depth levels (default ${FAMILY_DEFAULT_DEPTH}, at most ${FAMILY_MAX_DEPTH}) and at most limit nodes (default ${FAMILY_DEFAULT_LIMIT}, at most ${FAMILY_MAX_LIMIT}), ` +
          "breadth first; the path from the top to the entity is always in it. childCount tells where the caps cut. " +
          `A tree weighs one rate-limit token per ${FAMILY_NODES_PER_TOKEN} members it may hold (limit), at least one.`,
        params: [LEI_PARAM],
        query: queryDocs(familyQuerySchema),
        responses: { 200: { description: "The family tree", schema: ref("Family") }, ...entityErrors },
      },
      "by-weight",
    ),
    (req, reply) =>
      answer(reply, () => {
        const q = query(req.rawQuery, validateFamily, familyQuerySchema);
        const depth = bounded(q, "depth", FAMILY_DEFAULT_DEPTH, FAMILY_MAX_DEPTH);
        const limit = bounded(q, "limit", FAMILY_DEFAULT_LIMIT, FAMILY_MAX_LIMIT);
        // a large tree is hundreds of reads on the front: it pays for them
        if (!server.rateLimit(req.ip, Math.ceil(limit / FAMILY_NODES_PER_TOKEN) - 1, reply)) return null;
        return family.family(req.params[0], depth, limit);
      }),
  );

  server.route(
    "get",
    "/v1/entities/:lei/isins",
    options("entity-isins", {
      summary: "The ISINs the entity issued, paged in ISIN order, with the count (GLEIF's ISIN-LEI map)",
      params: [LEI_PARAM],
      query: queryDocs(isinsQuerySchema),
      responses: { 200: { description: "A page of ISINs", schema: ref("IsinPage") }, ...entityErrors },
    }),
    (req, reply) =>
      answer(reply, () => {
        const { page, limit } = paging(query(req.rawQuery, validateIsins, isinsQuerySchema), ISINS_LIMIT);
        return family.isins(req.params[0], page, limit);
      }),
  );

  server.route(
    "get",
    "/v1/isin/:isin",
    options("isin-lookup", {
      summary: "The legal entity that issued an ISIN (GLEIF's ISIN-LEI map)",
      params: [{ name: "isin", description: "ISO 6166 ISIN, any case; its check digit is verified", example: "US3158052262" }],
      responses: {
        200: { description: "The issuer; a LegalEntity with only lei where Level 1 does not hold it", schema: ref("LegalEntity") },
        400: { description: "Malformed ISIN, or a failed check digit" },
        404: { description: "No LEI is known for the ISIN" },
        503: NOT_READY_RESPONSE,
      },
    }),
    (req, reply) => answer(reply, () => family.byIsin(req.params[0])),
  );

  server.route(
    "get",
    "/v1/bic/:bic",
    options("bic-lookup", {
      summary: "The legal entity a BIC belongs to (GLEIF's BIC-LEI map)",
      params: [
        { name: "bic", description: "ISO 9362 BIC of 8 or 11 characters, any case; 8 means the head office (XXX)", example: "LBTCUS44XXX" },
      ],
      responses: {
        200: { description: "The entity; a LegalEntity with only lei where Level 1 does not hold it", schema: ref("LegalEntity") },
        400: { description: "Malformed BIC" },
        404: { description: "No LEI is known for the BIC" },
        503: NOT_READY_RESPONSE,
      },
    }),
    (req, reply) => answer(reply, () => family.byBic(req.params[0])),
  );

  for (const pattern of [
    "/v1/entities/:lei/relationships",
    "/v1/entities/:lei/children",
    "/v1/entities/:lei/family",
    "/v1/entities/:lei/isins",
    "/v1/isin/:isin",
    "/v1/bic/:bic",
  ]) {
    server.route("any", pattern, { name: "method-not-allowed", area: "public", cors: true, rateLimited: true }, (req, reply) => {
      reply.header("Allow", "GET, OPTIONS").error(405, `method ${req.method} is not allowed here; use GET`);
    });
  }
}

function queryDocs(schema: { properties: Record<string, JsonSchema> }): ParamDoc[] {
  return Object.entries(schema.properties).map(([name, s]) => ({
    name,
    description: String(s.description ?? ""),
    schema: { ...s, "x-hint": undefined },
  }));
}

/** The query's parameters, each at most once, checked against the route's schema. */
function query(rawQuery: string, validate: ValidateFunction, schema: { properties: Record<string, JsonSchema> }): Record<string, string> {
  const record = Object.create(null) as Record<string, string>;
  let entries: [string, string][];
  try {
    entries = queryEntries(rawQuery);
  } catch (err) {
    throw new QueryError((err as Error).message);
  }
  for (const [key, value] of entries) {
    if (key in record) throw new QueryError(`parameter '${key}' is given more than once`);
    record[key] = value;
  }
  if (!validate(record)) {
    const e = validate.errors?.[0];
    if (e?.keyword === "additionalProperties") {
      const name = String((e.params as { additionalProperty: string }).additionalProperty);
      throw new QueryError(`unknown parameter '${name.slice(0, 40)}'; allowed: ${Object.keys(schema.properties).join(", ")}`);
    }
    const name = (e?.instancePath ?? "").replace(/^\//, "");
    throw new QueryError(`invalid value for '${name}': ${String(schema.properties[name]?.["x-hint"] ?? e?.message)}`);
  }
  return record;
}

function bounded(q: Record<string, string>, name: string, fallback: number, max: number): number {
  if (q[name] === undefined) return fallback;
  const n = Number(q[name]);
  if (n < 1 || n > max) throw new QueryError(`invalid value for '${name}': a whole number from 1 to ${max}`);
  return n;
}

function paging(q: Record<string, string>, limits: { max: number; default: number }): { page: number; limit: number } {
  return { page: bounded(q, "page", 1, 9_999_999), limit: bounded(q, "limit", limits.default, limits.max) };
}
