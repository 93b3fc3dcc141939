// Gathering the slices' answers: hits merged by score then LEI (deterministic across slices and
// runs), facet counts summed per value and sorted by count then value.

import type { HitRef, SearchAnswer } from "./protocol.js";
import type { FacetParam } from "./schema.js";

export interface MergedSearch {
  found: number;
  /** best first, at most the window */
  hits: HitRef[];
  facets: Partial<Record<FacetParam, [string, number][]>>;
}

export function mergeSearchParts(parts: SearchAnswer[], window: number): MergedSearch {
  let found = 0;
  const hits: HitRef[] = [];
  const facetParts: Partial<Record<FacetParam, [string, number][][]>> = {};
  for (const part of parts) {
    found += part.found;
    for (const h of part.hits) hits.push(h);
    for (const [field, values] of Object.entries(part.facets) as [FacetParam, [string, number][]][]) {
      (facetParts[field] ??= []).push(values);
    }
  }
  hits.sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  if (hits.length > window) hits.length = window;
  const facets: Partial<Record<FacetParam, [string, number][]>> = {};
  for (const [field, lists] of Object.entries(facetParts) as [FacetParam, [string, number][][]][]) facets[field] = mergeFacetValues(lists);
  return { found, hits, facets };
}

export function mergeFacetValues(lists: [string, number][][]): [string, number][] {
  const merged = new Map<string, number>();
  for (const list of lists) for (const [value, count] of list) merged.set(value, (merged.get(value) ?? 0) + count);
  return [...merged].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
