// Golden-copy columns -> LegalEntity. Columns are found by name in the header, so any order and
// any extra columns work. Values are reproduced as published; the only rewrite is the literal
// `NULL` of Entity.EntityStatus, which is how the file says "no status".

import type { EntityRecord, LegalEntity } from "../../engine/schema.js";
import type { CsvRow } from "./csv.js";

const ENTITY_COLUMNS = {
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
} as const satisfies Record<keyof LegalEntity, string>;

export const REQUIRED_COLUMNS = ["LEI", "Entity.LegalName"] as const;

const OTHER_NAME_COLUMNS = [1, 2, 3, 4, 5].flatMap((i) => [
  `Entity.OtherEntityNames.OtherEntityName.${i}`,
  `Entity.TransliteratedOtherEntityNames.TransliteratedOtherEntityName.${i}`,
]);

const LEI_SHAPE = /^[0-9A-Z]{20}$/;

export class MissingColumnsError extends Error {}

export type RecordMapper = (row: CsvRow) => EntityRecord | null;

/** Builds the row -> record mapping from the header row. */
export function recordMapper(header: string[]): RecordMapper {
  const index = new Map<string, number>();
  header.forEach((name, i) => index.set(name.trim(), i));
  const missing = REQUIRED_COLUMNS.filter((c) => !index.has(c));
  if (missing.length > 0) throw new MissingColumnsError(`golden copy lacks required column(s): ${missing.join(", ")}`);

  const at = (name: string): number => index.get(name) ?? -1;
  const fields = Object.entries(ENTITY_COLUMNS).map(([key, column]) => [key as keyof LegalEntity, at(column)] as const);
  const otherNames = OTHER_NAME_COLUMNS.map(at).filter((i) => i >= 0);

  return (row) => {
    const entity = {} as Record<keyof LegalEntity, string | null>;
    for (const [key, i] of fields) {
      const value = row.field(i);
      entity[key] = value === "" ? null : value;
    }
    // The engine orders and finds docs by LEI bytes; a row whose LEI is not 20 upper-case
    // letters or digits cannot be an LEI at all, and is skipped (and counted) by the loader.
    if (!entity.lei || !LEI_SHAPE.test(entity.lei)) return null;
    if (entity.entityStatus === "NULL") entity.entityStatus = null;
    if (entity.hqAddress !== null && entity.hqAddress === entity.legalAddress) entity.hqAddress = null;
    const names: string[] = [];
    for (const i of otherNames) {
      const v = row.field(i);
      if (v !== "") names.push(v);
    }
    return { entity: entity as LegalEntity, otherNames: names };
  };
}
