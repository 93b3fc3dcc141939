// The JSON schemas of the /mcp tools: what an agent sees in tools/list and what the SDK validates
// arguments and structuredContent against. Inputs are derived from the GET /v1/entities query
// schema and outputs from the OpenAPI components, so the two faces of the API document the same
// fields with the same words and cannot drift apart.

import type { JsonSchemaType } from "@modelcontextprotocol/server";
import type { FacetParam, FilterParam, LegalEntity, SearchField } from "../engine/schema.js";
import { FACET_PARAMS, FILTER_PARAMS } from "../engine/schema.js";
import { PUBLIC_SCHEMAS } from "../lei/api-schemas.js";
import { BATCH_SCHEMAS } from "../lei/batch-lookup.js";
import { MATCH_SCHEMAS } from "../match/routes.js";
import { FAMILY_SCHEMAS } from "../level2/family-schemas.js";
import { FAMILY_DEFAULT_DEPTH, FAMILY_DEFAULT_LIMIT, FAMILY_MAX_DEPTH, FAMILY_MAX_LIMIT } from "../level2/family-service.js";
import { CODE_FILTERS, DEFAULT_LIMIT, MAX_LIMIT, MAX_WINDOW, searchQuerySchema } from "../lei/search-params.js";
import type { DatasetStats } from "../lei/service.js";
import type { MatchRow, RowMatch } from "../match/matcher.js";
import { CHANGE_FIELDS, RECORD_TYPES, type ChangeField, type RecordType, type StoredChange } from "../changes/model.js";
import { CHANGE_SCHEMAS, CHANGES_LIMIT, ORDERS } from "../changes/query.js";

// ---------------------------------------------------------------- argument and result types

export type SearchToolInput = {
  query?: string;
  fields?: SearchField;
  facets?: FacetParam[];
  page?: number;
  limit?: number;
} & Partial<Record<FilterParam, string>>;

export interface EntityToolInput {
  lei: string;
}
export interface FacetToolInput {
  field: FacetParam;
}
export type StatsToolInput = Record<string, never>;
export interface MatchToolInput {
  rows: MatchRow[];
  limit?: number;
}
export interface MatchAnswer {
  results: RowMatch[];
}
export interface BatchToolInput {
  leis: string[];
}
export interface BatchRow {
  lei: string;
  status: "found" | "not_found" | "invalid";
  entity?: LegalEntity;
  error?: string;
}
export interface BatchAnswer {
  results: BatchRow[];
  found: number;
  notFound: number;
  invalid: number;
}

export interface FacetValue {
  value: string;
  count: number;
}
export interface SearchPage {
  found: number;
  outOf: number;
  page: number;
  limit: number;
  searchTimeMs: number;
  results: LegalEntity[];
  facets?: { field: FacetParam; values: FacetValue[] }[];
}
export interface FacetListing {
  field: FacetParam;
  values: FacetValue[];
}
export type { DatasetStats, LegalEntity };

export interface FamilyToolInput {
  lei: string;
  depth?: number;
  limit?: number;
}
/** EntityRelationships and Family (family-schemas.ts), as parsed JSON */
export interface CorporateFamily {
  relationships: Record<string, unknown>;
  family: Record<string, unknown>;
}
export interface ChangesToolInput {
  lei: string;
  since?: string;
  order?: (typeof ORDERS)[number];
  before?: string;
  field?: ChangeField;
  type?: RecordType;
  limit?: number;
}
/** ChangePage (changes/query.ts), as parsed JSON */
export interface ChangePage {
  changes: StoredChange[];
  next: string;
}
export interface IdentifierToolInput {
  identifier: string;
}
export interface IdentifiedEntity {
  identifier: string;
  kind: "LEI" | "ISIN" | "BIC";
  lei: string;
  entity: LegalEntity | null;
}

// ---------------------------------------------------------------- inputs

const httpParams = searchQuerySchema.properties;

/**
 * A filter argument: the same string the HTTP parameter takes. The HTTP schema's pattern is left
 * out on purpose: it describes the value after upper-casing, and a tool argument must accept
 * exactly what the HTTP API accepts ("de" included); the shared parser checks the format and
 * names the argument in its message.
 */
function filterInput(param: FilterParam): JsonSchemaType {
  const http = httpParams[param];
  const caseNote = CODE_FILTERS.has(param) ? " Case-insensitive." : "";
  return { type: "string", description: `${http.description}${caseNote} Format: ${http["x-hint"]}.` };
}

