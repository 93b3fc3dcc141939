// Golden-copy columns -> LegalEntity. Columns are found by name in the header, so any order and
// any extra columns work. Values are reproduced as published; the only rewrites are the literal
// `NULL` of Entity.EntityStatus, which is how the file says "no status", and a headquarters
// address that repeats the legal one, which is left out. The legal form's name and abbreviations
// are added from GLEIF's ELF code list (legal-forms/elf-list.ts).

import { sliceOfBytes } from "../engine/partition.js";
import type { RecordBatchWriter } from "../engine/record-batch.js";
import { ENTITY_FIELD_TABLE, ENTITY_FIELDS, type LegalEntity } from "../engine/schema.js";
import type { CsvRow } from "./csv.js";
import { ParentIndex } from "../level2/parent-index.js";
import { ElfList, OTHER_LEGAL_FORM, type LegalFormName } from "../legal-forms/elf-list.js";

export const REQUIRED_COLUMNS = ["LEI", "Entity.LegalName"] as const;

export const OTHER_NAME_COLUMNS = [1, 2, 3, 4, 5].flatMap((i) => [
  `Entity.OtherEntityNames.OtherEntityName.${i}`,
  `Entity.TransliteratedOtherEntityNames.TransliteratedOtherEntityName.${i}`,
]);

/** Entity.SuccessorEntity.1…5.SuccessorLEI: the successorLeis field, joined by "; " */
export const SUCCESSOR_COLUMNS = [1, 2, 3, 4, 5].map((i) => `Entity.SuccessorEntity.${i}.SuccessorLEI`);
const LIST_SEPARATOR = Buffer.from("; ");

export class MissingColumnsError extends Error {}

/** A golden-copy row as a record: which slice owns it, and its values into a batch for that slice. */
export interface RowEncoder {
  /**
   * The slice that owns the row's LEI; -1 when the row cannot be a record at all, because its LEI
   * is not 20 upper-case letters or digits (the engine orders and finds docs by LEI bytes). The
   * loader skips and counts such rows.
   */
  sliceOf(row: CsvRow, slices: number): number;
  /** Appends the row's record to `batch`: values as published, as bytes, never decoded here. */
  write(row: CsvRow, batch: RecordBatchWriter): void;
  /** The LEI of a row sliceOf accepted. */
  leiOf(row: CsvRow): string;
}

/**
 * Builds the row -> record encoding from the header row; the parent fields come from `parents`
 * (Level 2), the legal form's name from `legalForms`.
 */
