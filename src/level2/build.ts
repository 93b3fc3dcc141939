// Builds a collection's Level 2 tables (layout.ts) from GLEIF's four files, on the loader thread:
// RR and REPEX golden copies, the ISIN and BIC mapping files. Columns are read by name, so any
// order and any extra columns work. Rows with an identifier of the wrong form are skipped and
// counted; the real quirks load: a `NULL` status is "no status", a start node whose check digits
// fail is kept (it is an LEI in form), an end node not in Level 1 is kept (shown as a bare LEI).
// Returns each entity's current parents, for the Level 1 records' parent fields and filters.

import { copyFileSync, existsSync, linkSync, mkdirSync, statSync } from "node:fs";
import { JsonLines, keepsLinked } from "../os/json-lines.js";
import { join } from "node:path";
import { CsvReader, type CsvRow } from "../golden-copy/csv.js";
import { openLocal } from "../golden-copy/source.js";
import { base36, f64s, LeiWriter, radixOrder, u32s, u8s, writeBase36, writeLei } from "./keys.js";
import {
  BIC_BYTES,
  BIC_TO_LEI,
  categoryCode,
  CHILD_COUNTS,
  RELATIONSHIP_TYPES,
  DIRECT,
  ISIN_BYTES,
  ISIN_TO_LEI,
  LEI_BYTES,
  LEI_TO_ISIN,
  REPEX,
  REPEX_RECORDS,
  RR_BY_END,
  RR_BY_START,
  RR_RECORDS,
  RR_PARSED,
  REPEX_PARSED,
  typeCode,
  ULTIMATE,
  writePlace,
  type DeltaPart,
  type Level2Counts,
  type Level2Deltas,
  type Level2Files,
  type TableLayout,
} from "./layout.js";
import { SortedTableWriter } from "./sorted-table.js";
import { mergeTable } from "./table-merge.js";
import type { ChunkedArray } from "../engine/chunked-array.js";
import { ParsedRowsFile, sourceOf, writeParsedRows, type Column, type ColumnType, type ParsedSource } from "./parsed-rows.js";
import { ParentIndex } from "./parent-index.js";

export class Level2FileError extends Error {}

export interface Level2Input {
  /** local files (downloads already made); null: that part is empty */
  files: Level2Files;
  /** data rows GLEIF announces for the RR and REPEX files, when known */
  expectedRows: { rr: number | null; repex: number | null };
  /** fewer than this is a broken file, not a smaller registry (a share of the last load's) */
  minimum: { relationships: number; exceptions: number; isins: number; bics: number };
  /**
   * true: a part whose file fails (reading or checks), or that `failed` names, does not fail the
   * load: its `carry` file is built instead, unchecked, or, with none, the part is empty
   */
  partial?: boolean;
  /** per part, the live collection's kept file (a partial load's stand-in) */
  carry?: Level2Files;
  /** parts that could not be fetched (metadata or download), and why: built from `carry` */
  failed?: Partial<Record<keyof Level2Files, string>>;
  /**
   * rr and repex from GLEIF deltas: the deltas read after the part's file in `files` (the live
   * collection's kept full file), oldest first. Each row replaces the rows of its key that earlier
   * files hold (a relationship's start, type and end; an exception's LEI and category), and a
   * row with `DeletedAt` removes them.
   */
  deltas?: Level2Deltas;
  /** the deltas of `carry`, to build a carried part as it was built */
  carryDeltas?: Level2Deltas;
  /** with `deltas`: each part's new full file (path or URL), loaded when its deltas fail */
  fullSources?: Partial<Record<DeltaPart, string>>;
  /** with `deltas`: the part's new full file, fetched when its deltas fail (the loader's) */
  fullFile?: (part: DeltaPart) => Promise<string>;
  /** where a part's deltas failed (the loader's log) */
  log?: (message: string) => void;
  /**
   * the mapping parts whose file in `files` is the one the live collection's tables were built
   * from: those tables are linked from its Level 2 directory `dir` (`count` pairs) instead of
   * built again; from the file after all when they cannot be
   */
  reuse?: Partial<Record<MappingPart, { dir: string; count: number }>>;
  /**
   * the live collection's Level 2 directory: rr and repex built from the full file its tables
   * were built from take that file's rows from there (parsed-rows.ts) and parse only the deltas
   */
  liveDir?: string | null;
  /**
   * the deltas the live collection's rr and repex tables hold after their full file (its
   * manifest's; a part not named holds none): a part whose `deltas` begin with them has only the
   * rest laid over those tables (table-merge.ts), the other rows copied as they are
   */
  liveDeltas?: Level2Deltas;
}

export type MappingPart = "isin" | "bic";
const MAPPING_TABLES: Record<MappingPart, TableLayout[]> = { isin: [ISIN_TO_LEI, LEI_TO_ISIN], bic: [BIC_TO_LEI] };

export interface Level2Build {
  /** what the tables hold, and the files they were built from (a carried part's is the live copy) */
  counts: Level2Counts;
  parents: ParentIndex;
  /** the parts whose own file failed (a partial load only), and why */
  failures: Partial<Record<keyof Level2Files, string>>;
  /**
   * the only LEIs whose exceptions can differ from the live collection's: those of the repex
   * deltas, when the full file's rows were the live collection's (its chain of deltas is a start
   * of this one); null: any
   */
  exceptionLeis: string[] | null;
  /**
   * the only LEIs whose parents can differ from those of the full file's rows: the start nodes of
   * the rr deltas' rows, when the full file's rows were the live collection's; null: any
   */
  parentLeis: string[] | null;
}

const LEI_HALF = 10;
const LEI_BITS = 52;

