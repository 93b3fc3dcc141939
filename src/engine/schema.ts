import { foldText } from "./text.js";

// The schema of the LEI collection as the engine sees it: the stored document, the text fields
// with their field bits, and the filter/facet columns (one small integer code per doc each).

/**
 * The LegalEntity's fields in document order: the one table its type, the golden-copy column
 * each is read from, the OpenAPI and MCP schemas and the Typesense field list derive from. Only
 * `lei` is always present; every other field is null where the record has no value.
 */
export const ENTITY_FIELD_TABLE = [
  { name: "lei", column: "LEI", description: "ISO 17442 LEI, 20 characters" },
  { name: "legalName", column: "Entity.LegalName", description: "Legal name, as registered" },
  { name: "entityStatus", column: "Entity.EntityStatus", description: "ACTIVE or INACTIVE" },
  {
    name: "entityCategory",
    column: "Entity.EntityCategory",
    description: "GENERAL, FUND, BRANCH, SOLE_PROPRIETOR, RESIDENT_GOVERNMENT_ENTITY or INTERNATIONAL_ORGANIZATION",
  },
  {
    name: "registrationStatus",
    column: "Registration.RegistrationStatus",
    description: "ISSUED, LAPSED, RETIRED, PENDING_TRANSFER, PENDING_ARCHIVAL, DUPLICATE, ANNULLED, MERGED, TRANSFERRED or CANCELLED",
  },
  {
    name: "legalForm",
    column: "Entity.LegalForm.EntityLegalFormCode",
    description: "ISO 20275 entity legal form (ELF) code, or 8888 and 9999 as GLEIF uses them",
  },
  {
    name: "legalFormName",
    column: "(ELF code list) Entity Legal Form name Local name",
    description:
      "The legal form's name from GLEIF's ELF code list, for the record's jurisdiction and in its legal name's language where the list has several; for 8888, the record's OtherLegalForm; null for 9999 and codes not on the list",
  },
  {
    name: "legalFormAbbreviations",
    column: "(ELF code list) Abbreviations Local language",
    description:
      'The legal form\'s abbreviations from the same row of the ELF code list, several separated by "; "; null where it lists none',
  },
  {
    name: "jurisdiction",
    column: "Entity.LegalJurisdiction",
    description: "Legal jurisdiction: ISO 3166-1 country or ISO 3166-2 subdivision code",
  },
  { name: "country", column: "Entity.LegalAddress.Country", description: "Country of the legal address, ISO 3166-1 alpha-2" },
  { name: "region", column: "Entity.LegalAddress.Region", description: "Region of the legal address, ISO 3166-2" },
  { name: "city", column: "Entity.LegalAddress.City", description: "City of the legal address" },
  { name: "postalCode", column: "Entity.LegalAddress.PostalCode", description: "Postal code of the legal address" },
  { name: "legalAddress", column: "Entity.LegalAddress.FirstAddressLine", description: "First line of the legal address" },
  {
    name: "hqAddress",
    column: "Entity.HeadquartersAddress.FirstAddressLine",
    description: "First line of the headquarters address; only where it differs from legalAddress",
  },
  { name: "managingLou", column: "Registration.ManagingLOU", description: "LEI of the LOU that manages the registration" },
  {
    name: "registeredAt",
    column: "Registration.InitialRegistrationDate",
    description: "Date and time of the initial registration (ISO 8601)",
  },
  {
    name: "lastUpdatedAt",
    column: "Registration.LastUpdateDate",
    description: "Date and time of the registration's last update (ISO 8601)",
  },
  {
    name: "nextRenewalDate",
    column: "Registration.NextRenewalDate",
    description: "Date and time by which the registration must be renewed (ISO 8601); a date in the past means the renewal is overdue",
  },
  {
    name: "successorLeis",
    column: "Entity.SuccessorEntity.1.SuccessorLEI",
    description:
      'LEIs of the successor entities (Entity.SuccessorEntity.1…5.SuccessorLEI), several separated by "; "; null where the record names none',
  },
  {
    name: "directParent",
    column: "(Level 2) IS_DIRECTLY_CONSOLIDATED_BY",
    description:
      "LEI of the direct accounting consolidation parent, from the Level 2 relationship records (a relationship not INACTIVE); null where none is reported",
  },
  {
    name: "ultimateParent",
    column: "(Level 2) IS_ULTIMATELY_CONSOLIDATED_BY",
    description:
      "LEI of the ultimate accounting consolidation parent, from the Level 2 relationship records (a relationship not INACTIVE); null where none is reported",
  },
] as const satisfies readonly { name: string; column: string; description: string }[];

export type EntityField = (typeof ENTITY_FIELD_TABLE)[number]["name"];

/** The stored document: what GET /v1/entities/{lei} answers. */
export type LegalEntity = { lei: string } & { [F in Exclude<EntityField, "lei">]: string | null };

/** LegalEntity's fields in document order. */
export const ENTITY_FIELDS: readonly EntityField[] = ENTITY_FIELD_TABLE.map((f) => f.name);

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
  { param: "directParent", field: "directParent" },
  { param: "ultimateParent", field: "ultimateParent" },
  // TRUE where the entity has a direct or an ultimate parent, FALSE elsewhere (never "no value")
  { param: "hasParent", field: "directParent", presence: true },
] as const satisfies readonly { param: string; field: EntityField; presence?: true }[];

/** The column whose code says whether a doc has a parent (TRUE/FALSE), from directParent and ultimateParent. */
export const PRESENCE_VALUES = [null, "TRUE", "FALSE"] as const;

/** A column's name as the keyed API's filter_by and facet_by take it: its field, or its own name for a presence column. */
export function columnFieldName(column: (typeof COLUMNS)[number]): string {
  return "presence" in column ? column.param : column.field;
}

export type FilterParam = (typeof COLUMNS)[number]["param"];
export const FILTER_PARAMS: readonly FilterParam[] = COLUMNS.map((c) => c.param);
export const FACET_PARAMS = ["country", "jurisdiction", "status", "registrationStatus", "category", "hasParent"] as const;
export type FacetParam = (typeof FACET_PARAMS)[number];

/** The facet parameter of a field, if it has one: the fields facet_by and facets take. */
export function facetOfField(field: EntityField): FacetParam | null {
  const param = COLUMNS.find((c) => c.field === field)?.param;
  return param !== undefined && (FACET_PARAMS as readonly string[]).includes(param) ? (param as FacetParam) : null;
}

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
