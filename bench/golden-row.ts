// Maps an EntityRecord onto the golden-copy columns, by column name (the research
// notes warn that the column order is a reconstruction: never rely on positions).

import { RowLayout } from './csv.js';
import type { Address, EntityRecord } from './records.js';

const OTHER_NAME = 'Entity.OtherEntityNames.OtherEntityName';
const TRANSLIT_NAME = 'Entity.TransliteratedOtherEntityNames.TransliteratedOtherEntityName';
const OTHER_ADDRESS = 'Entity.OtherAddresses.OtherAddress';
const TRANSLIT_ADDRESS = 'Entity.TransliteratedOtherAddresses.TransliteratedOtherAddress';
const EVENT = 'Entity.LegalEntityEvents.LegalEntityEvent';
const SLOTS = 5; // the CSV has exactly five slots per repeating group
const MAX_EVENTS = 3;

function addressColumns(prefix: string, withType: boolean): string[] {
  const cols = [`${prefix}.xmllang`];
  if (withType) cols.push(`${prefix}.type`);
  cols.push(`${prefix}.FirstAddressLine`, `${prefix}.AdditionalAddressLine.1`, `${prefix}.AdditionalAddressLine.2`, `${prefix}.City`, `${prefix}.Region`, `${prefix}.Country`, `${prefix}.PostalCode`);
  return cols;
}

function usedColumns(): string[] {
  const cols = ['LEI', 'Entity.LegalName', 'Entity.LegalName.xmllang'];
  for (let k = 1; k <= SLOTS; k++) cols.push(`${OTHER_NAME}.${k}`, `${OTHER_NAME}.${k}.xmllang`, `${OTHER_NAME}.${k}.type`);
  for (let k = 1; k <= SLOTS; k++) cols.push(`${TRANSLIT_NAME}.${k}`, `${TRANSLIT_NAME}.${k}.xmllang`, `${TRANSLIT_NAME}.${k}.type`);
  cols.push(...addressColumns('Entity.LegalAddress', false), ...addressColumns('Entity.HeadquartersAddress', false));
  for (let k = 1; k <= 2; k++) cols.push(...addressColumns(`${OTHER_ADDRESS}.${k}`, true), ...addressColumns(`${TRANSLIT_ADDRESS}.${k}`, true));
  cols.push(
    'Entity.RegistrationAuthority.RegistrationAuthorityID',
    'Entity.RegistrationAuthority.OtherRegistrationAuthorityID',
    'Entity.RegistrationAuthority.RegistrationAuthorityEntityID',
    'Entity.LegalJurisdiction',
    'Entity.EntityCategory',
    'Entity.EntitySubCategory',
    'Entity.LegalForm.EntityLegalFormCode',
    'Entity.LegalForm.OtherLegalForm',
    'Entity.EntityStatus',
    'Entity.EntityCreationDate',
    'Entity.SuccessorEntity.1.SuccessorLEI',
    'Entity.SuccessorEntity.1.SuccessorEntityName',
  );
  for (let k = 1; k <= MAX_EVENTS; k++) {
    for (const f of ['group_type', 'event_status', 'LegalEntityEventType', 'LegalEntityEventEffectiveDate', 'LegalEntityEventRecordedDate', 'ValidationDocuments', 'ValidationReference']) cols.push(`${EVENT}.${k}.${f}`);
  }
  cols.push(
    'Registration.InitialRegistrationDate',
    'Registration.LastUpdateDate',
    'Registration.RegistrationStatus',
    'Registration.NextRenewalDate',
    'Registration.ManagingLOU',
    'Registration.ValidationSources',
    'Registration.ValidationAuthority.ValidationAuthorityID',
    'Registration.ValidationAuthority.ValidationAuthorityEntityID',
    'Registration.OtherValidationAuthorities.OtherValidationAuthority.1.ValidationAuthorityID',
    'ConformityFlag',
  );
  return cols;
}

export class GoldenRowWriter {
  private readonly layout: RowLayout;
  private readonly values: string[];