export async function buildLevel2(input: Level2Input, dir: string): Promise<Level2Build> {
  mkdirSync(dir, { recursive: true });
  const skipped = { n: 0 };
  const files: Level2Files = { ...input.files };
  const failures: Partial<Record<keyof Level2Files, string>> = { ...input.failed };
  const { minimum, expectedRows } = input;
  /**
   * One part from its own file, checked against its minimum; in a partial load, a failure builds
   * the carried copy instead (it passed its checks when it was loaded), or, with none, nothing.
   */
  const deltas: Level2Deltas = {};
  const deltasOf = (name: keyof Level2Files, from: Level2Deltas | undefined): string[] =>
    name === "rr" || name === "repex" ? (from?.[name] ?? []) : [];
  const part = async <T>(
    name: keyof Level2Files,
    build: (path: string | null, deltas: string[], expected: number | null, skipped: { n: number }) => Promise<T>,
    count: (built: T) => number,
    what: string,
    min: number,
    expected: number | null,
  ): Promise<T> => {
    const checked = async (path: string | null, after: string[]): Promise<T> => {
      const own = { n: 0 };
      // a count announced is the full file's: a file with deltas on it has no row count to match
      const built = await build(path, after, after.length > 0 ? null : expected, own);
      const n = count(built);
      if (n < min) throw new Level2FileError(`Level 2 holds ${n} ${what}, far below the ${min} expected from the last load`);
      skipped.n += own.n;
      if (after.length > 0) deltas[name as DeltaPart] = after;
      return built;
    };
    if (failures[name] === undefined) {
      const after = deltasOf(name, input.deltas);
      try {
        return await checked(files[name], after);
      } catch (err) {
        if (after.length > 0 && input.fullFile) {
          // the deltas failed: the part's new full file instead
          input.log?.(`Level 2 ${name}: its deltas failed (${(err as Error).message}); loading its full file`);
          try {
            files[name] = await input.fullFile(name as DeltaPart);
            return await checked(files[name], []);
          } catch (full) {
            if (!input.partial) throw full;
            failures[name] = `${(err as Error).message}; its full file: ${(full as Error).message}`;
          }
        } else {
          if (!input.partial) throw err;
          failures[name] = (err as Error).message;
        }
      }
    }
    const carried = input.carry?.[name] ?? null;
    files[name] = carried;
    const after = carried === null ? [] : deltasOf(name, input.carryDeltas);
    const own = { n: 0 };
    try {
      const built = await build(carried, after, null, own);
      skipped.n += own.n;
      if (after.length > 0) deltas[name as DeltaPart] = after;
      return built;
    } catch (err) {
      files[name] = null;
      failures[name] = `${failures[name]}; the live copy could not be read either: ${(err as Error).message}`;
      return build(null, [], null, { n: 0 });
    }
  };
  const live: LiveDir = { dir: input.liveDir ?? null, deltas: input.liveDeltas ?? null, log: input.log };
  const rr = await part(
    "rr",
    (p, d, e, s) => buildRelationships(p, d, dir, e, s, live),
    (r) => r.count,
    "relationship records",
    minimum.relationships,
    expectedRows.rr,
  );
  const exceptions = await part(
    "repex",
    (p, d, e, s) => buildExceptions(p, d, dir, e, s, live),
    (built) => built.count,
    "reporting exceptions",
    minimum.exceptions,
    expectedRows.repex,
  );
  /** A mapping part: the live collection's tables where `reuse` names them, else built from its file. */
  const pairs = (name: MappingPart, path: string | null, skipped: { n: number }): Promise<number> => {
    const from = input.reuse?.[name];
    if (from !== undefined && path !== null) {
      try {
        linkTables(from.dir, dir, MAPPING_TABLES[name]);
        input.log?.(`Level 2 ${name}: the file the live collection's tables were built from; its ${from.count} pairs are kept`);
        return Promise.resolve(from.count);
      } catch (err) {
        input.log?.(`Level 2 ${name}: the live collection's tables cannot be kept (${(err as Error).message}); building them again`);
      }
    }
    return buildPairs(path, name === "isin" ? "ISIN" : "BIC", dir, skipped);
  };
  const isins = await part(
    "isin",
    (p, _d, _e, s) => pairs("isin", p, s),
    (n) => n,
    "ISIN pairs",
    minimum.isins,
    null,
  );
  const bics = await part(
    "bic",
    (p, _d, _e, s) => pairs("bic", p, s),
    (n) => n,
    "BIC pairs",
    minimum.bics,
    null,
  );
  const counts: Level2Counts = { relationships: rr.count, exceptions: exceptions.count, isins, bics, skipped: skipped.n, files, deltas };
  return { counts, parents: rr.parents, failures, exceptionLeis: exceptions.changedLeis, parentLeis: rr.changedLeis };
}

/** The live collection's Level 2 directory (none: a build from scratch), the deltas its tables hold, and the loader's log. */
interface LiveDir {
  dir: string | null;
  /** null: not known */
  deltas: Level2Deltas | null;
  log?: (message: string) => void;
}

/** What the live collection's tables of a part hold that a build can lay its later deltas over. */
interface LiveHolds {
  /** the first this many of the build's deltas (after the full file) */
  deltas: number;
  /** the full file's parsed rows, as the live collection kept them */
  full: ParsedRowsFile<never>;
}

/**
 * Whether the live collection's tables of `part` hold the full file `path` and a strict start of
 * `deltas`, with every record they point at kept where a build links their records' file (no
 * more lines of earlier deltas after the full file's than a quarter of it): then only the rest
 * of the deltas need be laid over them.
 */
function liveHolds(
  live: LiveDir,
  part: DeltaPart,
  path: string | null,
  deltas: readonly string[],
  files: { parsed: string; records: string; tables: readonly TableLayout[] },
): LiveHolds | null {
  if (live.dir === null || live.deltas === null || path === null) return null;
  const held = live.deltas[part] ?? [];
  if (held.length >= deltas.length) return null;
  if (held.some((d, i) => d !== deltas[i])) return null;
  const full = ParsedRowsFile.open(join(live.dir, files.parsed), sourceOf(path));
  if (full === null || !keepsLinked({ from: join(live.dir, files.records), bytes: full.recordBytes })) return null;
  if (!files.tables.every((t) => existsSync(join(live.dir!, t.file)) && existsSync(join(live.dir!, `${t.file}.idx`)))) return null;
  return { deltas: held.length, full };
}

/** The rows of `order` that `keep` keeps, in order (TypedArray.filter goes through an array of numbers). */
function where(order: Uint32Array, keep: (i: number) => boolean): Uint32Array {
  const out = new Uint32Array(order.length);
  let n = 0;
  for (const i of order) if (keep(i)) out[n++] = i;
  return out.subarray(0, n);
}

/**
 * Rows of `order` as a table's bytes (`width` each, `write` filling one); with `same`, one for
 * each run of rows `same` finds equal, the first's: a table's distinct keys.
 */
