// GET /v1/entities query parameters: one JSON schema (ajv) that validates the request and is
// served as documentation in the OpenAPI document, then normalisation into an engine query.

import { queryEntries } from "../http/query-string.js";
import type { ErrorObject } from "ajv";
import { ajv } from "../http/json-schema.js";
import { FACET_PARAMS, FILTER_PARAMS, type FacetParam, type FilterParam, type SearchField } from "../engine/schema.js";

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** Deepest result reachable: page × limit may not exceed this. */
export const MAX_WINDOW = 1000;
const MAX_Q_LENGTH = 500;

const list = (item: string): string => `^${item}(,${item})*$`;

export const searchQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    q: {
      type: "string",
      maxLength: MAX_Q_LENGTH,
      description: "Free-text query, typo tolerant. Omitted or empty: everything matches and only filters apply.",
      "x-hint": `at most ${MAX_Q_LENGTH} characters`,
    },
    fields: {
      type: "string",
      enum: ["all", "name", "address", "lei"],
      description:
        "Which fields q searches: all (default), name (legal, other and transliterated names), address (address lines, city, postal code), lei.",
      "x-hint": "one of all, name, address, lei",
    },
    country: {
      type: "string",
      pattern: list("[A-Z]{2}"),
      description: "ISO 3166-1 alpha-2 country of the legal address; comma-separated values are OR.",
      "x-hint": "ISO 3166-1 alpha-2 codes separated by commas",
    },
    jurisdiction: {
      type: "string",
      pattern: list("[A-Z]{2}(-[A-Z0-9]{1,3})?"),
      description:
        "ISO 3166 legal jurisdiction; comma-separated values are OR. A country code also matches its subdivisions (US matches US-DE).",
      "x-hint": "ISO 3166 codes (US or US-DE) separated by commas",
    },
    status: {
      type: "string",
      pattern: list("(ACTIVE|INACTIVE)"),
      description: "Entity status, ACTIVE or INACTIVE; comma-separated values are OR.",
      "x-hint": "ACTIVE or INACTIVE",
    },
    registrationStatus: {
      type: "string",
      pattern: list("[A-Z_]{2,40}"),
      description: "LEI registration status, e.g. ISSUED, LAPSED, RETIRED; comma-separated values are OR.",
      "x-hint": "status words such as ISSUED, LAPSED, RETIRED separated by commas",
    },
    category: {
      type: "string",
      pattern: list("[A-Z_]{2,40}"),
      description: "Entity category, e.g. GENERAL, FUND, BRANCH; comma-separated values are OR.",
      "x-hint": "category words such as GENERAL, FUND, BRANCH separated by commas",
    },
    legalForm: {
      type: "string",
      pattern: list("[A-Z0-9]{4}"),
      description: "ISO 20275 Entity Legal Form code (4 characters, 8888 = none); comma-separated values are OR.",
      "x-hint": "4-character ISO 20275 codes separated by commas",
    },
    managingLou: {
      type: "string",
      pattern: list("[A-Z0-9]{20}"),
      description: "LEI of the managing Local Operating Unit; comma-separated values are OR.",
      "x-hint": "20-character LEIs separated by commas",
    },
    city: {
      type: "string",
      minLength: 1,
      maxLength: 200,
      description: "City of the legal address; matched ignoring case and diacritics. A single value (city names may hold commas).",
      "x-hint": "a city name of 1 to 200 characters",
    },
    region: {
      type: "string",
      pattern: list("[A-Z]{2}-[A-Z0-9]{1,3}"),
      description: "ISO 3166-2 subdivision of the legal address; comma-separated values are OR.",
      "x-hint": "ISO 3166-2 codes such as US-DE separated by commas",
    },
    directParent: {
      type: "string",
      pattern: list("[A-Z0-9]{20}"),
      description: "LEI of the direct accounting consolidation parent (Level 2): its direct children; comma-separated values are OR.",
      "x-hint": "20-character LEIs separated by commas",
    },
    ultimateParent: {
      type: "string",
      pattern: list("[A-Z0-9]{20}"),
      description:
        "LEI of the ultimate accounting consolidation parent (Level 2): every member of its group, the parent itself not included; comma-separated values are OR.",
      "x-hint": "20-character LEIs separated by commas",
    },
    hasParent: {
      type: "string",
      enum: ["TRUE", "FALSE"],
      description: "true: entities reporting a direct or ultimate parent (Level 2); false: the others.",
      "x-hint": "true or false",
    },
    facets: {
      type: "string",
      pattern: list(`(${FACET_PARAMS.join("|")})`),
      description: `Comma-separated facets to count across everything matching: ${FACET_PARAMS.join(", ")}.`,
      "x-hint": `facet names among ${FACET_PARAMS.join(", ")}`,
    },
    page: {
      type: "string",
      pattern: "^[0-9]{1,9}$",
      description: `1-based page number; default 1. page × limit may not exceed ${MAX_WINDOW}.`,
      "x-hint": "a whole number from 1",
    },
    limit: {
      type: "string",
      pattern: "^[0-9]{1,9}$",
      description: `Page size; default ${DEFAULT_LIMIT}, values above ${MAX_LIMIT} are clamped to ${MAX_LIMIT}.`,
      "x-hint": "a whole number from 1",
    },
  },
} as const;

