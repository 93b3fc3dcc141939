// What a search is (query, filters, page) and its URL: the URL is the state, so a search can be
// shared, bookmarked, reloaded, and walked with back and forward.

import type { FacetParam } from "../../engine/schema.js";
import { FACETS } from "./labels.js";

export const PAGE_SIZE = 10;
/** The API answers results up to number 1,000 (page × limit ≤ 1000). */
export const LAST_PAGE = Math.floor(1000 / PAGE_SIZE);

export interface SearchState {
  q: string;
  filters: Record<FacetParam, string[]>;
  page: number;
}

export function emptyFilters(): Record<FacetParam, string[]> {
  return Object.fromEntries(FACETS.map((f) => [f.field, []])) as unknown as Record<FacetParam, string[]>;
}

export function stateFromUrl(search: string): SearchState {
  const params = new URLSearchParams(search);
  const filters = emptyFilters();
  for (const { field } of FACETS) {
    filters[field] = (params.get(field) ?? "")
      .split(",")
      .map((v) => v.trim())
      .filter((v) => v !== "");
  }
  const page = Number(params.get("page") ?? "1");
  return { q: params.get("q") ?? "", filters, page: Number.isInteger(page) && page >= 1 ? Math.min(page, LAST_PAGE) : 1 };
}

/** The page's own URL for a state: only what is set. */
export function urlOf(state: SearchState): string {
  const params = new URLSearchParams();
  if (state.q.trim() !== "") params.set("q", state.q);
  for (const { field } of FACETS) if (state.filters[field].length > 0) params.set(field, state.filters[field].join(","));
  if (state.page > 1) params.set("page", String(state.page));
  const query = params.toString();
  return query === "" ? "/" : `/?${query}`;
}

/** The API request for a state: the same parameters, with the page size and every facet. */
export function apiPathOf(state: SearchState): string {
  const params = new URLSearchParams();
  if (state.q.trim() !== "") params.set("q", state.q.trim());
  for (const { field } of FACETS) if (state.filters[field].length > 0) params.set(field, state.filters[field].join(","));
  params.set("page", String(state.page));
  params.set("limit", String(PAGE_SIZE));
  params.set("facets", FACETS.map((f) => f.field).join(","));
  return `/v1/entities?${params.toString()}`;
}