function encoded(
  order: Uint32Array,
  width: number,
  write: (i: number, buf: Buffer, at: number) => void,
  same?: (a: number, b: number) => boolean,
): Buffer {
  const out = Buffer.allocUnsafe(order.length * width);
  let n = 0;
  for (let k = 0; k < order.length; k++) {
    if (same !== undefined && k > 0 && same(order[k - 1], order[k])) continue;
    write(order[k], out, n * width);
    n++;
  }
  return out.subarray(0, n * width);
}

type ArrayOf<T extends ColumnType> = T extends "f64" ? Float64Array : T extends "u32" ? Uint32Array : Uint8Array;
type Columns<T extends Record<string, ColumnType>> = { [K in keyof T]: ArrayOf<T[K]> };
const growing = (type: ColumnType): ChunkedArray<Column> => (type === "f64" ? f64s() : type === "u32" ? u32s() : u8s());
const columnOf = (type: ColumnType, n: number): Column =>
  type === "f64" ? new Float64Array(n) : type === "u32" ? new Uint32Array(n) : new Uint8Array(n);

/**
 * A part's rows in a build, one growing array per column of `types` and the file and deletion
 * marks of each row, the full file's first: taken from the live collection's parsed rows of the
 * same full file (parsed-rows.ts), its records' bytes linked from there, or else parsed
 * (`toParse`), and then kept for the next build, with the full file's rows in each table's key
 * order (`orders`), so that a delta's build sorts only the deltas' rows.
 */
class FullFileRows<T extends Record<string, ColumnType>, O extends string> {
  readonly columns: { [K in keyof T]: ChunkedArray<ArrayOf<T[K]>> };
  /** per row parsed (after the rows taken), the number of the file it came from (0: the full file) */
  readonly files = u8s();
  /** per row parsed, 1 where it is a delta's deletion */
  readonly deletions = u8s();
  /** the rows taken from the live collection's parsed rows: the first rows, in `parsed` */
  private takenRows = 0;
  readonly records: JsonLines;
  /** the full file to parse; null when its rows were taken */
  readonly toParse: string | null;
  private readonly parsed: ParsedRowsFile<(keyof T & string) | O> | null;
  private readonly source: ParsedSource | null;
  /** the rows, skipped rows and record bytes of the full file, once a delta's header comes */
  private atFirstDelta: { rows: number; skipped: number; recordBytes: number } | null = null;

  constructor(
    part: DeltaPart,
    path: string | null,
    private readonly live: LiveDir,
    private readonly dir: string,
    private readonly parsedFile: string,
    recordsFile: string,
    private readonly types: T,
    /** the key orders kept beside the rows (u32 row numbers each) */
    private readonly orders: readonly O[],
    skipped: { n: number },
    /** when given, the live tables hold the full file and the first deltas: none of their rows is read */
    private readonly holds: LiveHolds | null = null,
  ) {
    const names = Object.keys(types) as (keyof T & string)[];
    this.columns = Object.fromEntries(names.map((name) => [name, growing(types[name])])) as typeof this.columns;
    this.source = path === null ? null : sourceOf(path);
    if (holds !== null) {
      // every line of the live records' file stays at its place: its tables' rows point there
      const from = join(live.dir!, recordsFile);
      this.parsed = null;
      this.toParse = null;
      this.records = new JsonLines(join(dir, recordsFile), { from, bytes: statSync(from).size });
      skipped.n += holds.full.skipped;
      live.log?.(
        `Level 2 ${part}: the live collection's tables hold ${this.source!.file} and ${holds.deltas} delta(s); only the rest is laid over them`,
      );
      return;
    }
    const kept = { ...types, ...Object.fromEntries(orders.map((o) => [o, "u32"])) } as Record<(keyof T & string) | O, ColumnType>;
    this.parsed = this.source !== null && live.dir !== null ? ParsedRowsFile.open(join(live.dir, parsedFile), this.source, kept) : null;
    this.toParse = this.parsed === null ? path : null;
    this.records = new JsonLines(
      join(dir, recordsFile),
      this.parsed === null ? undefined : { from: join(live.dir!, recordsFile), bytes: this.parsed.recordBytes },
    );
    const parsed = this.parsed;
    if (parsed === null) return;
    live.log?.(`Level 2 ${part}: ${this.source!.file} as the live collection parsed it; only its deltas are read`);
    this.takenRows = parsed.rows;
    skipped.n += parsed.skipped;
  }

  /** rows so far */
  get rows(): number {
    return this.takenRows + this.files.length;
  }

  /** Per row, the file it came from and whether it is a deletion (the rows taken: the full file's, none a deletion). */
  marks(): { files: Uint8Array; deletions: Uint8Array } {
    const taken = new Uint8Array(this.takenRows);
    return { files: this.files.toArray(taken), deletions: this.deletions.toArray(taken) };
  }

  /** Whether the full file's rows were taken from the live collection, or are held by its tables. */
  get taken(): boolean {
    return this.parsed !== null || this.holds !== null;
  }

  /** Whether the live tables hold the rows of file `file` (0: the full file, then each delta), so that they are not read again. */
  held(file: number): boolean {
    return this.holds !== null && file <= this.holds.deltas;
  }

  /** A file's header: the first delta's marks where the full file's rows end. */
  header(file: number, skipped: { n: number }): void {
    if (file === 1 && this.atFirstDelta === null)
      this.atFirstDelta = { rows: this.rows, skipped: skipped.n, recordBytes: this.records.bytes };
  }

  /** The full file's data rows: `parsedRows` counted by the parse, or those of the rows taken. */
  fileRows(parsedRows: number): number {
    return this.parsed?.fileRows ?? this.holds?.full.fileRows ?? parsedRows;
  }

  /** Every column as one array (the growing ones let go), once the files are read, the rows taken first. */
  arrays(): Columns<T> {
    const names = Object.keys(this.types) as (keyof T & string)[];
    return Object.fromEntries(
      names.map((name) => {
        const column = this.columns[name] as ChunkedArray<Column>;
        const all = columnOf(this.types[name], this.takenRows + column.length);
        this.parsed?.readInto(name, all);
        return [name, column.into(all, this.takenRows)];
      }),
    ) as Columns<T>;
  }

