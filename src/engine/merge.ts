// Gathering the slices' answers: hits merged by score then LEI (deterministic across slices and
// runs), facet counts summed per value and sorted by count then value. And gathering the merged
// answers of one query's synonym variants, before any document is read.

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
  hits.sort(byScoreThenLei);
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

/**
 * One query's synonym variants as one answer: each LEI once at its best score, at most the
 * window; found and facets are the widest variant's (found at least the LEIs merged).
 */
export function mergeVariants(variants: MergedSearch[], window: number): MergedSearch {
  const best = new Map<string, HitRef>();
  for (const v of variants) for (const hit of v.hits) if ((best.get(hit[1])?.[0] ?? -1) < hit[0]) best.set(hit[1], hit);
  const widest = variants.reduce((a, b) => (b.found > a.found ? b : a));
  const hits = [...best.values()].sort(byScoreThenLei);
  if (hits.length > window) hits.length = window;
  return { found: Math.max(widest.found, best.size), hits, facets: widest.facets };
}

function byScoreThenLei(a: HitRef, b: HitRef): number {
  return b[0] - a[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
}
