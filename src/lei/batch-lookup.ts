// POST /v1/entities/batch: up to 1,000 LEIs looked up in one request, answered in request order,
// one row per input (duplicates answered each time): found with the entity, not_found, or
// invalid with the single lookup's reason. The body is checked whole before any lookup, and the
// request spends one rate-limit token per LEI.

import { ajv } from "../http/json-schema.js";
import type { JsonSchema } from "../http/route.js";
import { AnswerBytes } from "../http/answer-bytes.js";
import type { BulkJob } from "../http/front-work.js";
import type { EntityLookup, LeiService } from "./service.js";

export const MAX_BATCH_LEIS = 1000;
/** 1,000 LEIs of 20 characters with quotes and commas fit in 24 KiB; a licensed partner's 10,000 in 240 KiB; room for spaces. */
export const MAX_BATCH_BODY_BYTES = 1024 * 1024;

export const batchRequestSchema = {
  type: "object",
  required: ["leis"],
  additionalProperties: false,
  properties: {
    leis: {
      type: "array",
      minItems: 1,
      items: { type: "string", maxLength: 100 },
      description: `1 to ${MAX_BATCH_LEIS} LEIs, any case; an ISIN or BIC stands for the LEI GLEIF maps it to`,
    },
  },
} as const;

export const BATCH_SCHEMAS: Record<string, JsonSchema> = {
  BatchRow: {
    type: "object",
    required: ["lei", "status"],
    properties: {
      lei: { type: "string", description: "The input as sent: an LEI, or an ISIN or BIC standing for the LEI it maps to" },
      status: { type: "string", enum: ["found", "not_found", "invalid"] },
      entity: { $ref: "#/components/schemas/LegalEntity" },
      error: { type: "string", description: "Why the LEI is not_found or invalid, as the single lookup says it" },
    },
  },
  BatchAnswer: {
    type: "object",
    required: ["results", "found", "notFound", "invalid"],
    properties: {
      results: { type: "array", items: { $ref: "#/components/schemas/BatchRow" } },
      found: { type: "integer" },
      notFound: { type: "integer" },
      invalid: { type: "integer" },
    },
  },
};

const validate = ajv.compile<{ leis: string[] }>(batchRequestSchema);

/** What is wrong with a body, naming the row; null when it is a batch of at most `maxLeis` LEIs (a licence may grant more). */
export function batchProblem(body: unknown, maxLeis = MAX_BATCH_LEIS): { status: 400 | 413; message: string } | null {
  const leis = (body as { leis?: unknown } | null)?.leis;
  if (Array.isArray(leis) && leis.length > maxLeis) {
    return { status: 413, message: `a batch holds at most ${maxLeis} LEIs, this one ${leis.length}; split it` };
  }
  if (validate(body)) return null;
  const e = validate.errors?.[0];
  const row = e?.instancePath.match(/^\/leis\/(\d+)$/);
  if (row)
    return {
      status: 400,
      message: `invalid batch: leis[${row[1]}] ${e?.keyword === "type" ? "must be a string" : "is longer than 100 characters"}`,
    };
  if (e?.keyword === "additionalProperties") {
    return { status: 400, message: `invalid batch: unknown field '${String(e.params.additionalProperty)}'; send {"leis": [...]}` };
  }
  return { status: 400, message: 'invalid batch: send {"leis": ["LEI", ...]} with 1 to 1000 LEIs' };
}

/**
 * What an ISIN or BIC of a batch stands for (level2/family-service.ts resolve()): the LEI, or
 * why there is none; null for an input that is neither, looked up as an LEI.
 */
export type IdentifierResolver = (input: string) => { kind: string; lei: string | null; error?: string; invalid?: boolean } | null;

/** The answer's bytes: the rows in request order. Throws NotReadyError while no collection is loaded. */
export function batchAnswer(service: LeiService, leis: readonly string[], resolve: IdentifierResolver = () => null): Buffer {
  const answer = new BatchAnswer(service, resolve, leis.length);
  for (const lei of leis) answer.add(lei);
  return answer.finish();
}

/**
 * As batchAnswer(), worked through in the job's turns on the front (http/front-work.ts): null
 * when the job stopped because its client went away. One load answers every row: when a reload
 * goes live between two turns, the batch starts over on the new one.
 */
export async function batchAnswerInTurns(
  job: BulkJob,
  service: LeiService,
  leis: readonly string[],
  resolve: IdentifierResolver = () => null,
): Promise<Buffer | null> {
  const answer = new BatchAnswer(service, resolve, leis.length);
  let load = service.liveEtag();
  for (let i = 0; i < leis.length;) {
    if (!job.hasTime) {
      if (!(await job.turn())) return null;
      if (service.liveEtag() !== load) {
        load = service.liveEtag();
        answer.clear();
        i = 0;
      }
    }
    answer.add(leis[i++]);
  }
  return answer.finish();
}

/** Bytes a row takes, about: the answer's buffer is sized for them at once. */
const ROW_BYTES = 512;

/** A batch's answer, written row by row. */
class BatchAnswer {
  private readonly out: AnswerBytes;
  private rows = 0;
  private found = 0;
  private notFound = 0;
  private invalid = 0;
  /** the row being written: its head, up to its status */
  private head = "";
  private readonly write = (result: EntityLookup): void => this.looked(result);

  constructor(
    private readonly service: LeiService,
    private readonly resolve: IdentifierResolver,
    rows: number,
  ) {
    this.out = new AnswerBytes(rows * ROW_BYTES);
    this.out.text('{"results":[');
  }

  /** The row of one input. Throws NotReadyError while no collection is loaded. */
  add(input: string): void {
    this.head = `${this.rows++ > 0 ? "," : ""}{"lei":${JSON.stringify(input)},"status":`;
    const other = this.resolve(input);
    if (other && other.kind !== "LEI" && other.lei === null) {
      // an ISIN failing its check digit is invalid; one no LEI is known for, not found
      const invalid = other.invalid === true;
      if (invalid) this.invalid++;
      else this.notFound++;
      this.out.text(`${this.head}"${invalid ? "invalid" : "not_found"}","error":${JSON.stringify(other.error ?? "")}}`);
      return;
    }
    this.service.entity(other?.lei ?? input, this.write);
  }

  private looked(result: EntityLookup): void {
    switch (result.kind) {
      case "found":
        this.found++;
        // the entity's bytes are scratch memory the next lookup reuses: copied
        this.out.text(`${this.head}"found","entity":`).append(result.json).text("}");
        return;
      case "not-found":
        this.notFound++;
        this.out.text(`${this.head}"not_found","error":${JSON.stringify(result.message)}}`);
        return;
      default:
        this.invalid++;
        this.out.text(`${this.head}"invalid","error":${JSON.stringify(result.message)}}`);
    }
  }

  /** Starts over (a reload went live). */
  clear(): void {
    this.out.clear();
    this.out.text('{"results":[');
    this.rows = this.found = this.notFound = this.invalid = 0;
  }

  /** The answer, with its counts: a view of the answer's buffer. */
  finish(): Buffer {
    return this.out.text(`],"found":${this.found},"notFound":${this.notFound},"invalid":${this.invalid}}`).view();
  }
}
