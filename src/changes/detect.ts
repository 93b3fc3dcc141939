// What a load changed, found before it goes live: the live generation's files beside the new
// one's, read side by side in LEI order, a chunk at a time. Level 1 fields (and the parents) are
// nominated by their hashes in the tracked records (tracked-records.ts) and confirmed on the
// values as the API shows them: the stored documents, and the side lines for the other names and
// a headquarters address. Reporting exceptions and ISIN counts come from the Level 2 tables.
// Memory stays bounded: a chunk of rows from each file and the changes of one batch, handed to
// `sink` (the durable store) batch by batch. Neither a new LEI nor one the new load lacks is a
// field change (docs/changes.md): only LEIs both generations hold are compared.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { JsonLinesReader } from "../os/json-lines.js";
import { sameFile } from "../os/same-file.js";
import { Turns } from "../os/event-loop-turns.js";
import { LEI_BYTES, LEI_TO_ISIN, readPlace, REPEX, REPEX_RECORDS } from "../level2/layout.js";
import { SortedTable } from "../level2/sorted-table.js";
import { CHANGE_FIELD_TABLE, type ChangeField, type FieldChange, type RecordType } from "./model.js";
import {
  HASHES_AT,
  joinAddress,
  otherNamesShown,
  SIDE_AT,
  TRACKED_FIELDS,
  TRACKED_FILE,
  TRACKED_ROW,
  TRACKED_SIDE_FILE,
  sideOf,
  type TrackedSide,
} from "./tracked-records.js";

/** One generation as the comparison reads it. */
export interface ComparedGeneration {
  /** its Level 2 directory: the tracked records and the Level 2 tables */
  dir: string;
  /** its stored document of `lei`; null when it does not hold the LEI */
  document(lei: string): Buffer | null;
}

/** What a delta can have changed, where known: the rest of the records is not compared. */
export interface ComparedOnly {
  /**
   * the only LEIs whose Level 1 records (parents included) can differ: each overlay's, the new
   * one's and the live one's (a delta laid over the live records); absent: any
   */
  leis?: readonly (readonly string[])[];
  /** the only LEIs whose reporting exceptions can differ: the repex deltas' (level2/build.ts); absent: any */
  exceptionLeis?: readonly string[];
}

export interface Detection {
  /** changes found (appended to the sink) */
  changes: number;
  seconds: number;
}

/** rows a table walk reads at a time */
export const CHUNK_ROWS = 8192;
/** keys a table walk compares between two reads of the clock (event-loop-turns.ts) */
const KEYS_A_CLOCK_READ = 64;
/** changes a store transaction takes (a synchronous one, on state.db, holds the thread meanwhile) */
const BATCH = 1000;

const RECORD_TYPE_OF = new Map<ChangeField, RecordType>(CHANGE_FIELD_TABLE.map((f) => [f.field, f.recordType]));

/** Whether `dir` holds the tracked records a comparison needs (a collection built before the feed has none). */
export function canCompare(dir: string): boolean {
  return existsSync(join(dir, TRACKED_FILE)) && existsSync(join(dir, TRACKED_SIDE_FILE));
}

/**
 * Compares `old` (live) with `next` and hands the changes to `sink`, in batches; every batch
 * is awaited, so when this returns every change is stored.
 */
export async function detectChanges(
  old: ComparedGeneration,
  next: ComparedGeneration,
  at: { publication: string; detectedAt: string },
  sink: (changes: FieldChange[]) => Promise<void>,
  only: ComparedOnly = {},
): Promise<Detection> {
  const started = Date.now();
  const out = new ChangeBatches(at, sink);
  await compareLevel1(old, next, out, only.leis);
  await compareExceptions(old, next, out, only.exceptionLeis);
  await compareIsinCounts(old, next, out);
  await out.flush();
  return { changes: out.total, seconds: (Date.now() - started) / 1000 };
}

class ChangeBatches {
  private batch: FieldChange[] = [];
  total = 0;

