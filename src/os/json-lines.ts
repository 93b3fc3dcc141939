// A file of JSON lines written through one buffer: each append says where its line went, so a
// table can point at it, and the file is on disk (fsync) once finished. Read back by those places.

import {
  closeSync,
  copyFileSync,
  existsSync,
  fstatSync,
  fsyncSync,
  linkSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  truncateSync,
} from "node:fs";
import { readFully, writeFully } from "./fd-io.js";

/** Whether a JsonLines keeping `bytes` of `from` links it: the bytes after them (the lines of earlier deltas) are at most a quarter as many. */
export function keepsLinked(keep: { from: string; bytes: number }): boolean {
  const size = statSync(keep.from, { throwIfNoEntry: false })?.size;
  return size !== undefined && size >= keep.bytes && size - keep.bytes <= keep.bytes / 4;
}

export class JsonLines {
  readonly fd: number;
  private readonly buffer = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  private size = 0;
  /** whether the file is a link of `keep.from`: every line of that file is in it, at its place */
  readonly linked: boolean = false;

  /**
   * `keep`: the file starts with the first `bytes` bytes of that file, and lines are appended
   * after them. The file is linked, not copied, while what lies after those bytes is small: a
   * reader of the other file reads only the places it was given, so lines appended after them
   * change nothing for it, and the link spares copying a file of up to a gigabyte.
   */
  constructor(path: string, keep?: { from: string; bytes: number }) {
    // a file left at path may be a link of another collection's (a load killed midway): never written through
    rmSync(path, { force: true });
    if (keep === undefined) this.fd = openSync(path, "w");
    else if (keepsLinked(keep) && this.link(path, keep.from)) {
      this.linked = true;
      this.fd = openSync(path, "a");
      this.size = fstatSync(this.fd).size;
    } else {
      copyFileSync(keep.from, path);
      truncateSync(path, keep.bytes);
      this.fd = openSync(path, "a");
      this.size = keep.bytes;
    }
  }

  private link(path: string, from: string): boolean {
    try {
      linkSync(from, path);
      return true;
    } catch {
      return false; // another file system: copied
    }
  }

  /** bytes written so far, the buffered ones included */
  get bytes(): number {
    return this.size;
  }

  /** Appends the record and a newline; its offset and length (without the newline), or null when it is too long to place. */
  append(json: string): { offset: number; length: number } | null {
    const length = Buffer.byteLength(json);
    if (length > 0xffff) return null;
    if (this.used + length + 1 > this.buffer.length) this.flush();
    this.buffer.write(json, this.used);
    this.buffer[this.used + length] = 0x0a;
    this.used += length + 1;
    const offset = this.size;
    this.size += length + 1;
    return { offset, length };
  }

  finish(): void {
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
  }

  /** Closes the file unfinished (a load that failed or goes on without it). */
  abandon(): void {
    closeSync(this.fd);
  }

  private flush(): void {
    writeFully(this.fd, this.buffer, 0, this.used);
    this.used = 0;
  }
}

/** What a read-ahead reader reads past a line it does not hold: some two thousand Level 2 records. */
const WINDOW_BYTES = 256 * 1024;
/** A window that served fewer reads than this was wasted: the walk is not in file order there. */
const WINDOW_PAYS = 8;
/** After two wasted windows in a row, this many lines are read on their own before the next window. */
const SINGLE_READS = 1024;
/** Windows kept at once: walks in file order through as many parts of the file, interleaved. */
const STREAMS = 4;

interface Window {
  bytes: Buffer;
  at: number;
  /** reads it served */
  served: number;
  /** when it last served one (the reader's count of reads) */
  used: number;
}

/**
 * A file of JSON lines read by the places `JsonLines.append` gave; a missing file has no lines.
 * With `readAhead`, for a walk that reads mostly in file order (the change feed compares every
 * reporting exception of two collections at a full load, millions of lines): a line outside the
 * windows held brings the next WINDOW_BYTES with it, so the lines that follow cost no system
 * call. Up to STREAMS windows are held, the least recently used replaced: a collection built by
 * deltas has each delta's lines appended after the full file's, so a walk in table order goes
 * through the file's body and each appended part at once, each in file order. A line is then a
 * view of its window, valid until the next read: a window given up lends its buffer to the next
 * (a fresh one each time would cost the first touch of every page, more than the read). Where windows go unused
 * (the walk jumps about: two given up in a row having served few reads), lines are read on their
 * own for a while.
 */
export class JsonLinesReader {
  private readonly fd: number | null;
  private windows: Window[] = [];
  private reads = 0;
  private singleReads = 0;
  /** windows given up having served fewer than WINDOW_PAYS reads, one after another: one is a stray jump, two a walk out of order */
  private wasted = 0;
  private fileReadCount = 0;

  constructor(
    private readonly path: string,
    private readonly readAhead = false,
  ) {
    this.fd = existsSync(path) ? openSync(path, "r") : null;
  }

  /** The line at offset, length bytes (with `readAhead`, valid until the next read); null for length 0 or a missing file. */
  read(offset: number, length: number): Buffer | null {
    if (this.fd === null || length === 0) return null;
    this.reads++;
    for (const w of this.windows) {
      if (offset < w.at || offset + length > w.at + w.bytes.length) continue;
      w.served++;
      w.used = this.reads;
      return w.bytes.subarray(offset - w.at, offset - w.at + length);
    }
    if (this.readAhead && this.singleReads === 0) {
      const victim = this.windows.length < STREAMS ? null : this.leastRecent();
      if (victim !== null) this.windows = this.windows.filter((w) => w !== victim);
      this.wasted = victim === null ? this.wasted : victim.served < WINDOW_PAYS ? this.wasted + 1 : 0;
      if (this.wasted >= 2) {
        this.wasted = 0;
        this.singleReads = SINGLE_READS; // windows are tried again after these
      } else {
        const w = this.fill(offset, victim);
        if (w.bytes.length >= length) {
          w.served++;
          return w.bytes.subarray(0, length);
        }
      }
    }
    if (this.singleReads > 0) this.singleReads--;
    const out = Buffer.allocUnsafe(length);
    this.fileReadCount++;
    readFully(this.fd, out, 0, length, offset, this.path);
    return out;
  }

  /** reads of the file so far, a window or a line each: what a walk costs */
  get fileReads(): number {
    return this.fileReadCount;
  }

  private leastRecent(): Window {
    return this.windows.reduce((a, b) => (b.used < a.used ? b : a));
  }

  /** A new window from offset on (up to the file's end), in the buffer of the window it replaces when there is one, held from now on. */
  private fill(offset: number, replaced: Window | null): Window {
    const bytes =
      replaced === null ? Buffer.allocUnsafe(WINDOW_BYTES) : Buffer.from(replaced.bytes.buffer, replaced.bytes.byteOffset, WINDOW_BYTES);
    this.fileReadCount++;
    const w: Window = {
      bytes: bytes.subarray(0, readSync(this.fd!, bytes, 0, WINDOW_BYTES, offset)),
      at: offset,
      served: 0,
      used: this.reads,
    };
    this.windows.push(w);
    return w;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
  }
}
