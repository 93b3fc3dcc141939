// A Level 2 part's full file as its build parsed it: per row the values the part's tables are
// sorted and written from, and where the row's record lies in the part's JSON lines; kept beside
// the tables. A GLEIF delta builds rr and repex from the same kept full file as the live
// collection, with the chain of deltas after it: such a build takes these rows and the records'
// bytes from the live collection's directory and parses only the deltas, instead of parsing and
// rendering the whole file again (at full scale half a minute a part).
//
// Layout: u32 (little endian) byte length of a JSON header (format, the source file's name and
// size, its data rows and skipped rows, the records' bytes, the columns' names and types), the
// header, then each column's values back to back in the header's order, each 8-byte aligned.

import { closeSync, fstatSync, fsyncSync, openSync, readSync, statSync } from "node:fs";
import { basename } from "node:path";
import { openToRead, readFully, writeFully } from "../os/fd-io.js";

const FORMAT = 1;

/** What a full file is known by: its name and size. */
export interface ParsedSource {
  file: string;
  bytes: number;
}

export type Column = Float64Array | Uint8Array | Uint32Array;
export type ColumnType = "f64" | "u8" | "u32";

export interface ParsedRows<C extends string> {
  /** the file's data rows, read or skipped */
  fileRows: number;
  /** rows the build skipped (an identifier of the wrong form and the like) */
  skipped: number;
  /** bytes of the part's JSON lines the file's records take, from the start */
  recordBytes: number;
  /** each column's values, one per row kept */
  columns: Record<C, Column>;
}

interface Header {
  format: number;
  source: ParsedSource;
  fileRows: number;
  skipped: number;
  recordBytes: number;
  rows: number;
  columns: { name: string; type: ColumnType }[];
}

export function sourceOf(path: string): ParsedSource {
  return { file: basename(path), bytes: statSync(path).size };
}

const typeOf = (c: Column): ColumnType => (c instanceof Float64Array ? "f64" : c instanceof Uint32Array ? "u32" : "u8");
const aligned = (n: number): number => Math.ceil(n / 8) * 8;

/** Writes the parsed rows of `source` to `path` (made durable). */
export function writeParsedRows<C extends string>(path: string, source: ParsedSource, parsed: ParsedRows<C>): void {
  const names = Object.keys(parsed.columns) as C[];
  const rows = names.length === 0 ? 0 : parsed.columns[names[0]].length;
  const header: Header = {
    format: FORMAT,
    source,
    fileRows: parsed.fileRows,
    skipped: parsed.skipped,
    recordBytes: parsed.recordBytes,
    rows,
    columns: names.map((name) => ({ name, type: typeOf(parsed.columns[name]) })),
  };
  const head = Buffer.from(JSON.stringify(header));
  const prefix = Buffer.alloc(aligned(4 + head.length));
  prefix.writeUInt32LE(head.length, 0);
  head.copy(prefix, 4);
  const fd = openSync(path, "w");
  try {
    writeFully(fd, prefix, 0, prefix.length, 0);
    let at = prefix.length;
    for (const name of names) {
      const c = parsed.columns[name];
      writeFully(fd, new Uint8Array(c.buffer, c.byteOffset, c.byteLength), 0, c.byteLength, at);
      at += aligned(c.byteLength);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const WIDTH: Record<ColumnType, number> = { f64: 8, u32: 4, u8: 1 };

/**
 * The parsed rows at `path`, their header read and each column read only when asked for,
 * straight into the caller's array: a build reads them into the arrays it sorts and writes from,
 * not into a buffer of their own first.
 */
export class ParsedRowsFile<C extends string> {
  private constructor(
    private readonly path: string,
    private readonly header: Header,
    /** each column's byte offset in the file */
    private readonly at: Map<string, { offset: number; type: ColumnType }>,
  ) {}

  /**
   * The parsed rows at `path` when they are of `source` (and, with `types`, have those columns);
   * null when not, or when none are there or they are cut short.
   */
  static open<C extends string>(path: string, source: ParsedSource, types?: Record<C, ColumnType>): ParsedRowsFile<C> | null {
    const fd = openToRead(path);
    if (fd === null) return null;
    try {
      const size = fstatSync(fd).size;
      const length = Buffer.alloc(4);
      if (readSync(fd, length, 0, 4, 0) < 4) return null;
      const head = Buffer.alloc(length.readUInt32LE(0));
      if (readSync(fd, head, 0, head.length, 4) < head.length) return null;
      const header = JSON.parse(head.toString("utf8")) as Header;
      const wanted = types === undefined ? null : (Object.keys(types) as C[]);
      if (
        header.format !== FORMAT ||
        header.source.file !== source.file ||
        header.source.bytes !== source.bytes ||
        (wanted !== null &&
          (header.columns.length !== wanted.length || header.columns.some((c, i) => c.name !== wanted[i] || c.type !== types![wanted[i]])))
      )
        return null;
      const at = new Map<string, { offset: number; type: ColumnType }>();
      let offset = aligned(4 + head.length),
        end = offset;
      for (const { name, type } of header.columns) {
        at.set(name, { offset, type });
        end = offset + header.rows * WIDTH[type];
        offset = aligned(end);
      }
      return end <= size ? new ParsedRowsFile<C>(path, header, at) : null;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }

  get fileRows(): number {
    return this.header.fileRows;
  }
  get skipped(): number {
    return this.header.skipped;
  }
  get recordBytes(): number {
    return this.header.recordBytes;
  }
  /** rows kept (each column's length) */
  get rows(): number {
    return this.header.rows;
  }

  /** Column `name`'s values into `into`, from its first element (`into` holds at least `rows`, of the column's type). */
  readInto(name: C, into: Column): void {
    const { offset, type } = this.at.get(name)!;
    const bytes = this.rows * WIDTH[type];
    if (into.BYTES_PER_ELEMENT !== WIDTH[type] || into.length < this.rows) throw new Error(`parsed rows: ${name} does not fit`);
    const fd = openSync(this.path, "r");
    try {
      readFully(fd, new Uint8Array(into.buffer, into.byteOffset, bytes), 0, bytes, offset, "parsed rows");
    } finally {
      closeSync(fd);
    }
  }
}
