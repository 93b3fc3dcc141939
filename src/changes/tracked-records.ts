// The change feed's fingerprint of a load: per record, a hash of each Level 1 field the feed
// follows (parents included), written by the loader thread beside the Level 2 tables as a sorted
// table (level2/sorted-table.ts), so that the next load finds what changed by reading two files
// side by side instead of comparing 3.4M documents. Fields the stored document does not hold (the
// other names, a headquarters address unlike the legal one) are kept as text in a side file of
// JSON lines, written only for the records that have them.
//
// Rows: the LEI (20 bytes), a 32-bit FNV-1a per TRACKED_FIELDS entry (little endian), and the
// place of the record's side line (6 + 2 bytes; length 0: none). Hashes are of the CSV bytes,
// unescaped or not as the file has them: a differing hash only nominates a field, and the feed
// compares the values as the API shows them before it records a change.

import { closeSync, fsyncSync, openSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readFully, writeFully } from "../os/fd-io.js";
import { WritePacer } from "../os/write-pacing.js";
import { JsonLines, type JsonLinesReader } from "../os/json-lines.js";
import { writeFileAtomically } from "../store/durable-file.js";
import type { CsvRow } from "../golden-copy/csv.js";
import { FNV_OFFSET, FNV_PRIME } from "../engine/fnv.js";
import { base36, radixOrder } from "../level2/keys.js";
import { readPlace, writePlace } from "../level2/layout.js";
import type { ParentIndex } from "../level2/parent-index.js";
import { SortedTableWriter, STRIDE } from "../level2/sorted-table.js";
import type { ChangeField } from "./model.js";

export const TRACKED_FILE = "tracked.tbl";
export const TRACKED_SIDE_FILE = "tracked-side.jsonl";

/** The Level 1 fields a tracked row hashes, in row order (the relationship fields come from the Level 2 parents). */
export const TRACKED_FIELDS = [
  "legalName",
  "otherNames",
  "legalAddress",
  "hqAddress",
  "entityStatus",
  "registrationStatus",
  "nextRenewalDate",
  "managingLou",
  "legalForm",
  "successorLeis",
  "directParent",
  "ultimateParent",
] as const satisfies readonly ChangeField[];

const LEI_BYTES = 20;
export const HASHES_AT = LEI_BYTES;
export const SIDE_AT = LEI_BYTES + 4 * TRACKED_FIELDS.length;
export const TRACKED_ROW = SIDE_AT + 8;

/** An address's columns, in the order the feed joins them: first line, city, region, postal code, country. */
export const ADDRESS_PARTS = ["FirstAddressLine", "City", "Region", "PostalCode", "Country"] as const;

/** What the side line of a record holds: its other names; its headquarters address where it is not the legal one. */
export interface TrackedSide {
  /**
   * the other names, one per column, in OTHER_NAME_COLUMNS order (a delta re-encodes a record
   * from them: golden-copy/moved-records.ts); a string in side files of versions before
   * 2026-12, which joined them by "; "
   */
  otherNames?: string[] | string;
  /** the joined headquarters address; null: it has none though it has a legal address */
  hqAddress?: string | null;
}

/** The other names as the feed shows them: joined by "; "; null when the record has none. */
export function otherNamesShown(side: TrackedSide): string | null {
  const names = side.otherNames;
  return names === undefined ? null : typeof names === "string" ? names : names.join("; ");
}

/** The side line of the row at `at` of `rows`, from its side file; null when it has none. */
export function sideLineOf(lines: JsonLinesReader, rows: Buffer, at = 0): Buffer | null {
  const { offset, length } = readPlace(rows, at + SIDE_AT);
  return lines.read(offset, length);
}

/** The side of the row at `at` of `rows`. */
export function sideOf(lines: JsonLinesReader, rows: Buffer, at = 0): TrackedSide {
  const line = sideLineOf(lines, rows, at);
  return line === null ? {} : (JSON.parse(line.toString("utf8")) as TrackedSide);
}

/** Joins an address's parts as the feed shows it: the non-empty ones, by ", "; null when none is. */
export function joinAddress(parts: readonly (string | null | undefined)[]): string | null {
  const kept = parts.filter((p): p is string => typeof p === "string" && p !== "");
  return kept.length > 0 ? kept.join(", ") : null;
}

const SEPARATOR = 0x1f;
const CHUNK_ROWS = 8192;
/** unsorted rows up to this size are sorted from memory (a delta's), larger ones a read a row */
const IN_MEMORY_BYTES = 64 << 20;