  /**
   * The rows in `order`'s key order (radixOrder's, stable): with the rows taken, their order as
   * kept and the deltas' rows sorted alone, merged.
   */
  sorted(order: O, keys: { values: Float64Array | Uint8Array; bits: number }[]): Uint32Array {
    const n = keys[0].values.length;
    if (this.parsed === null) return radixOrder(n, keys);
    const taken = new Uint32Array(this.takenRows);
    this.parsed.readInto(order, taken);
    const from = this.takenRows;
    const tail = radixOrder(
      n - from,
      keys.map(({ values, bits }) => ({ values: values.subarray(from), bits })),
    );
    const before = (a: number, b: number): boolean => {
      for (const { values } of keys) if (values[a] !== values[b]) return values[a] < values[b];
      return false; // equal keys: the earlier row first, as a stable sort has them
    };
    const out = new Uint32Array(n);
    let i = 0,
      j = 0,
      k = 0;
    while (i < taken.length || j < tail.length) {
      const b = j < tail.length ? from + tail[j] : -1;
      if (i < taken.length && (b < 0 || !before(b, taken[i]))) out[k++] = taken[i++];
      else {
        out[k++] = b;
        j++;
      }
    }
    return out;
  }

  /**
   * Keeps the full file's rows beside the tables for the next build (`parsedRows`: the parse's
   * count), with each order (sorted()'s of every row) cut to them; rows taken are linked.
   */
  keep(parsedRows: number, skipped: { n: number }, orders: Record<O, Uint32Array>, columns: Columns<T>): void {
    const file = join(this.dir, this.parsedFile);
    if (this.taken) return linkOrCopy(join(this.live.dir!, this.parsedFile), file);
    if (this.source === null) return;
    const end = this.atFirstDelta ?? { rows: this.rows, skipped: skipped.n, recordBytes: this.records.bytes };
    const names = Object.keys(this.types) as (keyof T & string)[];
    const kept: Record<string, Column> = Object.fromEntries(names.map((name) => [name, columns[name].subarray(0, end.rows)]));
    for (const o of this.orders) kept[o] = end.rows === columns[names[0]].length ? orders[o] : where(orders[o], (i) => i < end.rows);
    writeParsedRows(file, this.source, { fileRows: parsedRows, skipped: end.skipped, recordBytes: end.recordBytes, columns: kept });
  }
}

/** Links the tables (and their indexes) from `from` into `to`: the same files, not copies; a copy only across file systems. */
function linkTables(from: string, to: string, tables: readonly TableLayout[]): void {
  for (const table of tables) {
    for (const file of [table.file, `${table.file}.idx`]) {
      const source = join(from, file);
      if (!existsSync(source)) {
        if (file === table.file) throw new Level2FileError(`${file} is not in the live collection's Level 2`);
        continue;
      }
      linkOrCopy(source, join(to, file));
    }
  }
}

/** Links `from` as `to`: the live collection's file, which no build writes again; a copy across file systems. */
function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    copyFileSync(from, to);
  }
}

/**
 * Streams a local CSV or zip: the header's names to `header`, every data row after it to `row`;
 * the number of data rows. No file (a part not given) has none, and its tables come out empty.
 */
async function eachRow(path: string | null, header: (names: string[]) => void, row: (row: CsvRow) => void): Promise<number> {
  if (path === null) return 0;
  const opened = await openLocal(path);
  let seenHeader = false;
  const reader = new CsvReader((r) => {
    if (!seenHeader) {
      seenHeader = true;
      header(
        Array.from({ length: r.length }, (_, i) =>
          r
            .field(i)
            .replace(/^\uFEFF/, "")
            .trim(),
        ),
      );
    } else row(r);
  });
  try {
    for await (const chunk of opened.stream) reader.push(chunk as Buffer);
    reader.end();
  } finally {
    opened.close();
  }
  if (!seenHeader) throw new Level2FileError(`${path} is empty: no header row`);
  return reader.rows - 1;
}

/**
 * eachRow() over a part's file and then its deltas, each with its own header (a delta adds
 * `DeletedAt`); the file's number (0: the full file) goes with each header and row. The full
 * file's data rows.
 */
async function eachRowOf(
  path: string | null,
  deltas: readonly string[],
  header: (names: string[], file: number) => void,
  row: (row: CsvRow, file: number) => void,
): Promise<number> {
  const rows = await eachRow(
    path,
    (names) => header(names, 0),
    (r) => row(r, 0),
  );
  for (let f = 0; f < deltas.length; f++) {
    await eachRow(
      deltas[f],
      (names) => header(names, f + 1),
      (r) => row(r, f + 1),
    );
  }
  return rows;
}

/**
 * Of rows in key order (`order`, stable) whose keys `same` compares, the ones an upsert keeps:
 * where a later file has rows of a key, only that file's rows, and none when they are deletions.
 * Rows of one file sharing a key are kept together, as a full file's are.
 */
function upserted(order: Uint32Array, same: (a: number, b: number) => boolean, file: Uint8Array, deleted: Uint8Array): Uint32Array {
  const kept = new Uint32Array(order.length);
  let n = 0;
  for (let k = 0; k < order.length;) {
    let end = k + 1;
    let last = file[order[k]];
    while (end < order.length && same(order[k], order[end])) last = Math.max(last, file[order[end++]]);
    for (let j = k; j < end; j++) if (file[order[j]] === last && deleted[order[j]] === 0) kept[n++] = order[j];
    k = end;
  }
  return kept.subarray(0, n);
}

function columnsOf(names: string[], required: string[], what: string): Map<string, number> {
  const index = new Map<string, number>();
  names.forEach((name, i) => {
    if (!index.has(name)) index.set(name, i);
  });
  const missing = required.filter((c) => !index.has(c));
  if (missing.length > 0) throw new Level2FileError(`the ${what} file lacks required column(s): ${missing.join(", ")}`);
  return index;
}

/** Numbered columns such as Relationship.Period.2.startDate, grouped by number in order. */
function numbered(names: string[], pattern: RegExp): Map<string, number>[] {
  const groups = new Map<number, Map<string, number>>();
  names.forEach((name, i) => {
    const m = pattern.exec(name);
    if (!m) return;
    const n = m[1] === undefined ? 1 : Number(m[1]);
    if (!groups.has(n)) groups.set(n, new Map());
    groups.get(n)!.set(m[2] ?? "", i);
  });
  return [...groups.entries()].sort((a, b) => a[0] - b[0]).map(([, g]) => g);
}