export function rowEncoder(header: string[], parents: ParentIndex = ParentIndex.EMPTY, legalForms: ElfList | null = null): RowEncoder {
  const index = new Map<string, number>();
  header.forEach((name, i) => index.set(name.trim(), i));
  const missing = REQUIRED_COLUMNS.filter((c) => !index.has(c));
  if (missing.length > 0) throw new MissingColumnsError(`golden copy lacks required column(s): ${missing.join(", ")}`);

  const at = (name: string): number => index.get(name) ?? -1;
  const columns = ENTITY_FIELD_TABLE.map((field) => at(field.column));
  const otherNames = OTHER_NAME_COLUMNS.map(at).filter((i) => i >= 0);
  const LEI = columns[ENTITY_FIELDS.indexOf("lei")];
  const STATUS = ENTITY_FIELDS.indexOf("entityStatus");
  const LEGAL_ADDRESS = ENTITY_FIELDS.indexOf("legalAddress");
  const HQ_ADDRESS = ENTITY_FIELDS.indexOf("hqAddress");
  const DIRECT_PARENT = ENTITY_FIELDS.indexOf("directParent");
  const ULTIMATE_PARENT = ENTITY_FIELDS.indexOf("ultimateParent");
  const FORM_NAME = ENTITY_FIELDS.indexOf("legalFormName");
  const FORM_ABBREVIATIONS = ENTITY_FIELDS.indexOf("legalFormAbbreviations");
  const SUCCESSORS = ENTITY_FIELDS.indexOf("successorLeis");
  const successors = SUCCESSOR_COLUMNS.map(at).filter((i) => i >= 0);
  const formName = legalFormNamer(legalForms, {
    code: columns[ENTITY_FIELDS.indexOf("legalForm")],
    jurisdiction: columns[ENTITY_FIELDS.indexOf("jurisdiction")],
    country: columns[ENTITY_FIELDS.indexOf("country")],
    language: at(LEGAL_NAME_LANGUAGE),
    other: at(OTHER_LEGAL_FORM_COLUMN),
  });
  const append = (row: CsvRow, i: number, batch: RecordBatchWriter): void => {
    if (present(row, i)) batch.value(row.buf, row.starts[i], row.ends[i], row.escaped[i] === 1);
    else batch.empty();
  };

  return {
    sliceOf(row, slices) {
      if (!present(row, LEI) || row.escaped[LEI] === 1) return -1;
      const start = row.starts[LEI],
        end = row.ends[LEI];
      if (end - start !== LEI_LENGTH) return -1;
      for (let i = start; i < end; i++) if (!isLeiByte(row.buf[i])) return -1;
      return sliceOfBytes(row.buf, start, end, slices);
    },
    leiOf(row) {
      return row.buf.toString("latin1", row.starts[LEI], row.ends[LEI]);
    },
    write(row, batch) {
      batch.beginRecord();
      const slot = parents.find(row.buf, row.starts[LEI]);
      let form: NamedForm | null = null;
      for (let f = 0; f < columns.length; f++) {
        if (f === FORM_NAME) {
          form = formName(row);
          if (form === "other") append(row, at(OTHER_LEGAL_FORM_COLUMN), batch);
          else if (form) batch.value(form.name, 0, form.name.length);
          else batch.empty();
        } else if (f === FORM_ABBREVIATIONS) {
          if (form !== null && form !== "other" && form.abbreviations) batch.value(form.abbreviations, 0, form.abbreviations.length);
          else batch.empty();
        } else if (f === SUCCESSORS) joined(row, successors, batch);
        else if (f === DIRECT_PARENT) parent(parents.direct, slot, batch);
        else if (f === ULTIMATE_PARENT) parent(parents.ultimate, slot, batch);
        else if (f === STATUS && isNullLiteral(row, columns[f])) batch.empty();
        else append(row, columns[f], batch);
        // compared as written, that is unescaped
        if (f === HQ_ADDRESS && batch.sameValues(HQ_ADDRESS, LEGAL_ADDRESS)) batch.emptyLast();
      }
      for (const i of otherNames) if (present(row, i)) append(row, i, batch);
    },
  };
}

const LEGAL_NAME_LANGUAGE = "Entity.LegalName.xmllang";
const OTHER_LEGAL_FORM_COLUMN = "Entity.LegalForm.OtherLegalForm";

/**
 * Appends the record a stored document was built from, with the parents taken anew from
 * `parents`: the values `RowEncoder.write` gave its row. The document holds each of them as the
 * row's bytes decoded (UTF-8), the legal form's name as the same list named it, and no
 * headquarters address that repeats the legal one; `otherNames` are the row's other names, in
 * OTHER_NAME_COLUMNS order (the change feed's side line keeps them).
 */
export function writeDocument(doc: LegalEntity, otherNames: readonly string[], parents: ParentIndex, batch: RecordBatchWriter): void {
  const lei = Buffer.from(doc.lei, "latin1");
  const slot = parents.find(lei, 0);
  batch.beginRecord();
  for (const field of ENTITY_FIELDS) {
    if (field === "directParent") parent(parents.direct, slot, batch);
    else if (field === "ultimateParent") parent(parents.ultimate, slot, batch);
    else text(doc[field], batch);
  }
  for (const name of otherNames) text(name, batch);
}

function text(value: string | null, batch: RecordBatchWriter): void {
  if (value === null || value === "") return batch.empty();
  const bytes = Buffer.from(value, "utf8");
  batch.value(bytes, 0, bytes.length);
}

