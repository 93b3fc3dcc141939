import { foldText } from "./text.js";

// The schema of the LEI collection as the engine sees it: the stored document, the text fields
// with their field bits, and the filter/facet columns (one small integer code per doc each).

export interface LegalEntity {
  lei: string;
  legalName: string | null;
  entityStatus: string | null;
  entityCategory: string | null;
  registrationStatus: string | null;
  legalForm: string | null;
  jurisdiction: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  postalCode: string | null;
  legalAddress: string | null;
  hqAddress: string | null;
  managingLou: string | null;
  registeredAt: string | null;
  lastUpdatedAt: string | null;
}

/** LegalEntity's fields in document order. */
export const ENTITY_FIELDS = [
  "lei", "legalName", "entityStatus", "entityCategory", "registrationStatus", "legalForm", "jurisdiction", "country",
  "region", "city", "postalCode", "legalAddress", "hqAddress", "managingLou", "registeredAt", "lastUpdatedAt",
] as const satisfies readonly (keyof LegalEntity)[];

export const FIELD_LEGAL_NAME = 1;
export const FIELD_OTHER_NAME = 2;
export const FIELD_ADDRESS = 4;
export const FIELD_LEI = 8;

export const SEARCH_FIELDS = {
  all: FIELD_LEGAL_NAME | FIELD_OTHER_NAME | FIELD_ADDRESS | FIELD_LEI,
  name: FIELD_LEGAL_NAME | FIELD_OTHER_NAME,
  address: FIELD_ADDRESS,
  lei: FIELD_LEI,
} as const;
export type SearchField = keyof typeof SEARCH_FIELDS;

/** Filter columns, in column order. `param` is the request parameter of GET /v1/entities. */
export const COLUMNS = [
  { param: "country", field: "country" },
  { param: "jurisdiction", field: "jurisdiction" },
  { param: "status", field: "entityStatus" },
  { param: "registrationStatus", field: "registrationStatus" },
  { param: "category", field: "entityCategory" },
  { param: "legalForm", field: "legalForm" },
  { param: "managingLou", field: "managingLou" },
  { param: "city", field: "city" },
  { param: "region", field: "region" },
] as const satisfies readonly { param: string; field: keyof LegalEntity }[];

export type FilterParam = (typeof COLUMNS)[number]["param"];
export const FILTER_PARAMS: readonly FilterParam[] = COLUMNS.map((c) => c.param);
export const FACET_PARAMS = ["country", "jurisdiction", "status", "registrationStatus", "category"] as const;
export type FacetParam = (typeof FACET_PARAMS)[number];

export function columnIndex(param: FilterParam): number {
  return COLUMNS.findIndex((c) => c.param === param);
}

/**
 * The key a value is coded and filtered by. Codes compare case-insensitively; city also ignores
 * diacritics, since free-text cities come as LONDON, London and the like.
 */
export function columnKey(param: FilterParam, value: string): string {
  if (param === "city") return foldText(value).trim();
  return value.toUpperCase().trim();
}
