// Maps an EntityRecord onto the golden-copy columns, by column name (the research
// notes warn that the column order is a reconstruction: never rely on positions).

import { RowLayout } from "./csv.js";
import type { Address, EntityRecord } from "./records.js";

const OTHER_NAME = "Entity.OtherEntityNames.OtherEntityName";
const TRANSLIT_NAME = "Entity.TransliteratedOtherEntityNames.TransliteratedOtherEntityName";
const OTHER_ADDRESS = "Entity.OtherAddresses.OtherAddress";
const TRANSLIT_ADDRESS = "Entity.TransliteratedOtherAddresses.TransliteratedOtherAddress";
const EVENT = "Entity.LegalEntityEvents.LegalEntityEvent";
const SLOTS = 5; // the CSV has exactly five slots per repeating group
const MAX_EVENTS = 3;

function addressColumns(prefix: string, withType: boolean): string[] {
  return ADDRESS_FIELDS.filter((f) => withType || f !== "type").map((f) => `${prefix}.${f}`);
}

const ADDRESS_FIELDS = [
  "xmllang",
  "type",
  "FirstAddressLine",
  "AdditionalAddressLine.1",
  "AdditionalAddressLine.2",
  "City",
  "Region",
  "Country",
  "PostalCode",
] as const;
const EVENT_FIELDS = [
  "group_type",
  "event_status",
  "LegalEntityEventType",
  "LegalEntityEventEffectiveDate",
  "LegalEntityEventRecordedDate",
  "ValidationDocuments",
  "ValidationReference",
] as const;
const SCALARS = [
  "LEI",
  "Entity.LegalName",
  "Entity.LegalName.xmllang",
  "Entity.RegistrationAuthority.RegistrationAuthorityID",
  "Entity.RegistrationAuthority.OtherRegistrationAuthorityID",
  "Entity.RegistrationAuthority.RegistrationAuthorityEntityID",
  "Entity.LegalJurisdiction",
  "Entity.EntityCategory",
  "Entity.EntitySubCategory",
  "Entity.LegalForm.EntityLegalFormCode",
  "Entity.LegalForm.OtherLegalForm",
  "Entity.EntityStatus",
  "Entity.EntityCreationDate",
  "Entity.SuccessorEntity.1.SuccessorLEI",
  "Entity.SuccessorEntity.1.SuccessorEntityName",
  "Registration.InitialRegistrationDate",
  "Registration.LastUpdateDate",
  "Registration.RegistrationStatus",
  "Registration.NextRenewalDate",
  "Registration.ManagingLOU",
  "Registration.ValidationSources",
  "Registration.ValidationAuthority.ValidationAuthorityID",
  "Registration.ValidationAuthority.ValidationAuthorityEntityID",
  "Registration.OtherValidationAuthorities.OtherValidationAuthority.1.ValidationAuthorityID",
  "ConformityFlag",
] as const;

/** Every column a generated row can fill; RowLayout sorts them into header order. */
function usedColumns(): string[] {
  const cols: string[] = [...SCALARS];
  for (let k = 1; k <= SLOTS; k++) {
    for (const group of [OTHER_NAME, TRANSLIT_NAME]) cols.push(`${group}.${k}`, `${group}.${k}.xmllang`, `${group}.${k}.type`);
  }
  cols.push(...addressColumns("Entity.LegalAddress", false), ...addressColumns("Entity.HeadquartersAddress", false));
  for (let k = 1; k <= 2; k++)
    cols.push(...addressColumns(`${OTHER_ADDRESS}.${k}`, true), ...addressColumns(`${TRANSLIT_ADDRESS}.${k}`, true));
  for (let k = 1; k <= MAX_EVENTS; k++) for (const f of EVENT_FIELDS) cols.push(`${EVENT}.${k}.${f}`);
  return cols;
}

function scalarValues(r: EntityRecord): readonly string[] {
  // Same order as SCALARS.
  return [
    r.lei,
    r.legalName,
    r.legalNameLang,
    r.raId,
    r.raOtherId,
    r.raEntityId,
    r.jurisdiction,
    r.category,
    r.subCategory,
    r.elfCode,
    r.otherLegalForm,
    r.entityStatus,
    r.creationDate,
    r.successorLei,
    r.successorName,
    r.initialRegistrationDate,
    r.lastUpdateDate,
    r.registrationStatus,
    r.nextRenewalDate,
    r.managingLou,
    r.validationSources,
    r.validationAuthorityId,
    r.validationAuthorityEntityId,
    r.otherValidationAuthorityIds[0] ?? "",
    r.conformityFlag,
  ];
}