export const searchInputSchema: JsonSchemaType = {
  type: "object",
  additionalProperties: false,
  properties: {
    query: {
      type: "string",
      maxLength: httpParams.q.maxLength,
      description: `${httpParams.q.description} Matches names (legal, other, transliterated), address lines, city, postal code and LEI; tolerates typos; ranked by relevance.`,
    },
    fields: { type: "string", enum: [...httpParams.fields.enum], description: httpParams.fields.description },
    ...Object.fromEntries(FILTER_PARAMS.map((p) => [p, filterInput(p)])),
    facets: {
      type: "array",
      items: { type: "string", enum: [...FACET_PARAMS] },
      uniqueItems: true,
      description: "Facets to count across everything matching (not only the returned page), most frequent value first.",
    },
    page: { type: "integer", minimum: 1, description: `1-based page number; default 1. page × limit may not exceed ${MAX_WINDOW}.` },
    limit: {
      type: "integer",
      minimum: 1,
      description: `Results per page; default ${DEFAULT_LIMIT}, values above ${MAX_LIMIT} are clamped to ${MAX_LIMIT}.`,
    },
  },
};

export const entityInputSchema: JsonSchemaType = {
  type: "object",
  additionalProperties: false,
  required: ["lei"],
  properties: {
    lei: {
      type: "string",
      // no pattern: a malformed LEI must reach the lookup, whose answer says what is wrong with it
      maxLength: 100,
      description:
        "ISO 17442 Legal Entity Identifier: 20 characters, 18 letters or digits then 2 check digits (case-insensitive, surrounding spaces ignored). An LEI failing its check digits is still returned when it is in the data.",
    },
  },
};

export const facetInputSchema: JsonSchemaType = {
  type: "object",
  additionalProperties: false,
  required: ["field"],
  properties: {
    field: {
      type: "string",
      enum: [...FACET_PARAMS],
      description:
        "country (ISO 3166-1 alpha-2 of the legal address), jurisdiction (ISO 3166 legal jurisdiction), status (ACTIVE/INACTIVE), registrationStatus (ISSUED, LAPSED, ...), category (GENERAL, FUND, BRANCH, ...).",
    },
  },
};

/** The most LEIs one get_legal_entities call takes (within the SDK's bound on a call's input size). */
export const MAX_MCP_BATCH = 100;

export const batchInputSchema: JsonSchemaType = {
  type: "object",
  additionalProperties: false,
  required: ["leis"],
  properties: {
    leis: {
      type: "array",
      minItems: 1,
      maxItems: MAX_MCP_BATCH,
      items: { type: "string", maxLength: 100 },
      description: `1 to ${MAX_MCP_BATCH} LEIs (20 characters each, any case); each is answered in order, repeats included.`,
    },
  },
};

/** The most rows one match_legal_entities call takes. */
export const MAX_MCP_MATCH_ROWS = 20;

export const matchInputSchema: JsonSchemaType = {
  type: "object",
  additionalProperties: false,
  required: ["rows"],
  properties: {
    rows: {
      type: "array",
      minItems: 1,
      maxItems: MAX_MCP_MATCH_ROWS,
      description: `1 to ${MAX_MCP_MATCH_ROWS} entities to find, each a name and what else is known of it.`,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name"],
        properties: {
          name: {
            type: "string",
            minLength: 1,
            maxLength: 500,
            description: "The entity's name as you have it (legal forms may be spelt out or abbreviated).",
          },
          country: { type: "string", pattern: "^[A-Za-z]{2}$", description: "ISO 3166-1 alpha-2 country of its legal address, if known." },
          city: { type: "string", maxLength: 200, description: "City of its legal address, if known." },
          postalCode: { type: "string", maxLength: 50, description: "Postal code of its legal address, if known." },
          lei: { type: "string", maxLength: 100, description: "An LEI you believe is its, to check." },
        },
      },
    },
    limit: { type: "integer", minimum: 1, maximum: 10, description: "Candidates per row; default 3." },
  },
};

export const statsInputSchema: JsonSchemaType = { type: "object", additionalProperties: false, properties: {} };

export const familyInputSchema: JsonSchemaType = {
  type: "object",
  additionalProperties: false,
  required: ["lei"],
  properties: {
    lei: entityInputSchema.properties!.lei,
    depth: {
      type: "integer",
      minimum: 1,
      maximum: FAMILY_MAX_DEPTH,
      description: `Levels of the tree below its top; default ${FAMILY_DEFAULT_DEPTH}.`,
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: FAMILY_MAX_LIMIT,
      description: `Most members in the tree; default ${FAMILY_DEFAULT_LIMIT}.`,
    },
  },
};