  constructor(
    private readonly at: { publication: string; detectedAt: string },
    private readonly sink: (changes: FieldChange[]) => Promise<void>,
  ) {}

  async add(lei: string, field: ChangeField, valueOld: string | null, valueNew: string | null): Promise<void> {
    if (valueOld === valueNew) return;
    this.batch.push({
      lei,
      recordType: RECORD_TYPE_OF.get(field)!,
      field,
      valueOld,
      valueNew,
      publication: this.at.publication,
      detectedAt: this.at.detectedAt,
    });
    this.total++;
    if (this.batch.length >= BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    await this.sink(batch);
  }
}

/**
 * One key's rows in a table: bytes [start, end) of `bytes`, whole rows, the key their first
 * bytes. A walk hands the same object again for the next key, so a visit reads it before it
 * returns (a view of `bytes` stays valid: each chunk read is a buffer of its own).
 */
interface Rows {
  bytes: Buffer;
  start: number;
  end: number;
}

/** The rows of a key looked up on its own (findEach): a Buffer of their own. */
const ownRows = (bytes: Buffer | null): Rows | null => (bytes === null ? null : { bytes, start: 0, end: bytes.length });

/** A key's LEI: the first LEI_BYTES bytes of its rows. */
const leiOf = (rows: Rows): string => rows.bytes.toString("latin1", rows.start, rows.start + LEI_BYTES);

/**
 * A sorted table read a chunk at a time, key run by key run, with no allocation a key: a run is
 * its place in the chunk it lies in, copied only when it straddles two chunks. Millions of keys
 * a full load: a Buffer each cost more than comparing them.
 */
class RunReader {
  private chunk: Buffer = Buffer.alloc(0);
  private first = 0;
  private at = 0;
  private readonly run: Rows = { bytes: this.chunk, start: 0, end: 0 };

  constructor(
    private readonly table: SortedTable,
    private readonly keyWidth: number,
  ) {}

  /** The rows of the next key (the same object each time); null at the end. */
  next(): Rows | null {
    const width = this.table.rowWidth,
      key = this.keyWidth;
    let carried: Buffer | null = null;
    for (;;) {
      if (this.at >= this.chunk.length) {
        if (this.first >= this.table.rows) return carried === null ? null : this.runOf(carried, 0, carried.length);
        this.chunk = this.table.read(this.first, CHUNK_ROWS);
        this.first += CHUNK_ROWS;
        this.at = 0;
      }
      const start = this.at,
        chunk = this.chunk;
      if (carried !== null && compareBytes(chunk, start, carried, 0, key) !== 0) return this.runOf(carried, 0, carried.length);
      let end = start + width;
      while (end < chunk.length && compareBytes(chunk, start, chunk, end, key) === 0) end += width;
      this.at = end;
      if (end < chunk.length) {
        if (carried === null) return this.runOf(chunk, start, end);
        carried = Buffer.concat([carried, chunk.subarray(start, end)]);
        return this.runOf(carried, 0, carried.length);
      }
      // the run reaches the chunk's end: it may go on in the next one
      carried = carried === null ? Buffer.from(chunk.subarray(start, end)) : Buffer.concat([carried, chunk.subarray(start, end)]);
    }
  }

