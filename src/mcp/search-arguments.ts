// search_legal_entities arguments -> SearchParams. The arguments are written as the query string
// of GET /v1/entities and handed to the same parser, so a tool call and an HTTP request with the
// same values are one query: same validation, same messages, same cache key, same ranking.

import { FILTER_PARAMS } from "../engine/schema.js";
import { parseSearchParams, type SearchParams } from "../lei/search-params.js";
import type { SearchToolInput } from "./tool-schemas.js";

/** The GET /v1/entities query string equivalent to these tool arguments. */
export function searchQueryString(args: SearchToolInput): string {
  const query = new URLSearchParams();
  if (args.query !== undefined) query.set("q", args.query);
  if (args.fields !== undefined) query.set("fields", args.fields);
  for (const param of FILTER_PARAMS) {
    const value = args[param];
    if (value !== undefined) query.set(param, value);
  }
  // an empty list asks for no facets, as omitting it does
  if (args.facets !== undefined && args.facets.length > 0) query.set("facets", args.facets.join(","));
  if (args.page !== undefined) query.set("page", String(args.page));
  if (args.limit !== undefined) query.set("limit", String(args.limit));
  return query.toString();
}

/** Throws ParamError with the HTTP API's message when a value is out of bounds. */
export function searchParamsOf(args: SearchToolInput): SearchParams {
  return parseSearchParams(searchQueryString(args));
}
