// Golden-copy columns -> LegalEntity. Columns are found by name in the header, so any order and
// any extra columns work. Values are reproduced as published; the only rewrite is the literal
// `NULL` of Entity.EntityStatus, which is how the file says "no status".

import { ENTITY_FIELDS, type LegalEntity, type WireRecord } from "../../engine/schema.js";
import type { CsvRow } from "./csv.js";

const ENTITY_COLUMNS: Record<keyof LegalEntity, string> = {
  lei: "LEI",
  legalName: "Entity.LegalName",
  entityStatus: "Entity.EntityStatus",
  entityCategory: "Entity.EntityCategory",
  registrationStatus: "Registration.RegistrationStatus",
  legalForm: "Entity.LegalForm.EntityLegalFormCode",
  jurisdiction: "Entity.LegalJurisdiction",
  country: "Entity.LegalAddress.Country",
  region: "Entity.LegalAddress.Region",
  city: "Entity.LegalAddress.City",
  postalCode: "Entity.LegalAddress.PostalCode",
  legalAddress: "Entity.LegalAddress.FirstAddressLine",
  hqAddress: "Entity.HeadquartersAddress.FirstAddressLine",
  managingLou: "Registration.ManagingLOU",
  registeredAt: "Registration.InitialRegistrationDate",
  lastUpdatedAt: "Registration.LastUpdateDate",
};

export const REQUIRED_COLUMNS = ["LEI", "Entity.LegalName"] as const;

const OTHER_NAME_COLUMNS = [1, 2, 3, 4, 5].flatMap((i) => [
  `Entity.OtherEntityNames.OtherEntityName.${i}`,
  `Entity.TransliteratedOtherEntityNames.TransliteratedOtherEntityName.${i}`,
]);

const LEI_SHAPE = /^[0-9A-Z]{20}$/;

export class MissingColumnsError extends Error {}

export type RecordMapper = (row: CsvRow) => WireRecord | null;

/** Builds the row -> record mapping from the header row. */
export function recordMapper(header: string[]): RecordMapper {
  const index = new Map<string, number>();
  header.forEach((name, i) => index.set(name.trim(), i));
  const missing = REQUIRED_COLUMNS.filter((c) => !index.has(c));
  if (missing.length > 0) throw new MissingColumnsError(`golden copy lacks required column(s): ${missing.join(", ")}`);

  const at = (name: string): number => index.get(name) ?? -1;
  const columns = ENTITY_FIELDS.map((field) => at(ENTITY_COLUMNS[field]));
  const otherNames = OTHER_NAME_COLUMNS.map(at).filter((i) => i >= 0);
  const STATUS = ENTITY_FIELDS.indexOf("entityStatus");
  const LEGAL_ADDRESS = ENTITY_FIELDS.indexOf("legalAddress");
  const HQ_ADDRESS = ENTITY_FIELDS.indexOf("hqAddress");

  return (row) => {
    const wire: WireRecord = columns.map((i) => {
      const value = row.field(i);
      return value === "" ? null : value;
    });
    // The engine orders and finds docs by LEI bytes; a row whose LEI is not 20 upper-case
    // letters or digits cannot be an LEI at all, and is skipped (and counted) by the loader.
    if (!wire[0] || !LEI_SHAPE.test(wire[0])) return null;
    if (wire[STATUS] === "NULL") wire[STATUS] = null;
    if (wire[HQ_ADDRESS] !== null && wire[HQ_ADDRESS] === wire[LEGAL_ADDRESS]) wire[HQ_ADDRESS] = null;
    for (const i of otherNames) {
      const v = row.field(i);
      if (v !== "") wire.push(v);
    }
    return wire;
  };
}
