// A streaming writer for a single-entry deflate ZIP, as GLEIF publishes the golden
// copy: local header with the data-descriptor flag (sizes and CRC are unknown until
// the stream ends), deflate data, data descriptor, central directory, end record.
// ZIP64 records are used when sizes or offsets pass 4 GiB; because the local
// header is written before any size is known, the caller says up front whether
// the entry may reach 4 GiB (zip64Local), and the writer fails loudly rather than
// produce a broken archive if that promise is exceeded.

import { createWriteStream } from "node:fs";
import { Readable, Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";

const U32_MAX = 0xffffffff;

export interface ZipResult {
  readonly uncompressedBytes: number;
  readonly compressedBytes: number;
  readonly fileBytes: number;
  readonly crc32: number;
  readonly zip64: boolean;
}

export interface ZipOptions {
  readonly entryName: string;
  /** Modification time stored in the entry (fixed, so equal inputs give byte-identical files). */
  readonly mtime: Date;
  readonly level?: number;
  /** Write a ZIP64 local header and 8-byte data descriptor (needed if the entry may exceed 4 GiB). */
  readonly zip64Local: boolean;
}

function dosDateTime(d: Date): { time: number; date: number } {
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

/**
 * Streams `source` (UTF-8 text or bytes) into `outPath` as a one-entry zip.
 * Backpressure runs end to end: the source is pulled only as fast as the file is written.
 */
export async function writeSingleEntryZip(source: AsyncIterable<Buffer>, outPath: string, opts: ZipOptions): Promise<ZipResult> {
  const name = Buffer.from(opts.entryName, "utf8");
  const { time, date } = dosDateTime(opts.mtime);
  const flags = 0x0008 | 0x0800; // sizes in data descriptor; UTF-8 file name
  const versionNeeded = opts.zip64Local ? 45 : 20;

  let crc = 0;
  let uncompressed = 0;
  async function* tap(): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      crc = zlib.crc32(chunk, crc);
      uncompressed += chunk.length;
      yield chunk;
    }
  }

  const local = Buffer.alloc(30 + name.length + (opts.zip64Local ? 20 : 0));
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(versionNeeded, 4);
  local.writeUInt16LE(flags, 6);
  local.writeUInt16LE(8, 8);
  local.writeUInt16LE(time, 10);
  local.writeUInt16LE(date, 12);
  local.writeUInt32LE(0, 14);
  local.writeUInt32LE(opts.zip64Local ? U32_MAX : 0, 18);
  local.writeUInt32LE(opts.zip64Local ? U32_MAX : 0, 22);
  local.writeUInt16LE(name.length, 26);
  local.writeUInt16LE(opts.zip64Local ? 20 : 0, 28);
  name.copy(local, 30);
  if (opts.zip64Local) {
    // Sizes are zero here and given in the (8-byte) data descriptor.
    local.writeUInt16LE(0x0001, 30 + name.length);
    local.writeUInt16LE(16, 32 + name.length);
  }

  let compressed = 0;
  let fileBytes = 0;
  let zip64 = opts.zip64Local;
  const framer = new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      if (fileBytes === 0) {
        this.push(local);
        fileBytes += local.length;
      }
      compressed += chunk.length;
      fileBytes += chunk.length;
      cb(null, chunk);
    },
    flush(cb: TransformCallback) {
      try {
        if (fileBytes === 0) {
          this.push(local);
          fileBytes += local.length;
        }
        const big = uncompressed >= U32_MAX || compressed >= U32_MAX;
        if (big && !opts.zip64Local) {
          throw new Error(`zip entry reached ${uncompressed} bytes but the local header was written without ZIP64`);
        }
        const descriptor = Buffer.alloc(opts.zip64Local ? 24 : 16);
        descriptor.writeUInt32LE(0x08074b50, 0);
        descriptor.writeUInt32LE(crc >>> 0, 4);
        if (opts.zip64Local) {
          descriptor.writeBigUInt64LE(BigInt(compressed), 8);
          descriptor.writeBigUInt64LE(BigInt(uncompressed), 16);
        } else {
          descriptor.writeUInt32LE(compressed, 8);
          descriptor.writeUInt32LE(uncompressed, 12);
        }
        this.push(descriptor);
        fileBytes += descriptor.length;

        const cdOffset = fileBytes;
        zip64 = opts.zip64Local || cdOffset >= U32_MAX;
        const sizes64 = opts.zip64Local;
        const extraLen = sizes64 ? 4 + 16 : 0;
        const central = Buffer.alloc(46 + name.length + extraLen);
        central.writeUInt32LE(0x02014b50, 0);
        central.writeUInt16LE((3 << 8) | 45, 4); // made by: Unix, spec 4.5
        central.writeUInt16LE(sizes64 ? 45 : 20, 6);
        central.writeUInt16LE(flags, 8);
        central.writeUInt16LE(8, 10);
        central.writeUInt16LE(time, 12);
        central.writeUInt16LE(date, 14);
        central.writeUInt32LE(crc >>> 0, 16);
        central.writeUInt32LE(sizes64 ? U32_MAX : compressed, 20);
        central.writeUInt32LE(sizes64 ? U32_MAX : uncompressed, 24);
        central.writeUInt16LE(name.length, 28);
        central.writeUInt16LE(extraLen, 30);
        central.writeUInt16LE(0, 32); // comment
        central.writeUInt16LE(0, 34); // disk
        central.writeUInt16LE(1, 36); // internal attributes: text
        central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
        central.writeUInt32LE(0, 42); // local header offset: the entry is first
        name.copy(central, 46);
        if (sizes64) {
          const at = 46 + name.length;
          central.writeUInt16LE(0x0001, at);
          central.writeUInt16LE(16, at + 2);
          central.writeBigUInt64LE(BigInt(uncompressed), at + 4);
          central.writeBigUInt64LE(BigInt(compressed), at + 12);
        }
        this.push(central);
        fileBytes += central.length;

        if (zip64) {
          const eocd64At = fileBytes;
          const eocd64 = Buffer.alloc(56);
          eocd64.writeUInt32LE(0x06064b50, 0);
          eocd64.writeBigUInt64LE(44n, 4);
          eocd64.writeUInt16LE((3 << 8) | 45, 12);
          eocd64.writeUInt16LE(45, 14);
          eocd64.writeUInt32LE(0, 16);
          eocd64.writeUInt32LE(0, 20);
          eocd64.writeBigUInt64LE(1n, 24);
          eocd64.writeBigUInt64LE(1n, 32);
          eocd64.writeBigUInt64LE(BigInt(central.length), 40);
          eocd64.writeBigUInt64LE(BigInt(cdOffset), 48);
          const locator = Buffer.alloc(20);
          locator.writeUInt32LE(0x07064b50, 0);
          locator.writeUInt32LE(0, 4);
          locator.writeBigUInt64LE(BigInt(eocd64At), 8);
          locator.writeUInt32LE(1, 16);
          this.push(eocd64);
          this.push(locator);
          fileBytes += eocd64.length + locator.length;
        }
        const eocd = Buffer.alloc(22);
        eocd.writeUInt32LE(0x06054b50, 0);
        eocd.writeUInt16LE(0, 4);
        eocd.writeUInt16LE(0, 6);
        eocd.writeUInt16LE(1, 8);
        eocd.writeUInt16LE(1, 10);
        eocd.writeUInt32LE(central.length, 12);
        eocd.writeUInt32LE(cdOffset >= U32_MAX ? U32_MAX : cdOffset, 16);
        eocd.writeUInt16LE(0, 20);
        this.push(eocd);
        fileBytes += eocd.length;
        cb();
      } catch (err) {
        cb(err as Error);
      }
    },
  });

  await pipeline(
    Readable.from(tap(), { objectMode: false, highWaterMark: 1 << 20 }),
    zlib.createDeflateRaw({ level: opts.level ?? 6, memLevel: 9, chunkSize: 1 << 16 }),
    framer,
    createWriteStream(outPath, { highWaterMark: 1 << 20 }),
  );
  return { uncompressedBytes: uncompressed, compressedBytes: compressed, fileBytes, crc32: crc >>> 0, zip64 };
}
