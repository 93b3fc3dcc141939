// A slice's stored documents, on disk rather than in memory: the JSON of every record, appended
// as it is indexed, then laid out in the order the builder asks (by name: a page of similar names
// is mostly neighbours, read together) and read back a page at a time. At full scale they are
// ~450 bytes a record, the larger part of a slice, and only the page of hits a query returns is
// ever read; the page cache keeps the hot ones without counting against the process.
// Layout: header (32 bytes): magic "LEIDEXDS", format u32, CRC-32 of the body u32, body length
// u64, reserved; then the documents back to back. The segment
// records where each document lies, and the body's length and CRC, so a document file that does
// not belong to its segment is refused like a broken segment.

import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, read, readSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { crc32 } from "node:zlib";
import { SegmentError } from "./segment-error.js";
import { readFully, writeFully } from "../os/fd-io.js";
import { WritePacer } from "../os/write-pacing.js";

const MAGIC = Buffer.from("LEIDEXDS", "latin1");
const FORMAT = 1;
const HEADER_BYTES = 32;
const WRITE_BUFFER = 1 << 20;
const VERIFY_CHUNK = 4 << 20;
/** what whole() reads at a time */
const WHOLE_CHUNK = 8 << 20;
const readAsync = promisify(read);

/** What the segment keeps of its document file to know it again. */
export interface DocFileFacts {
  bytes: number;
  crc: number;
}

/**
 * Appends documents to a scratch file during a build; `finishInOrder` writes them out where they
 * belong, in the order asked. Only that final file is checksummed: the scratch is read back once.
 */
export class DocStoreWriter {
  private readonly fd: number;
  private readonly buffer = Buffer.allocUnsafe(WRITE_BUFFER);
  private buffered = 0;
  /** body bytes so far, the buffered ones included */
  private appended = 0;
  /** body bytes on disk */
  private written = 0;
  private crc = 0;
  private closed = false;
  private readonly pacer: WritePacer;

  constructor(
    private readonly scratch: string,
    private readonly checksummed = false,
  ) {
    mkdirSync(dirname(scratch), { recursive: true });
    this.fd = openSync(scratch, "w+"); // read back by finishInOrder
    this.pacer = new WritePacer(this.fd);
    writeSync(this.fd, Buffer.alloc(HEADER_BYTES), 0, HEADER_BYTES, 0);
  }

  /** Appends one document, bytes[0, length); returns where its body bytes start. */
  append(bytes: Uint8Array, length: number): number {
    const at = this.appended;
    if (this.buffered + length > WRITE_BUFFER) this.flush();
    if (length > WRITE_BUFFER) this.writeOut(Buffer.from(bytes.buffer, bytes.byteOffset, length));
    else {
      this.buffer.set(bytes.subarray(0, length), this.buffered);
      this.buffered += length;
    }
    this.appended += length;
    return at;
  }

  private flush(): void {
    if (this.buffered === 0) return;
    const chunk = this.buffer.subarray(0, this.buffered);
    this.buffered = 0;
    this.writeOut(chunk);
  }

  private writeOut(chunk: Buffer): void {
    if (this.checksummed) this.crc = crc32(chunk, this.crc);
    writeFully(this.fd, chunk, 0, chunk.length, HEADER_BYTES + this.written);
    this.written += chunk.length;
    this.pacer.wrote(chunk.length);
  }

  /** Writes the header, syncs and moves the file to `path`: a crash leaves it whole or absent there. */
  private finish(path: string): DocFileFacts {
    this.flush();
    const header = Buffer.alloc(HEADER_BYTES);
    MAGIC.copy(header, 0);
    header.writeUInt32LE(FORMAT, 8);
    header.writeUInt32LE(this.crc, 12);
    header.writeBigUInt64LE(BigInt(this.appended), 16);
    writeFully(this.fd, header, 0, header.length, 0);
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.closed = true;
    mkdirSync(dirname(path), { recursive: true });
    renameSync(this.scratch, path);
    return { bytes: this.appended, crc: this.crc };
  }

