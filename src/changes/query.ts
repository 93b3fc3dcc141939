// GET /v1/changes and GET /v1/entities/{lei}/changes: their parameters, checked with messages
// that name the valid values, and their answer (a page of rows and the cursor to go on from),
// shared with the MCP tool get_entity_changes.

import {
  CHANGE_FIELDS,
  RECORD_TYPES,
  type ChangeField,
  type ChangeQuery,
  type ChangeStore,
  type RecordType,
  type StoredChange,
} from "./model.js";

export class ChangeQueryError extends Error {}

export const CHANGES_LIMIT = { default: 100, max: 1000 };
const CURSOR = /^\d{1,18}$/;
const LEI_LIKE = /^[0-9A-Za-z]{20}$/;

/**
 * What a page answers: its rows, and the cursor of the next page: the last row's id, to pass as
 * `since` (oldest first) or `before` (newest first); the cursor given when the page is empty.
 */
export interface ChangePage {
  changes: StoredChange[];
  next: string;
}

/** The parameters each route takes (the entity's history takes its LEI from the path). */
export const FEED_PARAMS = ["since", "before", "order", "lei", "field", "type", "limit"] as const;
export const HISTORY_PARAMS = ["since", "before", "order", "field", "type", "limit"] as const;
/** `order`'s values: oldest first (the default, a feed to follow) or newest first (what changed lately). */
export const ORDERS = ["oldest", "newest"] as const;

/** An LEI as the feed takes it: 20 letters or digits, any case (upper-cased); check digits are not required, as in the data. */
export function checkedLei(raw: string): string {
  if (!LEI_LIKE.test(raw)) throw new ChangeQueryError(`'${clip(raw)}' is not an LEI: an LEI is 20 letters or digits`);
  return raw.toUpperCase();
}

/** The query from the request's parameters; throws ChangeQueryError with the reason. */
export function changeQuery(params: Record<string, string>, allowed: readonly string[]): ChangeQuery {
  for (const name of Object.keys(params)) {
    if (!allowed.includes(name)) throw new ChangeQueryError(`unknown parameter '${clip(name)}'; this route takes ${allowed.join(", ")}`);
  }
  const since = params.since ?? "0";
  if (!CURSOR.test(since)) {
    throw new ChangeQueryError(
      `since must be a cursor: the 'next' of an earlier page, or 0 for the oldest change kept; got '${clip(since)}'`,
    );
  }
  const query: ChangeQuery = { since: String(Number(since)), limit: CHANGES_LIMIT.default };
  if (params.before !== undefined) {
    if (!CURSOR.test(params.before)) {
      throw new ChangeQueryError(`before must be a cursor: the 'next' of an earlier newest-first page; got '${clip(params.before)}'`);
    }
    query.before = String(Number(params.before));
  }
  if (params.order !== undefined) {
    if (!(ORDERS as readonly string[]).includes(params.order)) {
      throw new ChangeQueryError(`order must be ${ORDERS.join(" or ")}; got '${clip(params.order)}'`);
    }
    query.newestFirst = params.order === "newest";
  }
  if (params.lei !== undefined) query.lei = checkedLei(params.lei);
  if (params.field !== undefined) {
    if (!(CHANGE_FIELDS as readonly string[]).includes(params.field)) {
      throw new ChangeQueryError(`unknown field '${clip(params.field)}'; the feed follows ${CHANGE_FIELDS.join(", ")}`);
    }
    query.field = params.field as ChangeField;
  }
  if (params.type !== undefined) {
    if (!(RECORD_TYPES as readonly string[]).includes(params.type)) {
      throw new ChangeQueryError(`unknown type '${clip(params.type)}'; the record types are ${RECORD_TYPES.join(", ")}`);
    }
    query.recordType = params.type as RecordType;
  }
  if (params.limit !== undefined) {
    const n = /^\d{1,7}$/.test(params.limit) ? Number(params.limit) : NaN;
    if (!(n >= 1 && n <= CHANGES_LIMIT.max)) {
      throw new ChangeQueryError(`limit must be a whole number from 1 to ${CHANGES_LIMIT.max}; got '${clip(params.limit)}'`);
    }
    query.limit = n;
  }
  return query;
}

/** A page of the feed. */
export async function changePage(store: ChangeStore, query: ChangeQuery): Promise<ChangePage> {
  const changes = await store.list(query);
  const given = query.newestFirst ? (query.before ?? "0") : query.since;
  return { changes, next: changes.length > 0 ? changes[changes.length - 1].id : given };
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * Whether the history of `lei` has an entity to answer for: the registry holds it (in memory,
 * asked first), or the feed has a change of it (an LEI since gone from the file).
 */
export async function knownEntity(store: ChangeStore, lei: string, holds: (lei: string) => boolean): Promise<boolean> {
  return holds(lei) || (await store.list({ since: "0", lei, limit: 1 })).length > 0;
}

/** The answers' JSON Schemas (OpenAPI components, and the MCP tool's output). */
export const CHANGE_SCHEMAS = {
  FieldChange: {
    type: "object",
    description: "One field of one LEI that a load changed, in the shape of GLEIF's field modifications",
    required: ["id", "lei", "recordType", "field", "valueOld", "valueNew", "publication", "detectedAt"],
    properties: {
      id: { type: "string", description: "Orders the feed; a page's last id is the cursor of the next", example: "1042" },
      lei: { type: "string", description: "The LEI whose record changed" },
      recordType: { type: "string", enum: [...RECORD_TYPES], description: "Which part of the registry the field comes from" },
      field: { type: "string", enum: [...CHANGE_FIELDS], description: "The field, named as in the LegalEntity answer where it has one" },
      valueOld: { type: ["string", "null"], description: "The value before, as the API showed it; null where there was none" },
      valueNew: { type: ["string", "null"], description: "The value after; null where there is none" },
      publication: {
        type: "string",
        description: "The publication that brought it (ISO 8601 UTC); the load time when the source has none",
      },
      detectedAt: { type: "string", description: "When this server found it (ISO 8601 UTC)" },
    },
  },
  ChangePage: {
    type: "object",
    required: ["changes", "next"],
    properties: {
      changes: { type: "array", items: { $ref: "#/components/schemas/FieldChange" } },
      next: {
        type: "string",
        description:
          "The cursor of the next page: the last row's id, to pass as `since` (oldest first) or `before` (newest first); " +
          "the cursor given when the page is empty (0 for an empty newest-first page without `before`)",
      },
    },
  },
} as const;
