// A slice's immutable index on disk: written once when a load finishes, read back on restart so
// that no CSV is parsed again. Its stored documents are a file of their own beside it
// (doc-store.ts), which the directory names by length and CRC. Layout:
//   header (32 bytes): magic "LEIDEXSG", format u32, CRC-32 of the body u32, body length u64,
//                      docs u32, reserved u32
//   body: directory length u32, directory JSON (scalars, column values, the document file's
//         facts, where each array lies), then every typed array at an 8-byte boundary.
// Arrays are written from and read into their own typed arrays, so neither direction holds a
// second copy of the slice. A file that is short, foreign, of another format or fails its
// checksum is refused with a SegmentError: a broken segment is rebuilt, never served.

import { mkdir, open, rename, rm, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { crc32Update } from "./crc.js";
import { DocStoreReader, type DocFileFacts } from "./doc-store.js";
import { SegmentError } from "./segment-error.js";
import { writePaced } from "../os/write-pacing.js";
import { idCount, type IdArray } from "./packed-ids.js";
import type { CodeArray, ColumnData, DocStarts, SliceData } from "./slice-builder.js";

export { SegmentError };

/** Bump whenever SliceData or the engine's reading of it changes. */
export const SEGMENT_FORMAT = 10;
const MAGIC = Buffer.from("LEIDEXSG", "latin1");
const HEADER_BYTES = 32;
const ALIGN = 8;

/** Where a segment's stored documents live: beside it, slice-0.seg -> slice-0.docs. */
export function docFileOf(segment: string): string {
  return `${segment.replace(/\.seg$/, "")}.docs`;
}

export type ArrayKind = "u8" | "u16" | "u32" | "f64";
export type TypedArray = Uint8Array | Uint16Array | Uint32Array | Float64Array;
/** An array of a segment as its directory describes it. */
export interface SegmentArray {
  name: string;
  kind: ArrayKind;
  length: number;
}
/**
 * Where readSegment reads each array into, decided once the directory is known: by default an
 * array of its own; the engine places its arrays straight into WASM memory instead.
 */
export type ArrayPlacer = (arrays: readonly SegmentArray[]) => (array: SegmentArray) => TypedArray;
interface ArrayEntry {
  kind: ArrayKind;
  offset: number;
  length: number;
}

/** Everything but the typed arrays, and where each array lies in the body. */
interface Directory {
  nDocs: number;
  trieNodes: number;
  columnValues: (string | null)[][];
  docs: DocFileFacts;
  arrays: Record<string, ArrayEntry>;
}

export const ARRAY_TYPES = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, f64: Float64Array } as const;
const ownArrays: ArrayPlacer = () => (a) => new ARRAY_TYPES[a.kind](a.length);

function kindOf(a: TypedArray): ArrayKind {
  return a instanceof Uint8Array ? "u8" : a instanceof Uint16Array ? "u16" : a instanceof Float64Array ? "f64" : "u32";
}

/** The slice's typed arrays by a stable name. */
function arraysOf(data: SliceData): [string, TypedArray][] {
  const out: [string, TypedArray][] = [
    ["termBytes", data.termBytes],
    ["termOffs", data.termOffs],
    ["postOffs", data.postOffs],
    ["postDocs", data.postDocs],
    ["postMeta", data.postMeta],
    ["trie", data.trie.words],
    ["fwdOffs", data.fwdOffs],
    ["fwdTerms", data.fwdTerms],
    ["fwdMeta", data.fwdMeta],
    ["nameLen", data.nameLen],
    ["nameKeys", data.nameKeys],
    ["docStart", data.docStart],
    ["docLen", data.docLen],
  ];
  data.columns.forEach((c, i) => out.push([`col${i}.codes`, c.codes], [`col${i}.valOffs`, c.valOffs], [`col${i}.valDocs`, c.valDocs]));
  return out;
}