export class GoldenRowWriter {
  private readonly layout: RowLayout;
  private readonly values: string[];
  // Slot numbers resolved once, so filling a row is plain array stores.
  private readonly scalarSlots: number[];
  private readonly otherNameSlots: number[][];
  private readonly translitNameSlots: number[][];
  private readonly legalSlots: number[];
  private readonly hqSlots: number[];
  private readonly otherAddressSlots: number[][];
  private readonly translitAddressSlots: number[][];
  private readonly eventSlots: number[][];

  constructor(header: readonly string[]) {
    this.layout = new RowLayout(header, usedColumns());
    this.values = new Array<string>(this.layout.slots).fill("");
    const slot = (name: string): number => this.layout.slot(name);
    const addr = (prefix: string, withType: boolean): number[] =>
      ADDRESS_FIELDS.map((f) => (f === "type" && !withType ? -1 : slot(`${prefix}.${f}`)));
    const range = (n: number): number[] => Array.from({ length: n }, (_, k) => k + 1);
    this.scalarSlots = SCALARS.map(slot);
    this.otherNameSlots = range(SLOTS).map((k) => [
      slot(`${OTHER_NAME}.${k}`),
      slot(`${OTHER_NAME}.${k}.xmllang`),
      slot(`${OTHER_NAME}.${k}.type`),
    ]);
    this.translitNameSlots = range(SLOTS).map((k) => [
      slot(`${TRANSLIT_NAME}.${k}`),
      slot(`${TRANSLIT_NAME}.${k}.xmllang`),
      slot(`${TRANSLIT_NAME}.${k}.type`),
    ]);
    this.legalSlots = addr("Entity.LegalAddress", false);
    this.hqSlots = addr("Entity.HeadquartersAddress", false);
    this.otherAddressSlots = range(2).map((k) => addr(`${OTHER_ADDRESS}.${k}`, true));
    this.translitAddressSlots = range(2).map((k) => addr(`${TRANSLIT_ADDRESS}.${k}`, true));
    this.eventSlots = range(MAX_EVENTS).map((k) => EVENT_FIELDS.map((f) => slot(`${EVENT}.${k}.${f}`)));
  }

  /** Row text, for tests and small outputs. */
  render(r: EntityRecord): string {
    return this.layout.render(this.fill(r));
  }

  /** Writes the row into buf at pos, or returns -1 when buf has too little room left. */
  renderInto(r: EntityRecord, buf: Buffer, pos: number): number {
    const v = this.fill(r);
    if (pos + this.layout.maxBytes(v) > buf.length) return -1;
    return this.layout.renderInto(buf, pos, v);
  }

  private fill(r: EntityRecord): string[] {
    const v = this.values;
    v.fill("");
    const scalars = scalarValues(r);
    for (let k = 0; k < scalars.length; k++) v[this.scalarSlots[k]!] = scalars[k]!;
    const names = (list: EntityRecord["otherNames"], slots: number[][]): void => {
      for (let k = 0; k < list.length && k < SLOTS; k++) {
        const n = list[k]!;
        const s = slots[k]!;
        v[s[0]!] = n.name;
        v[s[1]!] = n.lang;
        v[s[2]!] = n.type;
      }
    };
    names(r.otherNames, this.otherNameSlots);
    names(r.transliteratedNames, this.translitNameSlots);
    const address = (a: Address, s: number[]): void => {
      const vals = [a.lang, a.type, a.firstLine, a.additional1, a.additional2, a.city, a.region, a.country, a.postalCode];
      for (let k = 0; k < vals.length; k++) if (s[k]! >= 0) v[s[k]!] = vals[k]!;
    };
    address(r.legalAddress, this.legalSlots);
    address(r.hqAddress, this.hqSlots);
    r.otherAddresses.slice(0, 2).forEach((a, k) => address(a, this.otherAddressSlots[k]!));
    r.transliteratedAddresses.slice(0, 2).forEach((a, k) => address(a, this.translitAddressSlots[k]!));
    r.events.slice(0, MAX_EVENTS).forEach((e, k) => {
      const vals = ["STANDALONE", e.status, e.type, e.effective, e.recorded, e.documents, e.reference];
      const s = this.eventSlots[k]!;
      for (let f = 0; f < vals.length; f++) v[s[f]!] = vals[f]!;
    });
    return v;
  }
}