  constructor(header: readonly string[]) {
    this.layout = new RowLayout(header, usedColumns());
    this.values = new Array<string>(this.layout.slots).fill('');
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

  // Column name → slot, resolved once per distinct name (names are built per row,
  // but the Map lookup on a short interned string is cheap next to rendering).
  private readonly slotCache = new Map<string, number>();

  private fill(r: EntityRecord): string[] {
    const v = this.values;
    v.fill('');
    const set = (name: string, value: string): void => {
      let s = this.slotCache.get(name);
      if (s === undefined) {
        s = this.layout.slot(name);
        this.slotCache.set(name, s);
      }
      v[s] = value;
    };
    set('LEI', r.lei);
    set('Entity.LegalName', r.legalName);
    set('Entity.LegalName.xmllang', r.legalNameLang);
    r.otherNames.slice(0, SLOTS).forEach((n, k) => {
      set(`${OTHER_NAME}.${k + 1}`, n.name);
      set(`${OTHER_NAME}.${k + 1}.xmllang`, n.lang);
      set(`${OTHER_NAME}.${k + 1}.type`, n.type);
    });
    r.transliteratedNames.slice(0, SLOTS).forEach((n, k) => {
      set(`${TRANSLIT_NAME}.${k + 1}`, n.name);
      set(`${TRANSLIT_NAME}.${k + 1}.xmllang`, n.lang);
      set(`${TRANSLIT_NAME}.${k + 1}.type`, n.type);
    });
    const address = (prefix: string, a: Address, withType: boolean): void => {
      set(`${prefix}.xmllang`, a.lang);
      if (withType) set(`${prefix}.type`, a.type);
      set(`${prefix}.FirstAddressLine`, a.firstLine);
      set(`${prefix}.AdditionalAddressLine.1`, a.additional1);
      set(`${prefix}.AdditionalAddressLine.2`, a.additional2);
      set(`${prefix}.City`, a.city);
      set(`${prefix}.Region`, a.region);
      set(`${prefix}.Country`, a.country);
      set(`${prefix}.PostalCode`, a.postalCode);
    };
    address('Entity.LegalAddress', r.legalAddress, false);
    address('Entity.HeadquartersAddress', r.hqAddress, false);
    r.otherAddresses.slice(0, 2).forEach((a, k) => address(`${OTHER_ADDRESS}.${k + 1}`, a, true));
    r.transliteratedAddresses.slice(0, 2).forEach((a, k) => address(`${TRANSLIT_ADDRESS}.${k + 1}`, a, true));
    set('Entity.RegistrationAuthority.RegistrationAuthorityID', r.raId);
    set('Entity.RegistrationAuthority.OtherRegistrationAuthorityID', r.raOtherId);
    set('Entity.RegistrationAuthority.RegistrationAuthorityEntityID', r.raEntityId);
    set('Entity.LegalJurisdiction', r.jurisdiction);
    set('Entity.EntityCategory', r.category);
    set('Entity.EntitySubCategory', r.subCategory);
    set('Entity.LegalForm.EntityLegalFormCode', r.elfCode);
    set('Entity.LegalForm.OtherLegalForm', r.otherLegalForm);
    set('Entity.EntityStatus', r.entityStatus);
    set('Entity.EntityCreationDate', r.creationDate);
    set('Entity.SuccessorEntity.1.SuccessorLEI', r.successorLei);
    set('Entity.SuccessorEntity.1.SuccessorEntityName', r.successorName);
    r.events.slice(0, MAX_EVENTS).forEach((e, k) => {
      const p = `${EVENT}.${k + 1}`;
      set(`${p}.group_type`, 'STANDALONE');
      set(`${p}.event_status`, e.status);
      set(`${p}.LegalEntityEventType`, e.type);
      set(`${p}.LegalEntityEventEffectiveDate`, e.effective);
      set(`${p}.LegalEntityEventRecordedDate`, e.recorded);
      set(`${p}.ValidationDocuments`, e.documents);
      set(`${p}.ValidationReference`, e.reference);
    });
    set('Registration.InitialRegistrationDate', r.initialRegistrationDate);
    set('Registration.LastUpdateDate', r.lastUpdateDate);
    set('Registration.RegistrationStatus', r.registrationStatus);
    set('Registration.NextRenewalDate', r.nextRenewalDate);
    set('Registration.ManagingLOU', r.managingLou);
    set('Registration.ValidationSources', r.validationSources);
    set('Registration.ValidationAuthority.ValidationAuthorityID', r.validationAuthorityId);
    set('Registration.ValidationAuthority.ValidationAuthorityEntityID', r.validationAuthorityEntityId);
    set('Registration.OtherValidationAuthorities.OtherValidationAuthority.1.ValidationAuthorityID', r.otherValidationAuthorityIds[0] ?? '');
    set('ConformityFlag', r.conformityFlag);
    return v;
  }
}
