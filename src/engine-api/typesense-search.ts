// Typesense search parameters onto Leidex's search, and Leidex's outcome into Typesense's answer.
// Documents are the LegalEntity objects, so Typesense field names are LegalEntity's: filter_by
// and facet_by take country, jurisdiction, entityStatus, registrationStatus, entityCategory,
// legalForm, managingLou, city, region. filter_by: see filter-by.ts.

import type { SearchOutcome } from "../engine/collection.js";
import type { ScratchBytes } from "../engine/scratch-bytes.js";
import { COLUMNS, columnFieldName, FACET_PARAMS, type FacetParam, type FilterParam } from "../engine/schema.js";
import { ParamError, searchParamsFrom, type SearchParams } from "../lei/search-params.js";
import { PARAM_OF_FIELD, parseScopedFilterBy } from "./filter-by.js";

export const MAX_PER_PAGE = 250;
const MAX_DEPTH = 10_000;
const FIELD_OF_PARAM = new Map<FilterParam, string>(COLUMNS.map((c) => [c.param, columnFieldName(c)]));
const NAME_FIELDS = new Set(["legalName", "otherNames", "name"]);
const ADDRESS_FIELDS = new Set(["legalAddress", "hqAddress", "city", "postalCode", "region", "address"]);

const KNOWN = new Set([
  "q",
  "query_by",
  "filter_by",
  "facet_by",
  "page",
  "per_page",
  "num_typos",
  "prefix",
  "x-typesense-api-key",
  "x-search-api-key",
  "sort_by",
  "include_fields",
  "exclude_fields",
  "highlight_fields",
  "max_facet_values",
  "typo_tokens_threshold",
  "drop_tokens_threshold",
  "preset",
  // accepted and without effect here: the official client's scoped-key and caching parameters
  "cache_ttl",
  "use_cache",
  "limit_multi_searches",
  "highlight_full_fields",
  "snippet_threshold",
  "exhaustive_search",
  "prioritize_exact_match",
]);

export interface TypesenseQuery {
  params: SearchParams;
  perPage: number;
  page: number;
  q: string;
  /** the filter contradicts itself (two clauses on one field share no value): nothing matches */
  empty: boolean;
}

/**
 * Typesense parameters (already merged with a scoped key's) → SearchParams; ParamError on bad
 * input. `scopeFilter`: a scoped key's embedded filter_by, ANDed with the request's as parsed plans.
 */
export function fromTypesense(raw: Record<string, string>, scopeFilter: string | null = null): TypesenseQuery {
  for (const k of Object.keys(raw)) if (!KNOWN.has(k)) throw new ParamError(`unknown search parameter '${k}'`);
  if (raw.q === undefined) throw new ParamError("the parameter 'q' is required (use * to match everything)");
  const search: [string, string][] = [];
  const q = raw.q.trim();
  if (q !== "" && q !== "*") search.push(["q", q]);
  const fields = fieldsOf(raw.query_by);
  if (fields) search.push(["fields", fields]);
  const filters = parseScopedFilterBy(raw.filter_by ?? "", scopeFilter);
  const excluded: Partial<Record<FilterParam, string[]>> = {};
  for (const [param, f] of filters ?? []) {
    if (f.include !== null) search.push([param, f.include.join(",")]);
    // excluded values are checked and normalised by the same parser as allowed ones
    if (f.exclude.length > 0) excluded[param] = searchParamsFrom([[param, f.exclude.join(",")]]).filters[param];
  }
  const facets = facetsOf(raw.facet_by ?? "");
  if (facets.length > 0) search.push(["facets", facets.join(",")]);
  const params = searchParamsFrom(search);
  const page = wholeNumber(raw.page, "page", 1, 1);
  const perPage = Math.min(wholeNumber(raw.per_page, "per_page", 10, 0), MAX_PER_PAGE);
  if (page * perPage > MAX_DEPTH) throw new ParamError(`page × per_page may not exceed ${MAX_DEPTH}`);
  // set on the fresh parse rather than spread into a copy (see roundQuery() in engine/search-rounds.ts);
  // per_page 0 asks for found and facets only, as InstantSearch's facet queries do: one hit is
  // ranked and none returned
  params.page = perPage === 0 ? 1 : page;
  params.limit = Math.max(perPage, 1);
  if (raw.num_typos !== undefined) params.maxTypos = numTypos(raw.num_typos);
  if (raw.prefix !== undefined) params.prefix = prefixFlag(raw.prefix);
  if (Object.keys(excluded).length > 0) params.exclude = excluded;
  return { params, perPage, page, q: raw.q, empty: filters === null };
}