  private runOf(bytes: Buffer, start: number, end: number): Rows {
    this.run.bytes = bytes;
    this.run.start = start;
    this.run.end = end;
    return this.run;
  }
}

function openTable(dir: string, file: string, rowWidth: number, keyWidth: number): SortedTable | null {
  const path = join(dir, file);
  return existsSync(path) ? SortedTable.open(path, rowWidth, keyWidth) : null;
}

/** A key's rows on each side (null on a side that lacks the key); a promise when it stores changes. */
type Visit = (oldRows: Rows | null, newRows: Rows | null) => Promise<void> | undefined;

/** Walks two sorted tables by key: `visit` for each key, with its rows on each side. */
async function mergeTables(a: SortedTable | null, b: SortedTable | null, keyWidth: number, visit: Visit): Promise<void> {
  const ra = a ? new RunReader(a, keyWidth) : null,
    rb = b ? new RunReader(b, keyWidth) : null;
  let x = ra ? ra.next() : null,
    y = rb ? rb.next() : null;
  // the comparison shares the main thread with requests
  const turns = new Turns();
  for (let keys = 0; x !== null || y !== null; keys++) {
    if (keys % KEYS_A_CLOCK_READ === 0) {
      const pause = turns.pause();
      if (pause !== undefined) await pause;
    }
    const cmp = x === null ? 1 : y === null ? -1 : compareBytes(x.bytes, x.start, y.bytes, y.start, keyWidth);
    if (cmp === 0) {
      const seen = visit(x, y);
      if (seen !== undefined) await seen;
      x = ra!.next();
      y = rb!.next();
    } else if (cmp < 0) {
      const seen = visit(x, null);
      if (seen !== undefined) await seen;
      x = ra!.next();
    } else {
      const seen = visit(null, y);
      if (seen !== undefined) await seen;
      y = rb!.next();
    }
  }
}

/**
 * a[aAt, aAt + length) against b[bAt, bAt + length), as Buffer.compare orders them: negative, 0
 * or positive. A loop: a key is a few bytes, and a call to Buffer.compare costs more than
 * comparing them, once per row.
 */
function compareBytes(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number, length: number): number {
  for (let i = 0; i < length; i++) if (a[aAt + i] !== b[bAt + i]) return a[aAt + i] - b[bAt + i];
  return 0;
}

/**
 * The keys of the lists (latin1 strings), each once, in byte order (code unit order is byte order
 * for latin1): merged when every list is in order already, as an overlay's LEIs are (a slice's
 * docs are in LEI order), so that tens of thousands of them take no sort.
 */
export function keysInOrder(lists: readonly (readonly string[])[]): readonly string[] {
  const inOrder = (l: readonly string[]): boolean => l.every((k, i) => i === 0 || l[i - 1] < k);
  if (!lists.every(inOrder)) return [...new Set(lists.flat())].sort();
  return lists.reduce<readonly string[]>((a, b) => mergeInOrder(a, b), []);
}

/** Two lists in order as one, a key both hold once. */
function mergeInOrder(a: readonly string[], b: readonly string[]): readonly string[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out: string[] = [];
  let i = 0,
    j = 0;
  while (i < a.length || j < b.length) {
    if (j === b.length || (i < a.length && a[i] < b[j])) out.push(a[i++]);
    else if (i === a.length || b[j] < a[i]) out.push(b[j++]);
    else {
      out.push(a[i++]);
      j++;
    }
  }
  return out;
}

/**
 * `visit` for each of `keys` (keysInOrder's), with its rows in each table (what mergeTables would
 * visit of them); each key becomes bytes in its own turn's share of the work.
 */
async function findEach(a: SortedTable | null, b: SortedTable | null, keys: readonly string[], visit: Visit): Promise<void> {
  const turns = new Turns();
  const ra = a?.ordered() ?? null,
    rb = b?.ordered() ?? null;
  for (const text of keys) {
    const pause = turns.pause();
    if (pause !== undefined) await pause;
    const key = Buffer.from(text, "latin1");
    const oldRows = ownRows(ra?.rowsOf(key) ?? null),
      newRows = ownRows(rb?.rowsOf(key) ?? null);
    if (oldRows === null && newRows === null) continue; // in neither: nothing changed
    const seen = visit(oldRows, newRows);
    if (seen !== undefined) await seen;
  }
}

type Doc = Record<string, string | null>;

function parsed(doc: Buffer | null): Doc | null {
  return doc === null ? null : (JSON.parse(doc.toString("utf8")) as Doc);
}

/** A Level 1 field's value as the feed shows it, from the stored document and the record's side line. */
function valueOf(field: (typeof TRACKED_FIELDS)[number], doc: Doc, side: TrackedSide): string | null {
  switch (field) {
    case "otherNames":
      return otherNamesShown(side);
    case "legalAddress":
      return joinAddress([doc.legalAddress, doc.city, doc.region, doc.postalCode, doc.country]);
    case "hqAddress":
      return side.hqAddress !== undefined
        ? side.hqAddress
        : joinAddress([doc.legalAddress, doc.city, doc.region, doc.postalCode, doc.country]);
    default:
      return doc[field] ?? null;
  }
}

const NEEDS_SIDE = new Set<string>(["otherNames", "hqAddress"]);

async function compareLevel1(
  old: ComparedGeneration,
  next: ComparedGeneration,
  out: ChangeBatches,
  only?: readonly (readonly string[])[],
): Promise<void> {
  const a = openTable(old.dir, TRACKED_FILE, TRACKED_ROW, LEI_BYTES),
    b = openTable(next.dir, TRACKED_FILE, TRACKED_ROW, LEI_BYTES);
  // read ahead: the walk goes in LEI order, and so do the side files (an overlay's lines after its base's)
  const oldSide = new JsonLinesReader(join(old.dir, TRACKED_SIDE_FILE), true),
    newSide = new JsonLinesReader(join(next.dir, TRACKED_SIDE_FILE), true);
  const visit: Visit = (oldRows, newRows) => {
    if (oldRows === null || newRows === null) return; // a new LEI, or one this load lacks: not a field change
    // a key's rows are the file's rows with that LEI, in file order: the engine keeps the last
    const oldLast = oldRows.end - TRACKED_ROW,
      newLast = newRows.end - TRACKED_ROW;
    if (compareBytes(oldRows.bytes, oldLast + HASHES_AT, newRows.bytes, newLast + HASHES_AT, SIDE_AT - HASHES_AT) === 0) return;
    return changedRecord(leiOf(oldRows), oldRows.bytes.subarray(oldLast, oldRows.end), newRows.bytes.subarray(newLast, newRows.end));
  };
  try {
    if (only === undefined) await mergeTables(a, b, LEI_BYTES, visit);
    else if (a !== null && b !== null) await findEach(a, b, keysInOrder(only), visit);
  } finally {
    a?.close();
    b?.close();
    oldSide.close();
    newSide.close();
  }

  async function changedRecord(lei: string, o: Buffer, n: Buffer): Promise<void> {
    const oldDoc = parsed(old.document(lei)),
      newDoc = parsed(next.document(lei));
    if (oldDoc === null || newDoc === null) return;
    let oldSideOf: TrackedSide | null = null,
      newSideOf: TrackedSide | null = null;
    for (let f = 0; f < TRACKED_FIELDS.length; f++) {
      const h = HASHES_AT + 4 * f;
      if (o.readUInt32LE(h) === n.readUInt32LE(h)) continue;
      const field = TRACKED_FIELDS[f];
      if (NEEDS_SIDE.has(field)) {
        oldSideOf ??= sideOf(oldSide, o);
        newSideOf ??= sideOf(newSide, n);
      }
      await out.add(lei, field, valueOf(field, oldDoc, oldSideOf ?? {}), valueOf(field, newDoc, newSideOf ?? {}));
    }
  }
}

/** The exception fields by REPEX category code (layout.ts: 1 direct, 2 ultimate). */
const EXCEPTION_FIELD: Record<number, ChangeField> = { 1: "directParentException", 2: "ultimateParentException" };

async function compareExceptions(
  old: ComparedGeneration,
  next: ComparedGeneration,
  out: ChangeBatches,
  only?: readonly string[],
): Promise<void> {
  const a = openTable(old.dir, REPEX.file, REPEX.rowWidth, REPEX.keyWidth),
    b = openTable(next.dir, REPEX.file, REPEX.rowWidth, REPEX.keyWidth);
  // every exception record of both, in table order: the files' order where the full files were in LEI order
  const oldLines = new JsonLinesReader(join(old.dir, REPEX_RECORDS), true),
    newLines = new JsonLinesReader(join(next.dir, REPEX_RECORDS), true);
  /** the reasons of a key's exception records, joined by "; "; null where there is none */
  const reasons = (lines: JsonLinesReader, rows: Rows | null): string | null => {
    if (rows === null) return null;
    const all: string[] = [];
    for (let at = rows.start; at < rows.end; at += REPEX.rowWidth) {
      const { offset, length } = readPlace(rows.bytes, at + LEI_BYTES + 1);
      const line = lines.read(offset, length);
      if (line !== null) all.push(...(JSON.parse(line.toString("utf8")) as { reasons: string[] }).reasons);
    }
    return all.length > 0 ? all.join("; ") : null;
  };
  /** whether the two sides' records are the same, record by record: then they need no parsing */
  const sameRecords = (oldRows: Rows, newRows: Rows): boolean => {
    if (oldRows.end - oldRows.start !== newRows.end - newRows.start) return false;
    for (let i = 0; oldRows.start + i < oldRows.end; i += REPEX.rowWidth) {
      const o = readPlace(oldRows.bytes, oldRows.start + i + LEI_BYTES + 1),
        n = readPlace(newRows.bytes, newRows.start + i + LEI_BYTES + 1);
      if (o.length !== n.length) return false;
      const a = oldLines.read(o.offset, o.length),
        b = newLines.read(n.offset, n.length);
      if (a === null || b === null ? a !== b : compareBytes(a, 0, b, 0, o.length) !== 0) return false;
    }
    return true;
  };
  const visit: Visit = (oldRows, newRows) => {
    const key = (oldRows ?? newRows)!;
    const field = EXCEPTION_FIELD[key.bytes[key.start + LEI_BYTES]];
    if (field === undefined) return;
    if (oldRows !== null && newRows !== null && sameRecords(oldRows, newRows)) return;
    const valueOld = reasons(oldLines, oldRows),
      valueNew = reasons(newLines, newRows);
    if (valueOld === valueNew) return;
    const lei = leiOf(key);
    if (old.document(lei) === null || next.document(lei) === null) return;
    return out.add(lei, field, valueOld, valueNew);
  };
  try {
    if (only === undefined) await mergeTables(a, b, REPEX.keyWidth, visit);
    else {
      // a key is the LEI and the category's code
      const codes = Object.keys(EXCEPTION_FIELD).map((code) => String.fromCharCode(Number(code)));
      const keys = only.flatMap((lei) => codes.map((code) => lei + code));
      await findEach(a, b, keysInOrder([keys]), visit);
    }
  } finally {
    a?.close();
    b?.close();
    oldLines.close();
    newLines.close();
  }
}

async function compareIsinCounts(old: ComparedGeneration, next: ComparedGeneration, out: ChangeBatches): Promise<void> {
  // a delta keeps the live tables of an ISIN file unchanged (level2/build.ts reuse): one file, nothing to compare
  if (sameFile(join(old.dir, LEI_TO_ISIN.file), join(next.dir, LEI_TO_ISIN.file))) return;
  const a = openTable(old.dir, LEI_TO_ISIN.file, LEI_TO_ISIN.rowWidth, LEI_TO_ISIN.keyWidth),
    b = openTable(next.dir, LEI_TO_ISIN.file, LEI_TO_ISIN.rowWidth, LEI_TO_ISIN.keyWidth);
  try {
    await mergeTables(a, b, LEI_BYTES, (oldRows, newRows) => {
      const before = oldRows === null ? 0 : (oldRows.end - oldRows.start) / LEI_TO_ISIN.rowWidth,
        after = newRows === null ? 0 : (newRows.end - newRows.start) / LEI_TO_ISIN.rowWidth;
      if (before === after) return;
      const lei = leiOf((oldRows ?? newRows)!);
      if (old.document(lei) === null || next.document(lei) === null) return;
      return out.add(lei, "isinCount", String(before), String(after));
    });
  } finally {
    a?.close();
    b?.close();
  }
}
