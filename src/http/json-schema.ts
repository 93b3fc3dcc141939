// One Ajv for every request schema in the server, and one way of saying what is wrong with a
// request: the first error, where it lies, and what the value should be. The schemas double as
// documentation (x-hint: how a parameter's value is written, for its 400).

import { Ajv, type ErrorObject } from "ajv";

export const ajv = new Ajv({ allErrors: false, allowUnionTypes: true });
ajv.addKeyword({ keyword: "x-hint", schemaType: "string" });

/** "invalid <what>: <where> <detail>" for the first of a validator's errors. */
export function describeSchemaError(what: string, errors: ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  if (!e) return `invalid ${what}`;
  const where = e.instancePath || "body";
  const p = e.params as Record<string, unknown>;
  let detail = e.message ?? "is invalid";
  if ("additionalProperty" in p) detail = `has unknown field '${String(p.additionalProperty)}'`;
  if ("allowedValues" in p) detail = `must be one of ${(p.allowedValues as string[]).join(", ")}`;
  if (e.keyword === "uniqueItems") detail = "must not repeat an item";
  return `invalid ${what}: ${where} ${detail}`;
}

/** A request body as JSON, or BAD_JSON: every area answers the same 400 for a body that is not JSON. */
export const BAD_JSON = Symbol("bad JSON");
export const BAD_JSON_MESSAGE = "Bad JSON.";

/** The request's body as JSON, or BAD_JSON once the 400 is answered (a body over the route's cap rejects, and is answered 413). */
export async function readJsonBody(
  req: { body(): Promise<Buffer> },
  reply: { error(status: number, message: string): void },
): Promise<unknown> {
  const body = parseJsonBody(await req.body());
  if (body === BAD_JSON) reply.error(400, BAD_JSON_MESSAGE);
  return body;
}

export function parseJsonBody(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")) as unknown;
  } catch {
    return BAD_JSON;
  }
}
