// search_legal_entities arguments -> SearchParams. The arguments become the parameters of
// GET /v1/entities, handed to the same validator (searchParamsFrom), so a tool call and an HTTP
// request with the same values are one query: same validation, same messages, same cache key,
// same ranking.

import { FILTER_PARAMS } from "../engine/schema.js";
import { searchParamsFrom, type SearchParams } from "../lei/search-params.js";
import type { SearchToolInput } from "./tool-schemas.js";

/** The GET /v1/entities parameters equivalent to these tool arguments. */
function searchEntries(args: SearchToolInput): [string, string][] {
  const entries: [string, string][] = [];
  if (args.query !== undefined) entries.push(["q", args.query]);
  if (args.fields !== undefined) entries.push(["fields", args.fields]);
  for (const param of FILTER_PARAMS) {
    const value = args[param];
    if (value !== undefined) entries.push([param, value]);
  }
  // an empty list asks for no facets, as omitting it does
  if (args.facets !== undefined && args.facets.length > 0) entries.push(["facets", args.facets.join(",")]);
  if (args.page !== undefined) entries.push(["page", String(args.page)]);
  if (args.limit !== undefined) entries.push(["limit", String(args.limit)]);
  return entries;
}

/** Throws ParamError with the HTTP API's message when a value is out of bounds. */
export function searchParamsOf(args: SearchToolInput): SearchParams {
  return searchParamsFrom(searchEntries(args));
}