  /**
   * Finishes the documents `order` lists, in that order, as a file of their own at `path` (this
   * scratch file goes): doc order[i] is the i-th. `starts` and `lengths` say where each lies
   * here, and `starts` is rewritten with where it lies there. Documents never listed are left out.
   */
  finishInOrder(path: string, order: Uint32Array, starts: Float64Array, lengths: Uint32Array): DocFileFacts {
    this.flush();
    const sorted = new DocStoreWriter(`${this.scratch}.sorted`, true);
    try {
      let doc = Buffer.allocUnsafe(64 * 1024);
      for (const d of order) {
        if (lengths[d] > doc.length) doc = Buffer.allocUnsafe(lengths[d]);
        readFully(this.fd, doc, 0, lengths[d], HEADER_BYTES + starts[d], "document file");
        starts[d] = sorted.append(doc, lengths[d]);
      }
      const facts = sorted.finish(path);
      this.abandon();
      return facts;
    } catch (err) {
      sorted.abandon();
      throw err;
    }
  }

  /** A build that will not finish: its partial file goes. */
  abandon(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    rmSync(this.scratch, { force: true });
  }
}

/** Reads documents by position from a finished document file; the descriptor stays open. */
export class DocStoreReader {
  private fd: number | null;

  private constructor(fd: number) {
    this.fd = fd;
  }

  /** Opens a document file just written by this process. */
  static open(path: string): DocStoreReader {
    return new DocStoreReader(openSync(path, "r"));
  }

  /**
   * Opens a document file from disk, refusing it with a SegmentError unless it is whole and is
   * the one its segment was written with (same length and CRC, read through once).
   */
  static verified(path: string, expected: DocFileFacts): DocStoreReader {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch (err) {
      throw new SegmentError(`document file ${path} cannot be opened: ${(err as Error).message}`);
    }
    try {
      const header = Buffer.alloc(HEADER_BYTES);
      if (readSync(fd, header, 0, HEADER_BYTES, 0) !== HEADER_BYTES || !header.subarray(0, 8).equals(MAGIC)) {
        throw new SegmentError(`${path} is not a Leidex document file`);
      }
      const format = header.readUInt32LE(8);
      if (format !== FORMAT) throw new SegmentError(`document file ${path} has format ${format}, this build reads ${FORMAT}`);
      const bytes = Number(header.readBigUInt64LE(16));
      const crc = header.readUInt32LE(12);
      if (bytes !== expected.bytes || crc !== expected.crc) throw new SegmentError(`document file ${path} does not belong to its segment`);
      const chunk = Buffer.allocUnsafe(VERIFY_CHUNK);
      let sum = 0;
      for (let done = 0; done < bytes;) {
        const n = readSync(fd, chunk, 0, Math.min(VERIFY_CHUNK, bytes - done), HEADER_BYTES + done);
        if (n === 0) throw new SegmentError(`document file ${path} is truncated`);
        sum = crc32(chunk.subarray(0, n), sum);
        done += n;
      }
      if (readSync(fd, chunk, 0, 1, HEADER_BYTES + bytes) !== 0)
        throw new SegmentError(`document file ${path} is longer than its header says`);
      if (sum !== crc) throw new SegmentError(`document file ${path} fails its checksum`);
      return new DocStoreReader(fd);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** The document whose body bytes lie at [at, at + length): a buffer of its own. */
  read(at: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    this.readInto(at, length, out, 0);
    return out;
  }

  /**
   * Every document's bytes in one buffer, when the body is at most `maxBytes`; null when it is
   * larger. Read off this thread (libuv's pool) a chunk at a time: a body of tens of megabytes
   * read at once would hold the calling thread as long as the disk takes when its pages are not
   * in the page cache (a delta's change feed on the main thread stalled 158 ms so).
   */
  async whole(maxBytes: number): Promise<Buffer | null> {
    const fd = this.fd;
    if (fd === null) throw new Error("document file is closed");
    const bytes = fstatSync(fd).size - HEADER_BYTES;
    if (bytes > maxBytes) return null;
    const out = Buffer.allocUnsafe(Math.max(0, bytes));
    for (let done = 0; done < out.length;) {
      const { bytesRead: n } = await readAsync(fd, out, done, Math.min(WHOLE_CHUNK, out.length - done), HEADER_BYTES + done);
      if (n === 0) throw new Error("document file ended early");
      done += n;
    }
    return out;
  }

  /** The same document (or a run of neighbours), written into `into` from `offset` on. */
  readInto(at: number, length: number, into: Uint8Array, offset: number): void {
    if (this.fd === null) throw new Error("document file is closed");
    readFully(this.fd, into, offset, length, HEADER_BYTES + at, "document file");
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
