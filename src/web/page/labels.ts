// Words a person reads for the registry's codes: field labels, statuses, categories, and country
// names from the browser's own Intl data (nothing fetched).

import type { EntityField, FacetParam, LegalEntity } from "../../engine/schema.js";

/** The Level 2 fields of the entity (its parents' LEIs): the page shows them in its family section, named. */
type Level2Field = "directParent" | "ultimateParent";
/** The legal form's name and abbreviations: shown in the legal form's row. */
type FormNameField = "legalFormName" | "legalFormAbbreviations";

/** Every Level 1 field of the entity, in the order the entity page lists them (the type checks none is missing). */
export const FIELD_LABELS: Record<Exclude<EntityField, Level2Field | FormNameField>, string> = {
  lei: "LEI",
  legalName: "Legal name",
  entityStatus: "Entity status",
  registrationStatus: "Registration status",
  entityCategory: "Entity category",
  legalForm: "Legal form",
  jurisdiction: "Legal jurisdiction",
  country: "Country (legal address)",
  region: "Region (legal address)",
  city: "City (legal address)",
  postalCode: "Postal code (legal address)",
  legalAddress: "Legal address",
  hqAddress: "Headquarters address",
  managingLou: "Managing LOU (the issuer of this LEI)",
  registeredAt: "First registered",
  lastUpdatedAt: "Last updated",
  nextRenewalDate: "Next renewal",
  successorLeis: "Successor LEIs",
};

/** The change feed's fields as the page names them (GET /v1/changes `field`). */
export const CHANGE_LABELS: Record<string, string> = {
  legalName: "Legal name",
  otherNames: "Other names",
  legalAddress: "Legal address",
  hqAddress: "Headquarters address",
  entityStatus: "Entity status",
  registrationStatus: "Registration status",
  nextRenewalDate: "Next renewal",
  managingLou: "Managing LOU",
  legalForm: "Legal form",
  successorLeis: "Successor LEIs",
  directParent: "Direct parent",
  ultimateParent: "Ultimate parent",
  directParentException: "Direct parent exception",
  ultimateParentException: "Ultimate parent exception",
  isinCount: "ISINs",
};

/** The facets the page offers, in the API's parameter names, with their headings: every facet but hasParent. */
const FACET_LABELS: Record<Exclude<FacetParam, "hasParent">, string> = {
  country: "Country",
  jurisdiction: "Jurisdiction",
  status: "Entity status",
  registrationStatus: "Registration status",
  category: "Category",
};
export const FACETS = (Object.keys(FACET_LABELS) as (keyof typeof FACET_LABELS)[]).map((field) => ({ field, label: FACET_LABELS[field] }));

const CODE_WORDS: Record<string, string> = {
  ACTIVE: "Active",
  INACTIVE: "Inactive",
  ISSUED: "Issued",
  LAPSED: "Lapsed",
  RETIRED: "Retired",
  ANNULLED: "Annulled",
  DUPLICATE: "Duplicate",
  MERGED: "Merged",
  TRANSFERRED: "Transferred",
  PENDING_TRANSFER: "Pending transfer",
  PENDING_ARCHIVAL: "Pending archival",
  PENDING_VALIDATION: "Pending validation",
  GENERAL: "General",
  FUND: "Fund",
  BRANCH: "Branch",
  SOLE_PROPRIETOR: "Sole proprietor",
  RESIDENT_GOVERNMENT_ENTITY: "Resident government entity",
  INTERNATIONAL_ORGANIZATION: "International organization",
};

/** A status or category code in words ("PENDING_TRANSFER" → "Pending transfer"). */
export function codeWords(code: string): string {
  return CODE_WORDS[code] ?? code.charAt(0) + code.slice(1).toLowerCase().replace(/_/g, " ");
}

/** Registration statuses that mean the LEI is not kept up to date: shown as a warning. */
export const STALE_REGISTRATIONS = new Set(["LAPSED", "RETIRED", "ANNULLED", "DUPLICATE", "MERGED", "PENDING_ARCHIVAL"]);

let regionNames: Intl.DisplayNames | null = null;

/** "DE" → "Germany"; an unknown code stays as it is. */
export function countryName(code: string): string {
  try {
    regionNames ??= new Intl.DisplayNames(["en"], { type: "region" });
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
}

/** A jurisdiction or region ("US-DE", "FR") as words with its code: "United States, US-DE". */
export function placeName(code: string): string {
  const country = code.slice(0, 2);
  const name = countryName(country);
  if (name === country) return code;
  return code.length > 2 ? `${name}, ${code}` : `${name} (${code})`;
}

/**
 * The legal form in words: its name from GLEIF's ELF code list with its abbreviations
 * ("Gesellschaft mit beschränkter Haftung (GmbH)"), the record's own text for 8888, the code
 * itself where the list does not know it; the code follows in `code`.
 */
export function legalFormWords(entity: Pick<LegalEntity, "legalForm" | "legalFormName" | "legalFormAbbreviations">): {
  words: string;
  code: string;
} {
  const code = entity.legalForm ?? "";
  const abbreviations =
    entity.legalFormAbbreviations
      ?.split(";")
      .map((a) => a.trim())
      .filter((a) => a !== "") ?? [];
  if (code === "8888")
    return {
      words: entity.legalFormName ?? "not given as text in the record",
      code: "ELF code 8888: no code applies, the form is given as text in the record",
    };
  if (code === "9999") return { words: "Legal form not applicable or not known", code: "ELF code 9999 (GLEIF placeholder)" };
  if (!entity.legalFormName) return { words: code, code: "ISO 20275 ELF code, not on the code list this server holds" };
  return {
    words: abbreviations.length > 0 ? `${entity.legalFormName} (${abbreviations.join(", ")})` : entity.legalFormName,
    code: `ISO 20275 ELF code ${code}`,
  };
}

const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" });

/** A golden-copy timestamp as a date a person reads; the text as published when it is not a date. */
export function dateWords(value: string): string {
  const t = Date.parse(value);
  return Number.isNaN(t) ? value : dateFormat.format(t);
}

/** Accounting standards as GLEIF's relationship records name them. */
const ACCOUNTING_STANDARDS: Record<string, string> = {
  IFRS: "IFRS",
  US_GAAP: "US GAAP",
  OTHER_ACCOUNTING_STANDARD: "another accounting standard",
};

/** An accounting standard in words ("US_GAAP" → "US GAAP"); an unknown one as published. */
export function accountingStandardWords(code: string): string {
  return ACCOUNTING_STANDARDS[code] ?? code;
}

/** Why no parent is reported (GLEIF's reporting exception reasons), in a few words. */
const EXCEPTION_REASONS: Record<string, string> = {
  NATURAL_PERSONS: "controlled by natural persons",
  NON_CONSOLIDATING: "its controlling entity is not obliged to consolidate it",
  NO_KNOWN_PERSON: "no known person controls it",
  NON_PUBLIC: "the parent is not made public",
  NO_LEI: "the parent has no LEI",
  BINDING_LEGAL_COMMITMENTS: "binding legal commitments prevent disclosing it",
  LEGAL_OBSTACLES: "legal obstacles prevent disclosing it",
  DISCLOSURE_DETRIMENTAL: "disclosing it would be detrimental",
  DETRIMENT_NOT_EXCLUDED: "harm from disclosing it cannot be excluded",
  CONSENT_NOT_OBTAINED: "the parent's consent was not obtained",
};

/** A reason code with its meaning where known: "NON_CONSOLIDATING (its controlling entity …)". */
export function exceptionReasonWords(code: string): string {
  const words = EXCEPTION_REASONS[code];
  return words ? `${code} (${words})` : code;
}
