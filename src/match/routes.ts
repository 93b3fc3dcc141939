// POST /v1/match: up to 1,000 rows of what a caller knows about an entity, each answered with
// scored, explained candidates and a verdict (matcher.ts). Public like the rest of /v1: no key,
// CORS open; a request spends one rate-limit token per row.

import { NotReadyError, ShardFailedError } from "../engine/collection.js";
import { ajv, BAD_JSON, BAD_JSON_MESSAGE, describeSchemaError, parseJsonBody } from "../http/json-schema.js";
import { NOT_READY_RESPONSE, replyNotReady } from "../http/not-ready.js";
import type { JsonSchema } from "../http/route.js";
import type { HttpServer } from "../http/server.js";
import type { LeiService } from "../lei/service.js";
import type { IdentifierResolver } from "../lei/batch-lookup.js";
import { AnswerBytes } from "../http/answer-bytes.js";
import { FrontWork, sendJson, type BulkJob } from "../http/front-work.js";
import { LegalFormWords } from "./legal-form-words.js";
import { Matcher, MATCH_LEAD, MATCH_SCORE, POSSIBLE_SCORE, type MatchRow, type RowMatch, type RowSearch } from "./matcher.js";

export const MAX_MATCH_ROWS = 1000;
const MAX_MATCH_BODY = 1024 * 1024;
/** Rows of a request whose searches are on the shards at once: they go together. */
const CONCURRENT_ROWS = 16;
/** What the answer's buffer starts at: a row with 3 candidates takes about 2 KB. */
const MATCH_ROW_BYTES = 64 * 1024;

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

/** Where matchRowsInTurns() hands each row's match, in order, as soon as it is scored. */
export interface MatchSink {
  add(match: RowMatch, row: number): void;
}

/**
 * Every row's match, in order, handed to `sink` in the job's turns on the front
 * (http/front-work.ts): a row is scored and handed on in a turn, while the searches of the next
 * CONCURRENT_ROWS rows run on the shards. False when the job stopped because its client went
 * away; throws NotReadyError while no collection is loaded.
 */
export async function matchRowsInTurns(
  job: BulkJob,
  matcher: Matcher,
  rows: readonly MatchRow[],
  limit: number,
  sink: MatchSink,
): Promise<boolean> {
  const searches = new Array<RowSearch | null>(rows.length).fill(null);
  let started = 0;
  for (let i = 0; i < rows.length; i++) {
    if (!job.hasTime && !(await job.turn())) return false;
    for (; started < rows.length && started < i + CONCURRENT_ROWS; started++) searches[started] = matcher.search(rows[started]);
    const search = searches[i]!;
    searches[i] = null;
    const found = await search.found;
    if (!job.hasTime && !(await job.turn())) return false;
    sink.add(matcher.score(search.row, found, limit), i);
  }
  return true;
}

/** POST /v1/match's answer, written row by row as the rows are scored. */
class MatchAnswer implements MatchSink {
  readonly out = new AnswerBytes(MATCH_ROW_BYTES);

  constructor() {
    this.out.text('{"results":[');
  }

  add(match: RowMatch, row: number): void {
    if (row > 0) this.out.text(",");
    this.out.text(JSON.stringify(match));
  }

  finish(): Buffer {
    return this.out.text("]}").view();
  }
}

/** `work`: the front's scheduler of bulk work, which match requests run in. */
export function registerMatchRoutes(
  server: HttpServer,
  service: LeiService,
  resolve: IdentifierResolver = () => null,
  work: FrontWork = new FrontWork(),
  forms: LegalFormWords = LegalFormWords.bundled(),
): void {
  const matcher = new Matcher(service, resolve, forms);
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
      // parsed, checked and matched in turns on the front, so that the requests that come meanwhile are answered
      const job = work.job(reply);
      try {
        const bytes = await req.body();
        if (!(await job.turn())) return;
        const body = parseJsonBody(bytes);
        if (body === BAD_JSON) return reply.error(400, BAD_JSON_MESSAGE);
        const rows = (body as { rows?: unknown } | null)?.rows;
        if (Array.isArray(rows) && rows.length > MAX_MATCH_ROWS) {
          return reply.error(413, `a match request holds at most ${MAX_MATCH_ROWS} rows, this one ${rows.length}; split it`);
        }
        if (!validate(body)) return reply.error(400, describeSchemaError("match request", validate.errors));
        if (!server.rateLimit(ip, body.rows.length - 1, reply) || !(await job.place())) return;
        const answer = new MatchAnswer();
        if (await matchRowsInTurns(job, matcher, body.rows, body.limit ?? 3, answer)) await sendJson(reply, 200, answer.finish());
      } catch (err) {
        if (!(err instanceof NotReadyError || err instanceof ShardFailedError)) throw err;
        replyNotReady(reply, `temporarily unavailable: ${err.message}`);
      } finally {
        job.finish();
      }
    },
  );
  server.route("any", "/v1/match", { name: "method-not-allowed", area: "public", cors: true }, (r, reply) => {
    reply.header("Allow", "POST, OPTIONS").error(405, `method ${r.method} is not allowed here; use POST`);
  });
}
