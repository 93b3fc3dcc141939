// What the contract says a filter selects, computed from the fixture data itself.

import { foldCity, type Entity, type ModelRecord } from "./fixture.js";

export const FILTER_FIELD: Record<string, keyof Entity> = {
  country: "country",
  jurisdiction: "jurisdiction",
  status: "entityStatus",
  registrationStatus: "registrationStatus",
  category: "entityCategory",
  legalForm: "legalForm",
  managingLou: "managingLou",
  city: "city",
  region: "region",
};

export const FACET_FIELD: Record<string, keyof Entity> = {
  country: "country",
  jurisdiction: "jurisdiction",
  status: "entityStatus",
  registrationStatus: "registrationStatus",
  category: "entityCategory",
};

/** Does the record pass the filter `param` with OR-values `values` (as sent, any case)? */
export function passes(r: ModelRecord, param: string, values: string[]): boolean {
  const v = r.entity[FILTER_FIELD[param]];
  if (v === null) return false;
  if (param === "city") return values.some((x) => foldCity(x) === foldCity(v));
  const up = v.toUpperCase();
  return values.some((x) => {
    const want = x.toUpperCase();
    if (up === want) return true;
    return param === "jurisdiction" && /^[A-Z]{2}$/.test(want) && up.startsWith(want + "-");
  });
}

export function select(model: ModelRecord[], filters: Record<string, string[]>): ModelRecord[] {
  return model.filter((r) => Object.entries(filters).every(([p, vs]) => passes(r, p, vs)));
}

/** Facet counts over records, sorted like the API: count desc, then value. */
export function facetCounts(records: ModelRecord[], facet: string): { value: string; count: number }[] {
  const m = new Map<string, number>();
  for (const r of records) {
    const v = r.entity[FACET_FIELD[facet]];
    if (v === null) continue;
    const key = v.toUpperCase();
    m.set(key, (m.get(key) ?? 0) + 1);
  }
  return [...m]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

export function isSortedFacet(values: { value: string; count: number }[]): boolean {
  for (let i = 1; i < values.length; i++) {
    const a = values[i - 1],
      b = values[i];
    if (a.count < b.count) return false;
    if (a.count === b.count && !(a.value < b.value)) return false;
  }
  return true;
}