/** An identifier field's bytes, when the field is exactly `length` letters or digits, unquoted-equal. */
function codeAt(row: CsvRow, i: number, length: number): number {
  if (i < 0 || i >= row.length || row.ends[i] - row.starts[i] !== length) return -1;
  return row.starts[i];
}

function isUpperAlnum(bytes: Uint8Array, start: number, length: number): boolean {
  for (let i = start; i < start + length; i++) {
    const c = bytes[i];
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90))) return false;
  }
  return true;
}

const text = (row: CsvRow, i: number | undefined): string | null => {
  if (i === undefined) return null;
  const v = row.field(i).trim();
  return v === "" ? null : v;
};

const REGISTRATION_FIELDS = [
  ["initialRegistrationDate", "Registration.InitialRegistrationDate"],
  ["lastUpdateDate", "Registration.LastUpdateDate"],
  ["status", "Registration.RegistrationStatus"],
  ["nextRenewalDate", "Registration.NextRenewalDate"],
  ["managingLou", "Registration.ManagingLOU"],
  ["validationSources", "Registration.ValidationSources"],
  ["validationDocuments", "Registration.ValidationDocuments"],
  ["validationReference", "Registration.ValidationReference"],
] as const;

const START = "Relationship.StartNode.NodeID",
  END = "Relationship.EndNode.NodeID",
  TYPE = "Relationship.RelationshipType";

const RR_COLUMNS = { sh: "f64", sl: "f64", eh: "f64", el: "f64", ty: "u8", cur: "u8", off: "f64", len: "u32" } as const;

async function buildRelationships(
  path: string | null,
  deltas: readonly string[],
  dir: string,
  expectedRows: number | null,
  skipped: { n: number },
  live: LiveDir,
): Promise<{ count: number; parents: ParentIndex; changedLeis: string[] | null }> {
  const holds = liveHolds(live, "rr", path, deltas, {
    parsed: RR_PARSED,
    records: RR_RECORDS,
    tables: [RR_BY_START, RR_BY_END, CHILD_COUNTS],
  });
  const full = new FullFileRows("rr", path, live, dir, RR_PARSED, RR_RECORDS, RR_COLUMNS, ["byStart", "byEnd"], skipped);
  /** the start nodes of the deltas' rows */
  const changed = new Set<string>();
  const { sh: startHi, sl: startLo, eh: endHi, el: endLo, ty: types, cur: current, off: offsets, len: lengths } = full.columns;
  const { records, files, deletions } = full;
  let render: ((row: CsvRow) => string) | null = null;
  let at: Map<string, number> = new Map();
  const rows = await eachRowOf(
    full.toParse,
    deltas,
    (names, file) => {
      full.header(file, skipped);
      at = columnsOf(names, [START, END, TYPE], "relationship (RR)");
      render = relationshipRenderer(names, at);
    },
    (row, file) => {
      const s = codeAt(row, at.get(START)!, LEI_BYTES),
        e = codeAt(row, at.get(END)!, LEI_BYTES);
      if (s < 0 || e < 0 || !isUpperAlnum(row.buf, s, LEI_BYTES) || !isUpperAlnum(row.buf, e, LEI_BYTES)) {
        skipped.n++;
        return;
      }
      const type = row.field(at.get(TYPE)!).trim();
      if (file > 0) changed.add(row.buf.toString("latin1", s, s + LEI_BYTES));
      // a delta's deletion removes its key's earlier rows, and is not itself a record
      const deletion = file > 0 && text(row, at.get("DeletedAt")) !== null;
      const place = deletion ? { offset: 0, length: 0 } : records.append(render!(row));
      if (!place) {
        skipped.n++;
        return;
      }
      startHi.push(base36(row.buf, s, LEI_HALF));
      startLo.push(base36(row.buf, s + LEI_HALF, LEI_HALF));
      endHi.push(base36(row.buf, e, LEI_HALF));
      endLo.push(base36(row.buf, e + LEI_HALF, LEI_HALF));
      types.push(typeCode(type));
      const status = text(row, at.get("Relationship.RelationshipStatus"));
      current.push(status === "INACTIVE" ? 0 : 1);
      offsets.push(place.offset);
      lengths.push(place.length);
      files.push(file);
      deletions.push(deletion ? 1 : 0);
    },
  ).catch((err: unknown) => {
    records.abandon();
    throw err;
  });
  records.finish();
  const fileRows = full.fileRows(rows);
  if (expectedRows !== null && fileRows !== expectedRows) {
    throw new Level2FileError(`the relationship (RR) file holds ${fileRows} rows, its publication announces ${expectedRows}`);
  }
  const columns = full.arrays();
  const { sh, sl, eh, el, ty, cur, off, len } = columns;
  const all = sh.length;
  /** A relationship table's key: one end's LEI, the type, the other end's LEI. */
  const edgeKey = (aHi: Float64Array, aLo: Float64Array, bHi: Float64Array, bLo: Float64Array) => [
    { values: aHi, bits: LEI_BITS },
    { values: aLo, bits: LEI_BITS },
    { values: ty, bits: 3 },
    { values: bHi, bits: LEI_BITS },
    { values: bLo, bits: LEI_BITS },
  ];
  const byStartRead = full.sorted("byStart", edgeKey(sh, sl, eh, el));
  const byEndRead = full.sorted("byEnd", edgeKey(eh, el, sh, sl));
  full.keep(rows, skipped, { byStart: byStartRead, byEnd: byEndRead }, columns);
  let byStart = byStartRead,
    byEnd = byEndRead;
  const sameKey = (a: number, b: number): boolean =>
    sh[a] === sh[b] && sl[a] === sl[b] && ty[a] === ty[b] && eh[a] === eh[b] && el[a] === el[b];
  /** the rows of the deltas the live tables do not hold, with every other row kept in them as it is; null: the tables are written whole */
  let fresh: ((order: Uint32Array) => Uint32Array) | null = null;
  if (deltas.length > 0) {
    const { files: fileOf, deletions: deleted } = full.marks();
    byStart = upserted(byStart, sameKey, fileOf, deleted);
    const kept = new Uint8Array(all);
    for (const i of byStart) kept[i] = 1;
    byEnd = where(byEnd, (i) => kept[i] === 1);
    if (holds !== null && full.taken && full.records.linked) {
      const after = holds.deltas;
      fresh = (order) => where(order, (i) => fileOf[i] > after);
      live.log?.(`Level 2 rr: the live collection's tables hold ${holds.deltas} of its ${deltas.length} delta(s); the rest laid over them`);
    }
  }
  const n = byStart.length;
  const EDGE_KEY = 2 * LEI_BYTES + 1;
  /** A relationship table's row (`place` false: its key alone) from one end's LEI, the type and the other end's. */
  const edgeWriter = (aHi: Float64Array, aLo: Float64Array, bHi: Float64Array, bLo: Float64Array, place: boolean) => {
    const key = new LeiWriter(),
      other = new LeiWriter();
    return (i: number, buffer: Buffer, o: number): void => {
      key.write(aHi[i], aLo[i], buffer, o);
      buffer[o + LEI_BYTES] = ty[i];
      other.write(bHi[i], bLo[i], buffer, o + LEI_BYTES + 1);
      if (place) writePlace(buffer, o + EDGE_KEY, off[i], len[i]);
    };
  };
  /** `kept`'s rows as the table: the live one's with the deltas laid over it where it can, else all written */
  const writeEdges = (
    layout: TableLayout,
    read: Uint32Array,
    kept: Uint32Array,
    aHi: Float64Array,
    aLo: Float64Array,
    bHi: Float64Array,
    bLo: Float64Array,
  ): void => {
    const path = join(dir, layout.file);
    if (fresh !== null) {
      const keys = encoded(fresh(read), EDGE_KEY, edgeWriter(aHi, aLo, bHi, bLo, false), sameKey);
      const rowsOf = encoded(fresh(kept), layout.rowWidth, edgeWriter(aHi, aLo, bHi, bLo, true));
      if (mergeTable(join(live.dir!, layout.file), path, layout, EDGE_KEY, keys, rowsOf) === kept.length) return;
      live.log?.(`Level 2 rr: the live collection's ${layout.file} holds other rows than its files make; written whole`);
    }
    const out = new SortedTableWriter(path, layout.rowWidth, layout.keyWidth);
    const write = edgeWriter(aHi, aLo, bHi, bLo, true);
    for (const i of kept) {
      const { buffer, at } = out.next();
      write(i, buffer, at);
    }
    out.finish();
  };
  writeEdges(RR_BY_START, byStartRead, byStart, sh, sl, eh, el);

  // parents: the first current direct and ultimate relationship of each start node, in LEI order
  const pHi = new Float64Array(n),
    pLo = new Float64Array(n),
    direct = new Uint8Array(n * LEI_BYTES),
    ultimate = new Uint8Array(n * LEI_BYTES);
  let slots = 0;
  for (const i of byStart) {
    if ((ty[i] !== DIRECT && ty[i] !== ULTIMATE) || cur[i] === 0) continue;
    if (slots === 0 || sh[i] !== pHi[slots - 1] || sl[i] !== pLo[slots - 1]) {
      pHi[slots] = sh[i];
      pLo[slots] = sl[i];
      slots++;
    }
    // an LEI's bytes are never 0: a slot still 0 has no parent of that kind yet
    const into = ty[i] === DIRECT ? direct : ultimate;
    const at = (slots - 1) * LEI_BYTES;
    if (into[at] === 0) writeLei(eh[i], el[i], into, at);
  }
  // views, not copies: the index lives as long as the load
  const parents = new ParentIndex(
    pHi.subarray(0, slots),
    pLo.subarray(0, slots),
    direct.subarray(0, slots * LEI_BYTES),
    ultimate.subarray(0, slots * LEI_BYTES),
  );

  writeEdges(RR_BY_END, byEndRead, byEnd, eh, el, sh, sl);
  writeChildCounts(dir, byEnd, eh, el, ty, fresh === null ? null : { live: live.dir!, ends: fresh(byEndRead), log: live.log });
  return { count: n, parents, changedLeis: full.taken ? [...changed] : null };
}