export class TrackedRecordsWriter {
  private readonly unsorted: string;
  private readonly fd: number;
  private readonly pacer: WritePacer;
  private readonly chunk = Buffer.allocUnsafe(TRACKED_ROW * CHUNK_ROWS);
  /** the key of every STRIDE-th row, the sorted table's index, while the rows come in order */
  private readonly index: Buffer[] = [];
  private used = 0;
  private rows = 0;
  private inOrder = true;
  private readonly last = Buffer.alloc(LEI_BYTES);
  private readonly side: JsonLines;
  private lei = -1;
  private columns: number[][] = [];
  private legal: number[] = [];
  private hq: number[] = [];
  private otherNames: number[] = [];
  private readonly hashes = new Uint32Array(TRACKED_FIELDS.length);

  constructor(
    private readonly dir: string,
    /** unsorted rows up to this many bytes are sorted from memory */
    private readonly inMemoryBytes = IN_MEMORY_BYTES,
  ) {
    this.unsorted = join(dir, `${TRACKED_FILE}.unsorted`);
    this.fd = openSync(this.unsorted, "w");
    this.pacer = new WritePacer(this.fd);
    this.side = new JsonLines(join(dir, TRACKED_SIDE_FILE));
  }

  /** Finds the columns by the header's names. */
  header(names: string[], otherNameColumns: readonly string[], successorColumns: readonly string[]): void {
    const index = new Map<string, number>();
    names.forEach((name, i) => index.set(name.trim(), i));
    const at = (name: string): number => index.get(name) ?? -1;
    this.lei = at("LEI");
    this.legal = ADDRESS_PARTS.map((p) => at(`Entity.LegalAddress.${p}`));
    this.hq = ADDRESS_PARTS.map((p) => at(`Entity.HeadquartersAddress.${p}`));
    this.otherNames = otherNameColumns.map(at).filter((i) => i >= 0);
    const one = (name: string): number[] => [at(name)];
    this.columns = [
      one("Entity.LegalName"),
      this.otherNames,
      this.legal,
      this.hq,
      one("Entity.EntityStatus"),
      one("Registration.RegistrationStatus"),
      one("Registration.NextRenewalDate"),
      one("Registration.ManagingLOU"),
      one("Entity.LegalForm.EntityLegalFormCode"),
      successorColumns.map(at),
    ];
  }

  /** Adds a record (a row whose LEI the encoder accepted), its parents from `parents`. */
  add(row: CsvRow, parents: ParentIndex): void {
    const hashes = this.hashes;
    for (let f = 0; f < this.columns.length; f++) hashes[f] = hashColumns(row, this.columns[f]);
    const start = row.starts[this.lei];
    this.addRow(row.buf, start, parents, this.sideOf(row));
  }

  /**
   * Adds a record as another load tracked it, the row at `at` of `rows` and its side line,
   * with its parents taken anew from `parents`: a record re-encoded from its stored document.
   */
  addTracked(rows: Buffer, at: number, side: Buffer | null, parents: ParentIndex): void {
    for (let f = 0; f < TRACKED_FIELDS.length - 2; f++) this.hashes[f] = rows.readUInt32LE(at + HASHES_AT + 4 * f);
    this.addRow(rows, at, parents, side === null ? null : side.toString("utf8"));
  }

  /** Appends a row: the LEI at leiAt of `bytes`, this.hashes with the parents' from `parents`, the side line. */
  private addRow(bytes: Uint8Array, leiAt: number, parents: ParentIndex, side: string | null): void {
    const hashes = this.hashes;
    const slot = parents.find(bytes, leiAt);
    hashes[TRACKED_FIELDS.length - 2] = hashParent(parents.direct, slot);
    hashes[TRACKED_FIELDS.length - 1] = hashParent(parents.ultimate, slot);

    if (this.used + TRACKED_ROW > this.chunk.length) this.flush();
    const buf = this.chunk,
      at = this.used;
    buf.set(bytes.subarray(leiAt, leiAt + LEI_BYTES), at);
    // a repeated LEI (a delta's record after the golden copy's) also takes the sorting path, which keeps the last
    if (this.inOrder && this.rows > 0 && buf.compare(this.last, 0, LEI_BYTES, at, at + LEI_BYTES) <= 0) this.inOrder = false;
    if (this.inOrder && this.rows % STRIDE === 0) this.index.push(Buffer.from(buf.subarray(at, at + LEI_BYTES)));
    buf.copy(this.last, 0, at, at + LEI_BYTES);
    for (let f = 0; f < hashes.length; f++) buf.writeUInt32LE(hashes[f], at + HASHES_AT + 4 * f);
    const place = side === null ? null : this.side.append(side);
    writePlace(buf, at + SIDE_AT, place?.offset ?? 0, place?.length ?? 0);
    this.used += TRACKED_ROW;
    this.rows++;
  }