export const changesInputSchema: JsonSchemaType = {
  type: "object",
  additionalProperties: false,
  required: ["lei"],
  properties: {
    lei: { type: "string", maxLength: 40, description: "The LEI (20 letters or digits; case-insensitive)." },
    since: {
      type: "string",
      pattern: "^[0-9]{1,18}$",
      description: "The cursor: the `next` of the page before; omit (or 0) for the oldest change kept.",
    },
    order: {
      type: "string",
      enum: [...ORDERS],
      description: "oldest first (the default) or newest first, for what changed lately.",
    },
    before: {
      type: "string",
      pattern: "^[0-9]{1,18}$",
      description: "Newest first: the `next` of the page before, for the changes older than it.",
    },
    field: { type: "string", enum: [...CHANGE_FIELDS], description: "Only this field's changes." },
    type: {
      type: "string",
      enum: [...RECORD_TYPES],
      description: "Only changes of this record type (lei, relationship, exception, isin).",
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: CHANGES_LIMIT.max,
      description: `Changes per page; default ${CHANGES_LIMIT.default}.`,
    },
  },
};

export const identifierInputSchema: JsonSchemaType = {
  type: "object",
  additionalProperties: false,
  required: ["identifier"],
  properties: {
    identifier: {
      type: "string",
      maxLength: 100,
      description:
        "An LEI (20 characters), an ISIN (12: 2 letters, 9 letters or digits, a check digit) or a BIC (8 or 11 characters); case-insensitive. The kind is told by the form.",
    },
  },
};

// ---------------------------------------------------------------- outputs, from the OpenAPI components

type SchemaNode = { [key: string]: unknown };

const components: Record<string, SchemaNode> = {
  ...PUBLIC_SCHEMAS,
  ...BATCH_SCHEMAS,
  ...MATCH_SCHEMAS,
  ...FAMILY_SCHEMAS,
  ...(CHANGE_SCHEMAS as unknown as Record<string, SchemaNode>),
};
/** components that contain themselves: referred to through $defs, not inlined */
const RECURSIVE = new Set(["FamilyNode"]);

/**
 * A component schema with every $ref replaced by its target (tool schemas are published one by
 * one, without the OpenAPI document around them) and OpenAPI's `int64` format dropped (not a
 * JSON Schema format; strict validators in clients reject unknown formats).
 */
function standalone(name: string): JsonSchemaType {
  const defs: Record<string, unknown> = {};
  const resolve = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(resolve);
    if (node === null || typeof node !== "object") return node;
    const object = node as SchemaNode;
    if (typeof object.$ref === "string") {
      const refName = object.$ref.replace("#/components/schemas/", "");
      const target = components[refName];
      if (!target) throw new Error(`unresolved schema reference ${object.$ref}`);
      if (RECURSIVE.has(refName)) {
        if (!(refName in defs)) {
          defs[refName] = {};
          defs[refName] = resolve(target);
        }
        return { $ref: `#/$defs/${refName}` };
      }
      return resolve(target);
    }
    const out: SchemaNode = {};
    for (const [key, value] of Object.entries(object)) {
      if (key === "format" && value === "int64") continue;
      out[key] = resolve(value);
    }
    return out;
  };
  const schema = components[name];
  if (!schema) throw new Error(`the OpenAPI document has no schema ${name}`);
  const resolved = resolve(schema) as SchemaNode;
  return (Object.keys(defs).length > 0 ? { ...resolved, $defs: defs } : resolved) as JsonSchemaType;
}

export const searchPageSchema = standalone("SearchPage");
export const legalEntitySchema = standalone("LegalEntity");
export const batchAnswerSchema = standalone("BatchAnswer");
export const matchAnswerSchema = standalone("MatchAnswer");
export const datasetStatsSchema = standalone("DatasetStats");
export const changePageSchema = standalone("ChangePage");
const { $defs: familyDefs, ...familyTree } = standalone("Family") as SchemaNode;
export const corporateFamilySchema: JsonSchemaType = {
  type: "object",
  required: ["relationships", "family"],
  properties: { relationships: standalone("EntityRelationships"), family: familyTree },
  $defs: familyDefs,
} as JsonSchemaType;
export const identifiedEntitySchema: JsonSchemaType = {
  type: "object",
  required: ["identifier", "kind", "lei", "entity"],
  properties: {
    identifier: { type: "string", description: "The identifier as given, upper-cased" },
    kind: { type: "string", enum: ["LEI", "ISIN", "BIC"] },
    lei: { type: "string", description: "The LEI it names" },
    entity: { description: "The LegalEntity; null where Level 1 does not hold the LEI", oneOf: [legalEntitySchema, { type: "null" }] },
  },
} as JsonSchemaType;
export const facetListingSchema: JsonSchemaType = {
  type: "object",
  required: ["field", "values"],
  properties: {
    field: { type: "string", enum: [...FACET_PARAMS] },
    values: {
      type: "array",
      items: standalone("FacetValue"),
      description: "Every value with its number of entities, most frequent first.",
    },
  },
};