/**
 * Per end node (in LEI order), how many relationships of each type name it: one read answers all
 * six counts. With `over`, only the end nodes of `over.ends` (rows in end order) are counted,
 * laid over the live collection's table.
 */
function writeChildCounts(
  dir: string,
  byEnd: Uint32Array,
  eh: Float64Array,
  el: Float64Array,
  ty: Uint8Array,
  over: { live: string; ends: Uint32Array; log?: (message: string) => void } | null,
): void {
  const { rowWidth } = CHILD_COUNTS;
  const path = join(dir, CHILD_COUNTS.file);
  const counts = new Uint32Array(RELATIONSHIP_TYPES.length);
  const leis = new LeiWriter();
  const writeRow = (i: number, buffer: Buffer, at: number): void => {
    leis.write(eh[i], el[i], buffer, at);
    for (let k = 0; k < counts.length; k++) buffer.writeUInt32BE(counts[k], at + LEI_BYTES + 4 * k);
  };
  const sameEnd = (a: number, b: number): boolean => eh[a] === eh[b] && el[a] === el[b];
  const ends = over === null ? null : encoded(over.ends, LEI_BYTES, (i, buffer, at) => leis.write(eh[i], el[i], buffer, at), sameEnd);
  const out = over === null ? new SortedTableWriter(path, rowWidth, CHILD_COUNTS.keyWidth) : null;
  const rows = over === null ? null : Buffer.allocUnsafe((ends!.length / LEI_BYTES) * rowWidth);
  let n = 0,
    e = 0,
    endNodes = 0;
  /** whether end row i is one of `over.ends`: both run in end order */
  const counted = (i: number): boolean => {
    const of = over!.ends;
    while (e < of.length && (eh[of[e]] < eh[i] || (eh[of[e]] === eh[i] && el[of[e]] < el[i]))) e++;
    return e < of.length && sameEnd(of[e], i);
  };
  for (let k = 0; k < byEnd.length; k++) {
    const i = byEnd[k];
    if (ty[i] <= counts.length) counts[ty[i] - 1]++;
    const next = byEnd[k + 1];
    if (k + 1 < byEnd.length && sameEnd(next, i)) continue;
    endNodes++;
    if (out !== null) {
      const { buffer, at } = out.next();
      writeRow(i, buffer, at);
    } else if (counted(i)) writeRow(i, rows!, n++ * rowWidth);
    counts.fill(0);
  }
  if (out !== null) out.finish();
  else if (
    mergeTable(join(over!.live, CHILD_COUNTS.file), path, CHILD_COUNTS, LEI_BYTES, ends!, rows!.subarray(0, n * rowWidth)) !== endNodes
  ) {
    over!.log?.(`Level 2 rr: the live collection's ${CHILD_COUNTS.file} holds other rows than its files make; written whole`);
    writeChildCounts(dir, byEnd, eh, el, ty, null);
  }
}

