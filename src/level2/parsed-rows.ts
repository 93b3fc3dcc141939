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

import { closeSync, fsyncSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { basename } from "node:path";
import { writeFully } from "../os/fd-io.js";

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

/** The header of the parsed rows at `path` when they are those of `source`: without reading their columns. */
export function readParsedHeader(path: string, source: ParsedSource): Omit<ParsedRows<never>, "columns"> | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    const size = Buffer.alloc(4);
    if (readSync(fd, size, 0, 4, 0) < 4) return null;
    const bytes = Buffer.alloc(size.readUInt32LE(0));
    if (readSync(fd, bytes, 0, bytes.length, 4) < bytes.length) return null;
    const header = JSON.parse(bytes.toString("utf8")) as Header;
    return header.format === FORMAT && header.source.file === source.file && header.source.bytes === source.bytes
      ? { fileRows: header.fileRows, skipped: header.skipped, recordBytes: header.recordBytes }
      : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

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

/** The parsed rows at `path` when they are of `source` with the columns `types`; null when not (or none is there). */
export function readParsedRows<C extends string>(path: string, source: ParsedSource, types: Record<C, ColumnType>): ParsedRows<C> | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return null;
  }
  if (bytes.length < 4) return null;
  const length = bytes.readUInt32LE(0);
  let header: Header;
  try {
    header = JSON.parse(bytes.toString("utf8", 4, 4 + length)) as Header;
  } catch {
    return null;
  }
  const wanted = Object.keys(types) as C[];
  if (
    header.format !== FORMAT ||
    header.source.file !== source.file ||
    header.source.bytes !== source.bytes ||
    header.columns.length !== wanted.length ||
    header.columns.some((c, i) => c.name !== wanted[i] || c.type !== types[wanted[i]])
  )
    return null;
  const columns = {} as Record<C, Column>;
  let at = aligned(4 + length);
  for (const { name, type } of header.columns) {
    const width = type === "f64" ? 8 : type === "u32" ? 4 : 1;
    if (at + header.rows * width > bytes.length) return null;
    // views of the bytes read: each column starts 8-byte aligned in the file, and so in the buffer when it does
    const aligned8 = (bytes.byteOffset + at) % 8 === 0;
    const from = aligned8 ? bytes : new Uint8Array(bytes.subarray(at, at + header.rows * width));
    const start = aligned8 ? bytes.byteOffset + at : 0;
    columns[name as C] =
      type === "f64"
        ? new Float64Array(from.buffer, start, header.rows)
        : type === "u32"
          ? new Uint32Array(from.buffer, start, header.rows)
          : new Uint8Array(from.buffer, start, header.rows);
    at += aligned(header.rows * width);
  }
  return { fileRows: header.fileRows, skipped: header.skipped, recordBytes: header.recordBytes, columns };
}