  /**
   * Writes the sorted table. GLEIF's file comes in LEI order and is written as it came; another
   * order is sorted by the LEIs alone (16 bytes a record), its rows copied in that order. Of rows
   * repeating an LEI, the last added is kept, as the engine keeps the last record.
   */
  finish(): number {
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.side.finish();
    const path = join(this.dir, TRACKED_FILE);
    if (this.inOrder) {
      renameSync(this.unsorted, path);
      writeFileAtomically(`${path}.idx`, Buffer.concat(this.index), 0o666);
      return this.rows;
    }
    const out = new SortedTableWriter(path, TRACKED_ROW, LEI_BYTES);
    const fd = openSync(this.unsorted, "r");
    try {
      const hi = new Float64Array(this.rows),
        lo = new Float64Array(this.rows);
      for (let first = 0; first < this.rows; first += CHUNK_ROWS) {
        const n = Math.min(CHUNK_ROWS, this.rows - first);
        readFully(fd, this.chunk, 0, n * TRACKED_ROW, first * TRACKED_ROW, "tracked records");
        for (let r = 0; r < n; r++) {
          hi[first + r] = base36(this.chunk, r * TRACKED_ROW, 10);
          lo[first + r] = base36(this.chunk, r * TRACKED_ROW + 10, 10);
        }
      }
      const order = radixOrder(this.rows, [
        { values: hi, bits: 52 },
        { values: lo, bits: 52 },
      ]);
      // rows in sorted order: from memory when they are few (a delta's), else one read each
      let all: Buffer | null = null;
      if (this.rows * TRACKED_ROW <= this.inMemoryBytes) {
        all = Buffer.allocUnsafe(this.rows * TRACKED_ROW);
        readFully(fd, all, 0, all.length, 0, "tracked records");
      }
      for (let k = 0; k < order.length; k++) {
        const i = order[k];
        // the sort is stable: a later row of the same LEI comes right after
        const j = order[k + 1];
        if (j !== undefined && hi[j] === hi[i] && lo[j] === lo[i]) continue;
        const { buffer, at } = out.next();
        if (all !== null) all.copy(buffer, at, i * TRACKED_ROW, (i + 1) * TRACKED_ROW);
        else readFully(fd, buffer, at, TRACKED_ROW, i * TRACKED_ROW, "tracked records");
      }
    } finally {
      closeSync(fd);
    }
    const rows = out.finish();
    rmSync(this.unsorted, { force: true });
    return rows;
  }

  /** Gives up: the files a failed load leaves go with its scratch directory. */
  abandon(): void {
    for (const fd of [this.fd, this.side.fd]) {
      try {
        closeSync(fd);
      } catch {
        // closed already
      }
    }
  }

  private sideOf(row: CsvRow): string | null {
    let names: string[] | null = null;
    for (const i of this.otherNames) {
      if (row.ends[i] > row.starts[i] && i < row.length) (names ??= []).push(row.field(i));
    }
    let hq: string | null | undefined = undefined;
    if (!sameColumns(row, this.legal, this.hq)) hq = joinAddress(this.hq.map((i) => (i >= 0 && i < row.length ? row.field(i) : null)));
    if (names === null && hq === undefined) return null;
    const side: TrackedSide = {};
    if (names !== null) side.otherNames = names;
    if (hq !== undefined) side.hqAddress = hq;
    return JSON.stringify(side);
  }

  private flush(): void {
    writeFully(this.fd, this.chunk, 0, this.used);
    this.pacer.wrote(this.used);
    this.used = 0;
  }
}

/** FNV-1a over the columns' bytes, a separator after each: the same values give the same hash. */
function hashColumns(row: CsvRow, columns: number[]): number {
  let h = FNV_OFFSET;
  const buf = row.buf;
  for (const c of columns) {
    if (c >= 0 && c < row.length) for (let i = row.starts[c], end = row.ends[c]; i < end; i++) h = Math.imul(h ^ buf[i], FNV_PRIME);
    h = Math.imul(h ^ SEPARATOR, FNV_PRIME);
  }
  return h >>> 0;
}

/** FNV-1a of an entity's parent LEI, as a tracked row holds it; slot -1 or zero bytes: no parent. */
export function hashParent(parents: Uint8Array, slot: number): number {
  let h = FNV_OFFSET;
  if (slot >= 0 && parents[slot * LEI_BYTES] !== 0)
    for (let i = slot * LEI_BYTES; i < (slot + 1) * LEI_BYTES; i++) h = Math.imul(h ^ parents[i], FNV_PRIME);
  return h >>> 0;
}

/** Whether the columns a and b of the row hold the same bytes, pair by pair. */
function sameColumns(row: CsvRow, a: number[], b: number[]): boolean {
  for (let k = 0; k < a.length; k++) {
    const i = a[k],
      j = b[k];
    const la = i >= 0 && i < row.length ? row.ends[i] - row.starts[i] : 0;
    const lb = j >= 0 && j < row.length ? row.ends[j] - row.starts[j] : 0;
    if (la !== lb) return false;
    if (la > 0 && row.buf.compare(row.buf, row.starts[j], row.ends[j], row.starts[i], row.ends[i]) !== 0) return false;
  }
  return true;
}
