// The change feed's rows: one per LEI, field and publication, in the shape of GLEIF's
// field-modifications (lei, recordType, field, valueOld, valueNew, date). Each applied load, delta
// or full, compares the live records with the new ones and appends what differs; watchlists turn
// the rows into webhook events. Values are strings as the API shows them (lists joined by "; ",
// counts in decimal), null where the record has none.

/** Which part of the registry a field comes from: the `type` filter of GET /v1/changes. */
export const RECORD_TYPES = ["lei", "relationship", "exception", "isin"] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/** The fields the feed follows, each with its record type; names are the LegalEntity answer's where it has one. */
export const CHANGE_FIELD_TABLE = [
  { field: "legalName", recordType: "lei", description: "Entity.LegalName" },
  { field: "otherNames", recordType: "lei", description: 'Entity.OtherEntityNames and TransliteratedOtherEntityNames, joined by "; "' },
  {
    field: "legalAddress",
    recordType: "lei",
    description: 'Entity.LegalAddress: first line, city, region, postal code and country, joined by ", "',
  },
  { field: "hqAddress", recordType: "lei", description: "Entity.HeadquartersAddress, as legalAddress" },
  { field: "entityStatus", recordType: "lei", description: "Entity.EntityStatus" },
  { field: "registrationStatus", recordType: "lei", description: "Registration.RegistrationStatus" },
  { field: "nextRenewalDate", recordType: "lei", description: "Registration.NextRenewalDate" },
  { field: "managingLou", recordType: "lei", description: "Registration.ManagingLOU" },
  { field: "legalForm", recordType: "lei", description: "Entity.LegalForm.EntityLegalFormCode" },
  { field: "successorLeis", recordType: "lei", description: 'Entity.SuccessorEntity LEIs, joined by "; "' },
  { field: "directParent", recordType: "relationship", description: "the direct accounting consolidation parent's LEI" },
  { field: "ultimateParent", recordType: "relationship", description: "the ultimate accounting consolidation parent's LEI" },
  { field: "directParentException", recordType: "exception", description: "the reporting exception's reason for the direct parent" },
  { field: "ultimateParentException", recordType: "exception", description: "the reporting exception's reason for the ultimate parent" },
  { field: "isinCount", recordType: "isin", description: "how many ISINs the mapping file gives the LEI" },
] as const satisfies readonly { field: string; recordType: RecordType; description: string }[];

export type ChangeField = (typeof CHANGE_FIELD_TABLE)[number]["field"];
export const CHANGE_FIELDS: readonly ChangeField[] = CHANGE_FIELD_TABLE.map((f) => f.field);

/** One field of one LEI that a load changed. */
export interface FieldChange {
  lei: string;
  recordType: RecordType;
  field: ChangeField;
  valueOld: string | null;
  valueNew: string | null;
  /** the publication that brought it, ISO 8601 UTC ("2026-09-30T08:00:00Z"); the load time when the source has none */
  publication: string;
  /** when this server found it, ISO 8601 UTC */
  detectedAt: string;
}

/** A change as stored: `id` orders the feed and is its cursor (decimal, increasing). */
export interface StoredChange extends FieldChange {
  id: string;
}

/** What GET /v1/changes and GET /v1/entities/{lei}/changes filter by. */
export interface ChangeQuery {
  /** rows after this cursor (exclusive); "0" from the start */
  since: string;
  /** rows before this cursor (exclusive); none: up to the newest */
  before?: string;
  /** newest first (paged down with `before`); oldest first when false or absent */
  newestFirst?: boolean;
  lei?: string;
  field?: ChangeField;
  recordType?: RecordType;
  limit: number;
}

/**
 * The durable feed (state.db, or PostgreSQL with --database). `append` is idempotent per
 * (publication, lei, field): a load run again after a crash adds nothing twice.
 */
export interface ChangeStore {
  append(changes: readonly FieldChange[]): Promise<number>;
  /** rows in id order (descending with `newestFirst`), between `since` and `before` */
  list(query: ChangeQuery): Promise<StoredChange[]>;
  /** drops rows detected before `before` (retention) */
  prune(before: Date): Promise<number>;
}