const validate = ajv.compile(searchQuerySchema);

/** Filters whose values are codes: upper-cased and trimmed before validation and matching (city is free text). */
export const CODE_FILTERS: ReadonlySet<string> = new Set(FILTER_PARAMS.filter((p) => p !== "city"));
/** Parameters that may be repeated; repeats are OR, like commas. */
const REPEATABLE = new Set<string>([...FILTER_PARAMS.filter((p) => p !== "city" && p !== "hasParent"), "facets"]);

export interface SearchParams {
  q: string | null;
  fields: SearchField;
  filters: Partial<Record<FilterParam, string[]>>;
  facets: FacetParam[];
  page: number;
  limit: number;
  /** keyed API only (Typesense num_typos, prefix): not parameters of GET /v1/entities */
  maxTypos?: number;
  prefix?: boolean;
  /** keyed API only (filter_by's !=): values a doc may not have */
  exclude?: Partial<Record<FilterParam, string[]>>;
}

export class ParamError extends Error {}

/** GET /v1/entities's query string: percent-decoded into pairs, then searchParamsFrom(). */
export function parseSearchParams(rawQuery: string): SearchParams {
  let entries: [string, string][];
  try {
    entries = queryEntries(rawQuery);
  } catch (err) {
    throw new ParamError((err as Error).message);
  }
  return searchParamsFrom(entries);
}

/**
 * The search every front asks for, from (parameter, value) pairs named as GET /v1/entities names
 * them: the Typesense API and MCP map their own arguments onto these pairs, so one validator,
 * one set of messages and one normalisation serve all three, with no query string in between.
 */
export function searchParamsFrom(entries: Iterable<readonly [string, string]>): SearchParams {
  // no prototype: "toString" or "constructor" is an unknown parameter, not one already given
  const raw: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of entries) {
    const v = CODE_FILTERS.has(key) ? value.trim().toUpperCase() : value;
    if (key in raw) {
      if (!REPEATABLE.has(key)) throw new ParamError(`parameter '${key}' is given more than once`);
      raw[key] = `${raw[key]},${v}`;
    } else raw[key] = v;
  }
  if (!validate(raw)) throw new ParamError(describe(validate.errors?.[0]));

  const page = raw.page === undefined ? 1 : Number(raw.page);
  let limit = raw.limit === undefined ? DEFAULT_LIMIT : Number(raw.limit);
  if (page < 1) throw new ParamError("invalid value for 'page': must be a whole number from 1");
  if (limit < 1) throw new ParamError("invalid value for 'limit': must be a whole number from 1");
  limit = Math.min(limit, MAX_LIMIT);
  if (page * limit > MAX_WINDOW) {
    throw new ParamError(
      `page too deep: page × limit may not exceed ${MAX_WINDOW} (asked for page ${page} of ${limit}); narrow the query with filters`,
    );
  }
  const filters: Partial<Record<FilterParam, string[]>> = {};
  for (const param of FILTER_PARAMS) {
    const v = raw[param];
    if (v === undefined) continue;
    filters[param] = param === "city" ? [v] : [...new Set(v.split(","))];
  }
  const q = raw.q?.trim() ? raw.q.trim() : null;
  return {
    q,
    fields: (raw.fields ?? "all") as SearchField,
    filters,
    facets: raw.facets ? ([...new Set(raw.facets.split(","))] as FacetParam[]) : [],
    page,
    limit,
  };
}

/** The same search for another q: a copy written out, not spread (see roundQuery() in engine/search-rounds.ts). */
export function withQuery(p: SearchParams, q: string | null): SearchParams {
  return {
    q,
    fields: p.fields,
    filters: p.filters,
    facets: p.facets,
    page: p.page,
    limit: p.limit,
    maxTypos: p.maxTypos,
    prefix: p.prefix,
    exclude: p.exclude,
  };
}

function describe(err: ErrorObject | undefined): string {
  if (!err) return "invalid query parameters";
  if (err.keyword === "additionalProperties") {
    const name = (err.params as { additionalProperty: string }).additionalProperty;
    return `unknown parameter '${name}'; allowed: ${Object.keys(searchQuerySchema.properties).join(", ")}`;
  }
  const name = err.instancePath.replace(/^\//, "");
  const schema = searchQuerySchema.properties[name as keyof typeof searchQuerySchema.properties];
  return `invalid value for '${name}': ${schema ? schema["x-hint"] : err.message}`;
}