/** An entity's parent LEI, slot `slot` of `of`, as a value; slot -1 or zero bytes: none. */
function parent(of: Uint8Array, slot: number, batch: RecordBatchWriter): void {
  if (slot >= 0 && of[slot * LEI_LENGTH] !== 0) batch.value(of, slot * LEI_LENGTH, (slot + 1) * LEI_LENGTH);
  else batch.empty();
}

/** A legal form's name and abbreviations as bytes, or "other": the row's OtherLegalForm is its name. */
type NamedForm = { name: Buffer; abbreviations: Buffer | null } | "other";

/**
 * The row's legal form as named by the list. Most codes have one named row, whatever the
 * record's place and language: those are looked up by the code alone; the others by code,
 * jurisdiction, country and language. Each answer is kept, so a row costs a map lookup or two.
 */
function legalFormNamer(
  list: ElfList | null,
  at: { code: number; jurisdiction: number; country: number; language: number; other: number },
): (row: CsvRow) => NamedForm | null {
  if (list === null) return () => null;
  const bytes = (n: LegalFormName | null): NamedForm | null =>
    n === null ? null : { name: Buffer.from(n.name), abbreviations: n.abbreviations === null ? null : Buffer.from(n.abbreviations) };
  const byCode = new Map<string, NamedForm | null | undefined>();
  const byPlace = new Map<string, NamedForm | null>();
  const text = (row: CsvRow, i: number): string | null => (present(row, i) ? row.field(i) : null);
  return (row) => {
    const code = text(row, at.code);
    if (code === null) return null;
    if (code === OTHER_LEGAL_FORM) return present(row, at.other) ? "other" : null;
    let known = byCode.get(code);
    if (known === undefined && !byCode.has(code)) {
      known = list.namesOneWay(code)
        ? bytes(list.nameOf({ code, jurisdiction: null, country: null, language: null, otherLegalForm: null }))
        : undefined;
      byCode.set(code, known);
    }
    if (known !== undefined) return known;
    const form = {
      code,
      jurisdiction: text(row, at.jurisdiction),
      country: text(row, at.country),
      language: text(row, at.language),
      otherLegalForm: null,
    };
    const key = `${code}|${form.jurisdiction}|${form.country}|${form.language}`;
    let named = byPlace.get(key);
    if (named === undefined) {
      named = bytes(list.nameOf(form));
      byPlace.set(key, named);
    }
    return named;
  };
}

/** The row's values in columns `at` joined by "; " as one value; absent when none has one. */
function joined(row: CsvRow, at: number[], batch: RecordBatchWriter): void {
  let first = -1;
  let parts: Buffer[] | null = null;
  for (const i of at) {
    if (!present(row, i)) continue;
    if (first < 0) first = i;
    else {
      parts ??= [Buffer.from(row.field(first))];
      parts.push(LIST_SEPARATOR, Buffer.from(row.field(i)));
    }
  }
  if (parts !== null) {
    const all = Buffer.concat(parts);
    batch.value(all, 0, all.length);
  } else if (first >= 0) batch.value(row.buf, row.starts[first], row.ends[first], row.escaped[first] === 1);
  else batch.empty();
}

/** Whether row field i exists and is not empty. */
function present(row: CsvRow, i: number): boolean {
  return i >= 0 && i < row.length && row.ends[i] > row.starts[i];
}

const LEI_LENGTH = 20;
const isLeiByte = (b: number): boolean => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a);

const NULL_LITERAL = Buffer.from("NULL", "latin1");
/** Entity.EntityStatus's literal `NULL`, which is how the file says "no status". */
function isNullLiteral(row: CsvRow, i: number): boolean {
  if (!present(row, i) || row.escaped[i] === 1) return false;
  return row.buf.compare(NULL_LITERAL, 0, NULL_LITERAL.length, row.starts[i], row.ends[i]) === 0;
}
