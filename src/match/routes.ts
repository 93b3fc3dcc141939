// POST /v1/match: up to 1,000 rows of what a caller knows about an entity, each answered with
// scored, explained candidates and a verdict (matcher.ts). Public like the rest of /v1: no key,
// CORS open; a request spends one rate-limit token per row.

import { NotReadyError, ShardFailedError } from "../engine/collection.js";
import { ajv, BAD_JSON, describeSchemaError, readJsonBody } from "../http/json-schema.js";
import { NOT_READY_RESPONSE, replyNotReady } from "../http/not-ready.js";
import type { JsonSchema } from "../http/route.js";
import type { HttpServer } from "../http/server.js";
import type { LeiService } from "../lei/service.js";
import type { IdentifierResolver } from "../lei/batch-lookup.js";
import { Matcher, MATCH_LEAD, MATCH_SCORE, POSSIBLE_SCORE, type MatchRow, type RowMatch } from "./matcher.js";

export const MAX_MATCH_ROWS = 1000;
const MAX_MATCH_BODY = 1024 * 1024;
/** Rows matched at once: their searches go to the shards together. */
const CONCURRENT_ROWS = 16;

const text = (max: number): { type: "string"; maxLength: number } => ({ type: "string", maxLength: max });

export const matchRequestSchema = {
  type: "object",
  required: ["rows"],
  additionalProperties: false,
  properties: {
    rows: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["name"],
        additionalProperties: false,
        properties: {
          name: { type: "string", minLength: 1, maxLength: 500, description: "The entity's name as the caller has it" },
          country: { type: "string", pattern: "^[A-Za-z]{2}$", description: "ISO 3166-1 alpha-2 country of the legal address" },
          city: text(200),
          postalCode: text(50),
          registeredAs: { ...text(200), description: "A registration number: accepted, not compared (not in the Level 1 data)" },
          lei: {
            ...text(100),
            description: "An LEI the caller believes is the entity's, or an ISIN or BIC standing for the LEI GLEIF maps it to",
          },
        },
      },
    },
    limit: { type: "integer", minimum: 1, maximum: 10, description: "Candidates per row, default 3" },
  },
} as const;
const validate = ajv.compile<{ rows: MatchRow[]; limit?: number }>(matchRequestSchema);

const agreementSchema = { type: "string", enum: ["agrees", "differs", "not given", "not in the data"] };
export const MATCH_SCHEMAS: Record<string, JsonSchema> = {
  MatchRequest: matchRequestSchema,
  MatchCandidate: {
    type: "object",
    required: ["lei", "name", "score", "explanation", "entity"],
    properties: {
      lei: { type: "string" },
      name: { type: ["string", "null"] },
      score: { type: "number", minimum: 0, maximum: 1 },
      explanation: {
        type: "object",
        properties: {
          name: {
            type: "object",
            properties: { matched: { type: "string", enum: ["legalName", "otherName"] }, similarity: { type: "number" } },
          },
          country: agreementSchema,
          city: agreementSchema,
          postalCode: agreementSchema,
          lei: agreementSchema,
          registeredAs: { type: "string", enum: ["not compared"] },
        },
      },
      entity: { $ref: "#/components/schemas/LegalEntity" },
    },
  },
  MatchAnswer: {
    type: "object",
    required: ["results"],
    properties: {
      results: {
        type: "array",
        items: {
          type: "object",
          required: ["verdict", "candidates"],
          properties: {
            verdict: { type: "string", enum: ["match", "ambiguous", "possible", "none"] },
            candidates: { type: "array", items: { $ref: "#/components/schemas/MatchCandidate" } },
          },
        },
      },
    },
  },
};

/** Every row's match, in order; throws NotReadyError while no collection is loaded. */
export async function matchRows(matcher: Matcher, rows: readonly MatchRow[], limit: number): Promise<RowMatch[]> {
  const out: RowMatch[] = [];
  for (let i = 0; i < rows.length; i += CONCURRENT_ROWS) {
    out.push(...(await Promise.all(rows.slice(i, i + CONCURRENT_ROWS).map((row) => matcher.match(row, limit)))));
  }
  return out;
}

export function registerMatchRoutes(server: HttpServer, service: LeiService, resolve: IdentifierResolver = () => null): void {
  const matcher = new Matcher(service, resolve);
  server.route(
    "post",
    "/v1/match",
    {
      name: "entity-match",
      area: "public",
      cors: true,
      rateLimited: "by-weight",
      maxBodyBytes: MAX_MATCH_BODY,
      doc: {
        summary: `Match up to ${MAX_MATCH_ROWS} rows of names (and country, city, postal code, LEI) to entities`,
        description:
          "Each row gets its candidates, scored in [0, 1] with an explanation, and a verdict: " +
          `match (the best scores ${MATCH_SCORE} or more and leads the next by ${MATCH_LEAD}), ambiguous (several that close), ` +
          `possible (the best scores ${POSSIBLE_SCORE} or more), or none. Legal-form words count as one spelling (Ltd = Limited, AG = Aktiengesellschaft). ` +
          "A request spends one rate-limit token per row.",
        body: {
          schema: { $ref: "#/components/schemas/MatchRequest" },
          required: true,
          example: { rows: [{ name: "Deutsche Bank AG", country: "DE" }, { name: "Lino Engineering Aktiebolag" }] },
        },
        responses: {
          200: { description: "A result per row, in order", schema: { $ref: "#/components/schemas/MatchAnswer" } },
          400: { description: "Not JSON, or a row that breaks the schema (the message names it)" },
          413: { description: `More than ${MAX_MATCH_ROWS} rows, or a body over 1 MiB` },
          503: NOT_READY_RESPONSE,
        },
      },
    },
    async (req, reply) => {
      const ip = req.ip;
      const body = await readJsonBody(req, reply);
      if (body === BAD_JSON) return;
      const rows = (body as { rows?: unknown } | null)?.rows;
      if (Array.isArray(rows) && rows.length > MAX_MATCH_ROWS) {
        return reply.error(413, `a match request holds at most ${MAX_MATCH_ROWS} rows, this one ${rows.length}; split it`);
      }
      if (!validate(body)) return reply.error(400, describeSchemaError("match request", validate.errors));
      if (!server.rateLimit(ip, body.rows.length - 1, reply)) return;
      try {
        const results = await matchRows(matcher, body.rows, body.limit ?? 3);
        reply.json(200, JSON.stringify({ results }));
      } catch (err) {
        if (!(err instanceof NotReadyError || err instanceof ShardFailedError)) throw err;
        replyNotReady(reply, `temporarily unavailable: ${err.message}`);
      }
    },
  );
  server.route("any", "/v1/match", { name: "method-not-allowed", area: "public", cors: true }, (r, reply) => {
    reply.header("Allow", "POST, OPTIONS").error(405, `method ${r.method} is not allowed here; use POST`);
  });
}
