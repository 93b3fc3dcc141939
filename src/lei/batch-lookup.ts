// POST /v1/entities/batch: up to 1,000 LEIs looked up in one request, answered in request order,
// one row per input (duplicates answered each time): found with the entity, not_found, or
// invalid with the single lookup's reason. The body is checked whole before any lookup, and the
// request spends one rate-limit token per LEI.

import { ajv } from "../http/json-schema.js";
import type { JsonSchema } from "../http/route.js";
import type { LeiService } from "./service.js";

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
  const parts: Buffer[] = [Buffer.from('{"results":[')];
  const counts = { found: 0, notFound: 0, invalid: 0 };
  leis.forEach((input, i) => {
    const head = `${i > 0 ? "," : ""}{"lei":${JSON.stringify(input)},"status":`;
    const other = resolve(input);
    if (other && other.kind !== "LEI" && other.lei === null) {
      // an ISIN failing its check digit is invalid; one no LEI is known for, not found
      const invalid = other.invalid === true;
      if (invalid) counts.invalid++;
      else counts.notFound++;
      parts.push(Buffer.from(`${head}"${invalid ? "invalid" : "not_found"}","error":${JSON.stringify(other.error ?? "")}}`));
      return;
    }
    parts.push(
      service.entity(other?.lei ?? input, (result) => {
        switch (result.kind) {
          case "found":
            counts.found++;
            // the entity's bytes are scratch memory the next lookup reuses: copied
            return Buffer.concat([Buffer.from(`${head}"found","entity":`), result.json, Buffer.from("}")]);
          case "not-found":
            counts.notFound++;
            return Buffer.from(`${head}"not_found","error":${JSON.stringify(result.message)}}`);
          default:
            counts.invalid++;
            return Buffer.from(`${head}"invalid","error":${JSON.stringify(result.message)}}`);
        }
      }),
    );
  });
  parts.push(Buffer.from(`],"found":${counts.found},"notFound":${counts.notFound},"invalid":${counts.invalid}}`));
  return Buffer.concat(parts);
}
