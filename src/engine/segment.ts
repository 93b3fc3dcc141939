// A slice's immutable index on disk: written once when a load finishes, read back on restart so
// that no CSV is parsed again. A fixed header carries a magic, the format version and a CRC-32 of
// the body; a file that is short, foreign, from another format or fails its checksum is refused
// with a SegmentError, so a broken segment is rebuilt, never served.

import { open, rename, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { deserialize, serialize } from "node:v8";
import { crc32 } from "node:zlib";
import type { SliceData } from "./slice-builder.js";

/** Bump whenever SliceData or the engine's reading of it changes. */
export const SEGMENT_FORMAT = 2;
const MAGIC = Buffer.from("LEIDEXSG", "latin1");
const HEADER_BYTES = 32; // magic 8, format u32, crc u32, body length u64, docs u32, reserved u32

export class SegmentError extends Error {}

/** Writes atomically: a crash leaves either no segment or a whole one, never a torn file. */
export async function writeSegment(path: string, data: SliceData): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const body = serialize(data);
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(SEGMENT_FORMAT, 8);
  header.writeUInt32LE(crc32(body), 12);
  header.writeBigUInt64LE(BigInt(body.length), 16);
  header.writeUInt32LE(data.nDocs, 24);
  const partial = `${path}.part`;
  const fh = await open(partial, "w");
  try {
    await fh.writev([header, body]);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(partial, path);
}

export async function readSegment(path: string): Promise<SliceData> {
  let fh;
  try {
    fh = await open(path, "r");
  } catch (err) {
    throw new SegmentError(`segment ${path} cannot be opened: ${(err as Error).message}`);
  }
  try {
    const { size } = await fh.stat();
    const header = Buffer.alloc(HEADER_BYTES);
    if (size < HEADER_BYTES || (await fh.read(header, 0, HEADER_BYTES, 0)).bytesRead < HEADER_BYTES) {
      throw new SegmentError(`segment ${path} is truncated`);
    }
    if (!header.subarray(0, 8).equals(MAGIC)) throw new SegmentError(`${path} is not a Leidex segment`);
    const format = header.readUInt32LE(8);
    if (format !== SEGMENT_FORMAT) throw new SegmentError(`segment ${path} has format ${format}, this build reads ${SEGMENT_FORMAT}`);
    const length = Number(header.readBigUInt64LE(16));
    if (size !== HEADER_BYTES + length) throw new SegmentError(`segment ${path} is ${size} bytes, its header says ${HEADER_BYTES + length}`);
    const body = Buffer.allocUnsafe(length);
    let at = 0;
    while (at < length) {
      const { bytesRead } = await fh.read(body, at, length - at, HEADER_BYTES + at);
      if (bytesRead === 0) throw new SegmentError(`segment ${path} ended early`);
      at += bytesRead;
    }
    if (crc32(body) !== header.readUInt32LE(12)) throw new SegmentError(`segment ${path} fails its checksum`);
    const data = deserialize(body) as SliceData;
    if (data.nDocs !== header.readUInt32LE(24)) throw new SegmentError(`segment ${path} holds ${data.nDocs} docs, its header says ${header.readUInt32LE(24)}`);
    return data;
  } finally {
    await fh.close();
  }
}