/** n rounded up to the arrays' alignment (arithmetic, not bit masks: bodies may pass 2 GiB). */
export const padTo = (n: number): number => Math.ceil(n / ALIGN) * ALIGN;
const bytesOf = (a: TypedArray): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** Writes atomically: a crash leaves either no segment or a whole one, never a torn file. */
export async function writeSegment(path: string, data: SliceData): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const arrays = arraysOf(data);
  // the directory's size depends on the offsets it lists, so offsets count from the data start
  const entries: Record<string, ArrayEntry> = {};
  let at = 0;
  for (const [name, a] of arrays) {
    entries[name] = { kind: kindOf(a), offset: at, length: a.length };
    at = padTo(at + a.byteLength);
  }
  const directory: Directory = {
    nDocs: data.nDocs,
    trieNodes: data.trie.nodes,
    columnValues: data.columns.map((c) => c.values),
    docs: data.docFacts,
    arrays: entries,
  };
  const json = Buffer.from(JSON.stringify(directory));
  const lead = Buffer.alloc(padTo(4 + json.length));
  lead.writeUInt32LE(json.length, 0);
  json.copy(lead, 4);

  const pieces: Buffer[] = [lead];
  for (const [, a] of arrays) {
    pieces.push(bytesOf(a));
    const pad = padTo(a.byteLength) - a.byteLength;
    if (pad > 0) pieces.push(Buffer.alloc(pad));
  }
  let crc = 0;
  let length = 0;
  for (const p of pieces) {
    crc = crc32Update(p, crc);
    length += p.length;
  }

  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(SEGMENT_FORMAT, 8);
  header.writeUInt32LE(crc, 12);
  header.writeBigUInt64LE(BigInt(length), 16);
  header.writeUInt32LE(data.nDocs, 24);
  const partial = `${path}.part`;
  try {
    const fh = await open(partial, "w");
    try {
      let position = 0;
      const pace = { since: 0 };
      for (const p of [header, ...pieces]) {
        await writePaced(fh, p, position, pace);
        position += p.length;
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(partial, path);
  } catch (err) {
    await rm(partial, { force: true }).catch(() => undefined); // a failed write leaves no partial file
    throw err;
  }
}

/**
 * The slice written to `path`, its arrays where `place` says, and its document file, verified
 * (unless this process has just written it): a SegmentError if anything is off.
 */
export async function readSegment(
  path: string,
  place: ArrayPlacer = ownArrays,
  docsJustWritten = false,
): Promise<{ data: SliceData; docs: DocStoreReader }> {
  let fh: FileHandle;
  try {
    fh = await open(path, "r");
  } catch (err) {
    throw new SegmentError(`segment ${path} cannot be opened: ${(err as Error).message}`);
  }
  try {
    const { size } = await fh.stat();
    const header = Buffer.alloc(HEADER_BYTES);
    if (size < HEADER_BYTES) throw new SegmentError(`segment ${path} is truncated`);
    await readAll(fh, header, 0, path);
    if (!header.subarray(0, 8).equals(MAGIC)) throw new SegmentError(`${path} is not a Leidex segment`);
    const format = header.readUInt32LE(8);
    if (format !== SEGMENT_FORMAT) throw new SegmentError(`segment ${path} has format ${format}, this build reads ${SEGMENT_FORMAT}`);
    const length = Number(header.readBigUInt64LE(16));
    if (size !== HEADER_BYTES + length)
      throw new SegmentError(`segment ${path} is ${size} bytes, its header says ${HEADER_BYTES + length}`);

    const lengthField = Buffer.alloc(4);
    await readAll(fh, lengthField, HEADER_BYTES, path);
    const jsonLength = lengthField.readUInt32LE(0);
    if (4 + jsonLength > length) throw new SegmentError(`segment ${path} has a broken directory`);
    const lead = Buffer.alloc(padTo(4 + jsonLength));
    await readAll(fh, lead, HEADER_BYTES, path);
    let crc = crc32Update(lead, 0);
    let directory: Directory;
    try {
      directory = JSON.parse(lead.subarray(4, 4 + jsonLength).toString("utf8")) as Directory;
    } catch {
      throw new SegmentError(`segment ${path} has a broken directory`);
    }

    const dataStart = HEADER_BYTES + lead.length;
    const entries = Object.entries(directory.arrays ?? {});
    for (const [name, entry] of entries) {
      const Type = ARRAY_TYPES[entry.kind];
      if (!Type || entry.offset % ALIGN !== 0 || !Number.isSafeInteger(entry.length) || entry.length < 0) {
        throw new SegmentError(`segment ${path}: array ${name} is malformed`);
      }
      if (dataStart + entry.offset + padTo(entry.length * Type.BYTES_PER_ELEMENT) > size)
        throw new SegmentError(`segment ${path}: array ${name} runs past the end`);
    }
    const destination = place(entries.map(([name, e]) => ({ name, kind: e.kind, length: e.length })));
    const arrays = new Map<string, TypedArray>();
    for (const [name, entry] of entries) {
      const array = destination({ name, kind: entry.kind, length: entry.length });
      const bytes = bytesOf(array);
      await readAll(fh, bytes, dataStart + entry.offset, path);
      crc = crc32Update(bytes, crc);
      const pad = padTo(bytes.length) - bytes.length;
      if (pad > 0) crc = crc32Update(Buffer.alloc(pad), crc);
      arrays.set(name, array);
    }
    if (crc !== header.readUInt32LE(12)) throw new SegmentError(`segment ${path} fails its checksum`);
    if (directory.nDocs !== header.readUInt32LE(24)) throw new SegmentError(`segment ${path}: header and directory disagree on docs`);
    const data = sliceDataFrom(directory, arrays, path);
    return { data, docs: docsJustWritten ? DocStoreReader.open(data.docFile) : DocStoreReader.verified(data.docFile, data.docFacts) };
  } finally {
    await fh.close();
  }
}

function sliceDataFrom(dir: Directory, arrays: Map<string, TypedArray>, path: string): SliceData {
  function get<K extends ArrayKind>(name: string, kind: K): InstanceType<(typeof ARRAY_TYPES)[K]> {
    const a = arrays.get(name);
    if (!a || kindOf(a) !== kind) throw new SegmentError(`segment ${path} lacks array ${name}`);
    return a as InstanceType<(typeof ARRAY_TYPES)[K]>;
  }
  if (typeof dir.docs?.bytes !== "number" || typeof dir.docs.crc !== "number")
    throw new SegmentError(`segment ${path} does not name its document file`);
  /** An array stored in one of several widths, and whatever else `fits` asks of it. */
  function either<T extends TypedArray>(name: string, kinds: readonly ArrayKind[], fits: (a: TypedArray) => boolean = () => true): T {
    const a = arrays.get(name);
    if (!a || !kinds.includes(kindOf(a)) || !fits(a)) throw new SegmentError(`segment ${path} lacks array ${name}`);
    return a as T;
  }
  const codesOf = (name: string): CodeArray => either(name, ["u8", "u16", "u32"]);
  // the id arrays hold one id per forward entry (packed-ids.ts), the document starts one per doc
  const fwdOffs = get("fwdOffs", "u32");
  const entries = fwdOffs.length > 0 ? fwdOffs[fwdOffs.length - 1] : 0;
  const ids = (name: string): IdArray => either(name, ["u8", "u32"], (a) => idCount(a as IdArray) === entries);
  const starts = (name: string): DocStarts => either(name, ["f64", "u32"], (a) => a.length === dir.nDocs);
  const columns: ColumnData[] = dir.columnValues.map((values, i) => ({
    values,
    codes: codesOf(`col${i}.codes`),
    valOffs: get(`col${i}.valOffs`, "u32"),
    valDocs: get(`col${i}.valDocs`, "u32"),
  }));
  return {
    nDocs: dir.nDocs,
    termBytes: get("termBytes", "u8"),
    termOffs: get("termOffs", "u32"),
    postOffs: get("postOffs", "u32"),
    postDocs: ids("postDocs"),
    postMeta: get("postMeta", "u16"),
    trie: { nodes: dir.trieNodes, words: get("trie", "u32") },
    fwdOffs,
    fwdTerms: ids("fwdTerms"),
    fwdMeta: get("fwdMeta", "u16"),
    nameLen: get("nameLen", "u8"),
    nameKeys: get("nameKeys", "u32"),
    columns,
    docFile: docFileOf(path),
    docFacts: dir.docs,
    docStart: starts("docStart"),
    docLen: get("docLen", "u32"),
  };
}

async function readAll(fh: FileHandle, into: Buffer, position: number, path: string): Promise<void> {
  let done = 0;
  while (done < into.length) {
    const { bytesRead } = await fh.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) throw new SegmentError(`segment ${path} ended early`);
    done += bytesRead;
  }
}