/** Typesense takes one value per query_by field; the engine has one budget, so the largest wins. */
function numTypos(raw: string): number {
  const values = raw.split(",").map((v) => v.trim());
  if (values.some((v) => !/^[0-2]$/.test(v))) throw new ParamError("num_typos must be 0, 1 or 2 (or one of those per query_by field)");
  return Math.max(...values.map(Number));
}

function prefixFlag(raw: string): boolean {
  const values = raw.split(",").map((v) => v.trim());
  if (values.some((v) => v !== "true" && v !== "false"))
    throw new ParamError("prefix must be true or false (or one of those per query_by field)");
  return values.includes("true");
}

function wholeNumber(raw: string | undefined, name: string, fallback: number, least: number): number {
  if (raw === undefined || raw === "") return fallback;
  if (!/^[0-9]{1,9}$/.test(raw) || Number(raw) < least) throw new ParamError(`'${name}' must be a whole number from ${least}`);
  return Number(raw);
}

function fieldsOf(queryBy: string | undefined): string | null {
  if (!queryBy) return null;
  const fields = queryBy
    .split(",")
    .map((f) => f.trim())
    .filter(Boolean);
  const kinds = new Set(
    fields.map((f) => (NAME_FIELDS.has(f) ? "name" : ADDRESS_FIELDS.has(f) ? "address" : f === "lei" ? "lei" : "unknown")),
  );
  if (kinds.has("unknown"))
    throw new ParamError(`query_by: unknown field; use legalName, otherNames, legalAddress, hqAddress, city, postalCode, lei`);
  return kinds.size === 1 ? [...kinds][0] : "all";
}

function facetsOf(facetBy: string): FacetParam[] {
  const out: FacetParam[] = [];
  for (const field of facetBy
    .split(",")
    .map((f) => f.trim())
    .filter(Boolean)) {
    const param = PARAM_OF_FIELD.get(field);
    if (!param || !(FACET_PARAMS as readonly string[]).includes(param)) {
      throw new ParamError(`facet_by: '${field}' is not a facet field; use ${FACET_PARAMS.map((p) => FIELD_OF_PARAM.get(p)).join(", ")}`);
    }
    out.push(param as FacetParam);
  }
  return out;
}

/**
 * Typesense's search answer for a page whose hits are the outcome's, from the first on:
 * documents spliced in as stored, never re-serialised. Written into `scratch`
 * (engine/scratch-bytes.ts): valid until the scratch is next used.
 */
export function toTypesense(outcome: SearchOutcome, query: TypesenseQuery, collection: string, scratch: ScratchBytes): Buffer {
  const end = Math.min(outcome.hits.length, query.perPage);
  const parts: (string | Uint8Array)[] = [
    `{"found":${outcome.found},"out_of":${outcome.outOf},"page":${query.page},"search_time_ms":${Math.round(outcome.tookMs)},"hits":[`,
  ];
  for (let i = 0; i < end; i++) {
    const [score, , doc] = outcome.hits[i];
    parts.push(i > 0 ? ',{"document":' : '{"document":', doc, `,"text_match":${Math.max(0, Math.floor(score))},"highlights":[]}`);
  }
  const facetCounts = query.params.facets.map((param) => ({
    field_name: FIELD_OF_PARAM.get(param),
    sampled: false,
    counts: (outcome.facets[param] ?? []).map(([value, count]) => ({ value, count, highlighted: value })),
    stats: { total_values: (outcome.facets[param] ?? []).length },
  }));
  parts.push(
    `],"facet_counts":${JSON.stringify(facetCounts)},"request_params":${JSON.stringify({ collection_name: collection, q: query.q, per_page: query.perPage })}}`,
  );
  return scratch.join(parts);
}