/** The RelationshipRecord JSON of a row (family-schemas.ts describes it). */
function relationshipRenderer(names: string[], at: Map<string, number>): (row: CsvRow) => string {
  const periods = numbered(names, /^Relationship\.Period\.(\d+)\.(startDate|endDate|periodType)$/);
  const qualifiers = numbered(names, /^Relationship\.Qualifiers\.(\d+)\.(QualifierDimension|QualifierCategory)$/);
  // the 2019 header named the quantifier columns Qualifiers.N.MeasurementMethod and so on
  const quantifiers = numbered(
    names,
    /^Relationship\.(?:Quantifiers|Qualifiers)\.(\d+)\.(MeasurementMethod|QuantifierAmount|QuantifierUnits)$/,
  );
  const registration = REGISTRATION_FIELDS.map(([name, column]) => [name, at.get(column)] as const);
  return (row) => {
    const status = text(row, at.get("Relationship.RelationshipStatus"));
    const quals = qualifiers
      .map((g) => ({ dimension: text(row, g.get("QualifierDimension")), category: text(row, g.get("QualifierCategory")) }))
      .filter((q) => q.dimension !== null || q.category !== null);
    return JSON.stringify({
      startNode: text(row, at.get(START)),
      startNodeType: text(row, at.get("Relationship.StartNode.NodeIDType")),
      endNode: text(row, at.get(END)),
      endNodeType: text(row, at.get("Relationship.EndNode.NodeIDType")),
      type: text(row, at.get(TYPE)),
      status: status === "NULL" ? null : status,
      periods: periods
        .map((g) => ({
          type: text(row, g.get("periodType")),
          startDate: text(row, g.get("startDate")),
          endDate: text(row, g.get("endDate")),
        }))
        .filter((p) => p.type !== null || p.startDate !== null || p.endDate !== null),
      accountingStandard: quals.find((q) => q.dimension === "ACCOUNTING_STANDARD")?.category ?? null,
      qualifiers: quals,
      quantifiers: quantifiers
        .map((g) => ({
          measurementMethod: text(row, g.get("MeasurementMethod")),
          amount: text(row, g.get("QuantifierAmount")),
          units: text(row, g.get("QuantifierUnits")),
        }))
        .filter((q) => q.measurementMethod !== null || q.amount !== null || q.units !== null),
      registration: Object.fromEntries(registration.map(([name, i]) => [name, text(row, i)])),
    });
  };
}

const REPEX_COLUMNS = { h: "f64", l: "f64", c: "u8", off: "f64", len: "u32" } as const;

async function buildExceptions(
  path: string | null,
  deltas: readonly string[],
  dir: string,
  expectedRows: number | null,
  skipped: { n: number },
  live: LiveDir,
): Promise<{ count: number; changedLeis: string[] | null }> {
  const holds = liveHolds(live, "repex", path, deltas, { parsed: REPEX_PARSED, records: REPEX_RECORDS, tables: [REPEX] });
  const full = new FullFileRows("repex", path, live, dir, REPEX_PARSED, REPEX_RECORDS, REPEX_COLUMNS, ["order"], skipped, holds);
  const { h: hi, l: lo, c: categories, off: offsets, len: lengths } = full.columns;
  const { records, files, deletions } = full;
  /** the LEIs of the deltas' rows */
  const changed = new Set<string>();
  let at = new Map<string, number>();
  let reasons: number[] = [],
    references: number[] = [];
  const values = (row: CsvRow, columns: number[]): string[] => {
    const out: string[] = [];
    for (const i of columns) {
      const v = text(row, i);
      if (v !== null) out.push(v);
    }
    return out;
  };
  const rows = await eachRowOf(
    full.toParse,
    deltas,
    (names, file) => {
      full.header(file, skipped);
      at = columnsOf(names, ["LEI", "Exception.Category"], "reporting exception (REPEX)");
      reasons = numbered(names, /^Exception\.Reason(?:\.(\d+))?()$/).map((g) => g.get("")!);
      references = numbered(names, /^Exception\.Reference(?:\.(\d+))?()$/).map((g) => g.get("")!);
    },
    (row, file) => {
      const s = codeAt(row, at.get("LEI")!, LEI_BYTES);
      const deletion = text(row, at.get("DeletedAt")) !== null;
      // a deleted exception in the full file is left out; in a delta it removes its key's earlier rows
      if (s < 0 || !isUpperAlnum(row.buf, s, LEI_BYTES) || (deletion && file === 0)) {
        skipped.n++;
        return;
      }
      if (file > 0) changed.add(row.buf.toString("latin1", s, s + LEI_BYTES));
      if (full.held(file)) return;
      const category = text(row, at.get("Exception.Category")) ?? "";
      if (deletion) {
        hi.push(base36(row.buf, s, LEI_HALF));
        lo.push(base36(row.buf, s + LEI_HALF, LEI_HALF));
        categories.push(categoryCode(category));
        offsets.push(0);
        lengths.push(0);
        files.push(file);
        deletions.push(1);
        return;
      }
      const place = records.append(
        `{"lei":"${row.field(at.get("LEI")!)}","category":${jsonString(category)},"reasons":${jsonList(values(row, reasons))},"references":${jsonList(values(row, references))}}`,
      );
      if (!place) {
        skipped.n++;
        return;
      }
      hi.push(base36(row.buf, s, LEI_HALF));
      lo.push(base36(row.buf, s + LEI_HALF, LEI_HALF));
      categories.push(categoryCode(category));
      offsets.push(place.offset);
      lengths.push(place.length);
      files.push(file);
      deletions.push(0);
    },
  ).catch((err: unknown) => {
    records.abandon();
    throw err;
  });
  records.finish();
  const fileRows = full.fileRows(rows);
  if (expectedRows !== null && fileRows !== expectedRows) {
    throw new Level2FileError(`the reporting exception (REPEX) file holds ${fileRows} rows, its publication announces ${expectedRows}`);
  }
  const columns = full.arrays();
  const { h, l, c, off, len } = columns;
  let order = full.sorted("order", [
    { values: h, bits: LEI_BITS },
    { values: l, bits: LEI_BITS },
    { values: c, bits: 2 },
  ]);
  full.keep(rows, skipped, { order }, columns);
  const sameKey = (a: number, b: number): boolean => h[a] === h[b] && l[a] === l[b] && c[a] === c[b];
  const rowsRead = order;
  if (deltas.length > 0) {
    const { files: fileOf, deletions: deleted } = full.marks();
    order = upserted(order, sameKey, fileOf, deleted);
  }
  const leis = new LeiWriter();
  const writeKey = (i: number, buffer: Buffer, o: number): void => {
    leis.write(h[i], l[i], buffer, o);
    buffer[o + LEI_BYTES] = c[i];
  };
  const writeRow = (i: number, buffer: Buffer, o: number): void => {
    writeKey(i, buffer, o);
    writePlace(buffer, o + LEI_BYTES + 1, off[i], len[i]);
  };
  const table = join(dir, REPEX.file);
  if (holds !== null) {
    // the rows read are the later deltas': their keys' rows replaced in the live table
    const keys = encoded(rowsRead, LEI_BYTES + 1, writeKey, sameKey);
    const count = mergeTable(join(live.dir!, REPEX.file), table, REPEX, LEI_BYTES + 1, keys, encoded(order, REPEX.rowWidth, writeRow));
    return { count, changedLeis: [...changed] };
  }
  const out = new SortedTableWriter(table, REPEX.rowWidth, REPEX.keyWidth);
  for (const i of order) {
    const { buffer, at: o } = out.next();
    writeRow(i, buffer, o);
  }
  out.finish();
  return { count: order.length, changedLeis: full.taken ? [...changed] : null };
}

/** Codes (NON_CONSOLIDATING, …) are written as they are; anything else through JSON.stringify. */
const PLAIN = /^[A-Za-z0-9_ .-]*$/;
const jsonString = (v: string): string => (PLAIN.test(v) ? `"${v}"` : JSON.stringify(v));
const jsonList = (vs: string[]): string => `[${vs.map(jsonString).join(",")}]`;

/**
 * An `LEI,ISIN` or `LEI,BIC` mapping file into its tables: ISIN → LEI and LEI → ISINs, or
 * BIC → LEI. Identical pairs are kept once. A file not given makes empty tables.
 */
async function buildPairs(path: string | null, kind: "ISIN" | "BIC", dir: string, skipped: { n: number }): Promise<number> {
  const width = kind === "ISIN" ? ISIN_BYTES : BIC_BYTES;
  // a code as two numbers: ISIN 6 + 6 characters, BIC its 8-character head and 3-character branch
  const split = kind === "ISIN" ? 6 : 8;
  const leiHi = f64s(),
    leiLo = f64s(),
    codeHi = f64s(),
    codeLo = f64s();
  let lei = -1,
    code = -1;
  await eachRow(
    path,
    (names) => {
      const at = columnsOf(names, ["LEI", kind], `${kind}-LEI mapping`);
      lei = at.get("LEI")!;
      code = at.get(kind)!;
    },
    (row) => {
      const l = codeAt(row, lei, LEI_BYTES);
      let c = codeAt(row, code, width);
      // an 8-character BIC is the head office: stored as its 11-character form
      const short = kind === "BIC" && c < 0 ? codeAt(row, code, 8) : -1;
      if (short >= 0) c = short;
      if (l < 0 || c < 0 || !isUpperAlnum(row.buf, l, LEI_BYTES) || !isUpperAlnum(row.buf, c, short >= 0 ? 8 : width)) {
        skipped.n++;
        return;
      }
      leiHi.push(base36(row.buf, l, LEI_HALF));
      leiLo.push(base36(row.buf, l + LEI_HALF, LEI_HALF));
      codeHi.push(base36(row.buf, c, split));
      codeLo.push(short >= 0 ? XXX : base36(row.buf, c + split, width - split));
    },
  );
  const lh = leiHi.toArray(),
    ll = leiLo.toArray(),
    ch = codeHi.toArray(),
    cl = codeLo.toArray();
  const n = lh.length;
  const codeBits = [Math.ceil(split * Math.log2(36)), Math.ceil((width - split) * Math.log2(36))];
  // by code alone: a code's LEIs keep the file's order (GLEIF's is by LEI), which is all a lookup needs
  const byCode = radixOrder(n, [
    { values: ch, bits: codeBits[0] },
    { values: cl, bits: codeBits[1] },
  ]);
  const layout = kind === "ISIN" ? ISIN_TO_LEI : BIC_TO_LEI;
  const owners = new LeiWriter();
  const same = (i: number, j: number): boolean => ch[i] === ch[j] && cl[i] === cl[j] && lh[i] === lh[j] && ll[i] === ll[j];
  const written = writePairs(join(dir, layout.file), layout, byCode, same, (buf, o, i) => {
    writeBase36(ch[i], split, buf, o);
    writeBase36(cl[i], width - split, buf, o + split);
    owners.write(lh[i], ll[i], buf, o + width);
  });
  if (kind === "ISIN") {
    const byLei = radixOrder(n, [
      { values: lh, bits: LEI_BITS },
      { values: ll, bits: LEI_BITS },
      { values: ch, bits: codeBits[0] },
      { values: cl, bits: codeBits[1] },
    ]);
    const issuers = new LeiWriter();
    writePairs(join(dir, LEI_TO_ISIN.file), LEI_TO_ISIN, byLei, same, (buf, o, i) => {
      issuers.write(lh[i], ll[i], buf, o);
      writeBase36(ch[i], split, buf, o + LEI_BYTES);
      writeBase36(cl[i], width - split, buf, o + LEI_BYTES + split);
    });
  }
  return written;
}

/** "XXX" in base 36 */
const XXX = 33 * 36 * 36 + 33 * 36 + 33;

/** Rows in `order`, each written by `write`; a row whose pair equals the one before it (`same`) is left out. */
function writePairs(
  path: string,
  layout: TableLayout,
  order: Uint32Array,
  same: (i: number, j: number) => boolean,
  write: (buf: Buffer, at: number, i: number) => void,
): number {
  const out = new SortedTableWriter(path, layout.rowWidth, layout.keyWidth);
  let rows = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    if (k > 0 && same(i, order[k - 1])) continue;
    const { buffer, at } = out.next();
    write(buffer, at, i);
    rows++;
  }
  out.finish();
  return rows;
}
